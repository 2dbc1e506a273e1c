"""Type hints: the package ships a py.typed marker (and pyproject.toml installs it), and the public
API is annotated with hints that resolve."""
import inspect
import sys
import typing
from pathlib import Path

import mapping
from mapping import context, errors, http, objects

PACKAGE = Path(mapping.__file__).parent
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()
    if sys.version_info >= (3, 11):
        import tomllib
        with open(PYPROJECT, "rb") as file:
            settings = tomllib.load(file)["tool"]["setuptools"]
        assert "py.typed" in settings["package-data"]["mapping"]
    else:
        assert 'mapping = ["py.typed"]' in PYPROJECT.read_text()


def public_callables():
    for name in mapping.__all__:
        value = getattr(mapping, name)
        if inspect.isclass(value) and not issubclass(value, BaseException):
            for attribute, member in vars(value).items():
                if attribute.startswith("_") and attribute not in ("__init__", "__getitem__", "__setitem__"):
                    continue
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{name}.{attribute}", member
            for base in value.__mro__[1:]:  # the HTTP half of Context, the Handle methods
                if base.__module__.startswith("mapping"):
                    for attribute, member in vars(base).items():
                        if not attribute.startswith("_") and inspect.isfunction(member):
                            yield f"{name}.{attribute}", member
        elif inspect.isfunction(value):
            yield name, value


def test_every_public_function_is_annotated():
    checked = dict(public_callables())
    assert {"Context.import_json", "Context.close", "Object.get", "Object.related", "ObjectList.__getitem__",
            "Paginator.path", "ObjectManager.get_objects", "Context.map_response", "resolve_url",
            "available_parsers"} <= set(checked)
    namespace = {**vars(typing), **vars(objects), **vars(http), **vars(context), **vars(errors)}
    for name, function in checked.items():
        signature = inspect.signature(function)
        assert signature.return_annotation is not inspect.Signature.empty, f"{name} has no return type"
        for parameter in list(signature.parameters.values())[1:] if "." in name else signature.parameters.values():
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD) or parameter.name == "arguments":
                assert parameter.annotation is not inspect.Parameter.empty, f"{name}({parameter.name}) has no type"
        typing.get_type_hints(function, globalns=namespace)  # every hint resolves


def test_hints_say_what_the_calls_return():
    namespace = {**vars(objects), **vars(context), **vars(http)}
    assert typing.get_type_hints(mapping.Context.import_json, namespace)["return"] is mapping.ObjectList
    assert typing.get_type_hints(mapping.Context.get, namespace)["return"] == typing.Optional[mapping.Object]
    assert typing.get_type_hints(mapping.Context.count, namespace)["return"] is int
    assert typing.get_type_hints(mapping.Object.related, namespace)["return"] == \
        typing.Union[mapping.Object, mapping.ObjectList, None]
