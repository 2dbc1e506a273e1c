"""The package's modules are layers, each importing only those below it, so that there is no import
circle (and no import put inside a function to hide one):

    _lib ← _ffi ← errors ← _handle ← objects ← observe ← multipart ← transport ← batch ← http ← context
    ← __init__

Every import counts, at module level or inside a function, except those under `if TYPE_CHECKING:`,
which never run; the names those bind may only be used in annotations (strings, with
`from __future__ import annotations`), never by running code. Read from the source with `ast`."""
import ast
from pathlib import Path

import mapping

LAYERS = ["_lib", "_ffi", "errors", "_handle", "objects", "observe", "multipart", "transport", "batch", "http",
          "context", "__init__"]
PACKAGE = Path(mapping.__file__).resolve().parent


def is_type_checking(test):
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def runtime_nodes(tree):
    """Every node of the module but those under `if TYPE_CHECKING:` (its `else:` runs, so stays)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(node, modules):
    """The package's modules an import statement reaches ("__init__" for the package itself)."""
    if isinstance(node, ast.Import):
        found = []
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == "mapping":
                found.append(parts[1] if len(parts) > 1 else "__init__")
        return found
    if isinstance(node, ast.ImportFrom):
        if node.level == 0:
            if node.module is None or node.module.split(".")[0] != "mapping":
                return []
            path = node.module.split(".")[1:]
        elif node.level == 1:
            path = node.module.split(".") if node.module else []
        else:
            return ["__init__"]  # above the package: nothing of ours but its top
        if path:
            return [path[0]]
        # `from . import x`: x is a module, or a name the package's __init__ gives
        return [alias.name if alias.name in modules else "__init__" for alias in node.names]
    return []


def upward_imports(name, source, layers=LAYERS):
    """The imports of module `name` that reach a module at its layer or above, and dynamic imports."""
    tree = ast.parse(source)
    mine = layers.index(name)
    found = []
    for node in runtime_nodes(tree):
        for target in imported_modules(node, set(layers)):
            if target not in layers:
                found.append(f"{name}:{node.lineno} imports {target}, which has no layer")
            elif layers.index(target) >= mine:
                found.append(f"{name}:{node.lineno} imports {target}, which is not below it")
        if isinstance(node, ast.Call):
            called = node.func
            if (isinstance(called, ast.Name) and called.id == "__import__") or \
                    (isinstance(called, ast.Attribute) and called.attr == "import_module"):
                found.append(f"{name}:{node.lineno} imports dynamically")
    return found


def annotation_nodes(tree):
    """The annotations of a module: of arguments, returns and annotated assignments."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def type_checking_names_in_running_code(name, source):
    """The names bound under `if TYPE_CHECKING:` that running code uses (outside annotations), and a
    module that has such names without postponed annotations."""
    tree = ast.parse(source)
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for inner in node.body:
                for child in ast.walk(inner):
                    if isinstance(child, (ast.Import, ast.ImportFrom)):
                        bound |= {(alias.asname or alias.name).split(".")[0] for alias in child.names}
    if not bound:
        return []
    found = []
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names) for node in tree.body)
    if not postponed:
        found.append(f"{name} imports {sorted(bound)} for type checking without `from __future__ import annotations`")
    in_annotations = {id(inner) for annotation in annotation_nodes(tree) for inner in ast.walk(annotation)}
    for node in runtime_nodes(tree):
        if isinstance(node, ast.Name) and node.id in bound and id(node) not in in_annotations:
            found.append(f"{name}:{node.lineno} uses {node.id}, imported for type checking only")
    return found


def modules():
    return {path.stem: path.read_text() for path in sorted(PACKAGE.glob("*.py"))}


def test_every_module_has_a_layer():
    assert set(modules()) == set(LAYERS)


def test_no_module_imports_one_above_it():
    found = [problem for name, source in modules().items() if name in LAYERS
             for problem in upward_imports(name, source)]
    assert found == []


def test_imports_for_type_checking_are_used_in_annotations_only():
    found = [problem for name, source in modules().items()
             for problem in type_checking_names_in_running_code(name, source)]
    assert found == []


def test_the_checks_see_what_they_forbid():
    """The tests above can fail: an upward import at module level, in a function, relative or
    absolute, through `from . import`, or dynamic; a name imported for type checking used at run time."""
    upward = {
        "from .context import Context": "imports context",
        "def f():\n    from .http import ObjectManager\n": "imports http",
        "from . import observe": "imports observe",
        "import mapping.context": "imports context",
        "from mapping.objects import Object": "imports objects",
        "from mapping import Context": "imports __init__",
        "from . import Context": "imports __init__",
        "from .newmodule import x": "has no layer",
        "import importlib\nimportlib.import_module('mapping.context')": "dynamically",
        "if TYPE_CHECKING:\n    pass\nelse:\n    from .context import Context\n": "imports context",
        "from .objects import Object": "imports objects",  # itself: not below
    }
    for source, problem in upward.items():
        found = upward_imports("objects", source)
        assert len(found) == 1 and problem in found[0], (source, found)
    allowed = ("from . import _ffi\nfrom ._handle import Handle\nfrom .errors import MisuseError\n"
               "import json\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .context import Context\n")
    assert upward_imports("objects", allowed) == []

    header = "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n" \
             "if TYPE_CHECKING:\n    from .context import Context\n"
    assert type_checking_names_in_running_code("objects", header + "def f(c: Context) -> Context:\n    x: Context = c\n") == []
    assert type_checking_names_in_running_code("objects", header + "def f(c):\n    return isinstance(c, Context)\n")
    assert type_checking_names_in_running_code("objects", header.replace("from __future__ import annotations\n", ""))
