#!/usr/bin/env python3
"""The package's targets are layers: each imports only targets before it in the list that
Package.swift's header comment gives ("Targets, from the bottom up; each imports only targets above it
in this list", then one `//   Name   description` line per target, bottom first).

    python3 Tests/layers/check.py [PACKAGE_ROOT]      (default: the repository holding this file)

For every Swift file under Sources/<Target>/ (recursively) of every listed target, each import
statement (`import X`, `@testable import X`, `public|package|internal import X`,
`@_exported import X`, `import struct X.Y`, …, inside `#if` blocks too: every branch counts;
comments and string literals are skipped) must name
  - a system module (SYSTEM_MODULES below), which is not checked further; or
  - a target listed above the importing one (never itself nor one below it), which
  - the importing target declares in its `dependencies:` in Package.swift (directly: a target used
    only through another target's dependencies must still be declared).
A module that is neither a system module nor in the list fails.

Also:
  - `MappingContext` must not appear in any file (code or comment) under Sources/MappingSQL,
    Sources/MappingSQLite or Sources/MappingPostgres: the stores never see a context;
  - a dependency a listed target declares on another listed target must be above it too;
  - every listed target must be declared in Package.swift, and every folder of Sources/ holding Swift
    files must be in the list (else its imports would not be checked at all).
C targets (system libraries, and the targets named C<Upper>…, whose folders Sources/C*/ hold no
Swift) are not read, but importing one from Swift is checked like any other target.

Dependencies are read from the manifest's text (it is not run): each `.target(name: "X",
dependencies: <expression>, …)`, where the expression is array literals and variable names joined by
`+`. Array elements are "Name", .target(name: "Name"), .byName(name: "Name") or
.product(name: "Name", …). A variable (`var x: [Target.Dependency] { cond ? ["A"] : [] }`, or
`let x = …`) is resolved to every name in the array literals of its definition, whichever branch the
build takes: a dependency the manifest declares only in some configurations counts as declared
(the import of it is then normally inside a matching `#if`). A term that cannot be resolved (an
unknown variable, a function call, a variable whose definition holds no array literal) adds no name
and is reported on stderr: imports relying on it then fail as undeclared, so the check never passes
on a guess.

Exit status: 0 (one summary line), 1 (one line per violation, `path:line: ...`), 2 (Package.swift
could not be read as expected)."""
import re
import sys
from pathlib import Path

SYSTEM_MODULES = {"Glibc", "Foundation", "Dispatch", "Darwin", "Swift", "_Concurrency", "XCTest", "Testing"}
STORE_TARGETS = ("MappingSQL", "MappingSQLite", "MappingPostgres")
CONTEXT_NAME = "MappingContext"
# Calls that declare a target in a manifest.
DECLARATIONS = ("target", "executableTarget", "testTarget", "systemLibrary", "binaryTarget", "plugin", "macro")
# Dependency elements naming a target or product: `.target(name: "A")`, `.byName(name: "A")`, ….
DEPENDENCY_CALLS = ("target", "byName", "product")

RULE_ORDER = "a target imports only targets above it in Package.swift's list"
RULE_LISTED = "a target imports only system modules and the targets of Package.swift's list"
RULE_DECLARED = "every imported target must be a direct dependency in Package.swift"
RULE_CONTEXT = "the stores never see a context"


class ManifestError(Exception):
    """Package.swift is not what the check can read."""


# ---------------------------------------------------------------------------------------------------
# Swift source: comments and string literals blanked, line breaks kept (so offsets and lines match).


STRING_START = re.compile(r'(#*)("""|")')


def blank(source, keep_strings=False):
    """`source` with every comment (`//`, nested `/* */`) and, unless `keep_strings`, every string
    literal's contents (single-line, multi-line, raw `#"…"#`; interpolated code is kept) replaced by
    spaces. Line breaks stay, so every offset and line number is the same as in `source`."""
    out = list(source)
    n = len(source)
    # A stack of frames: ("code", depth) for code (interpolation code counts its parentheses), or
    # ("string", hashes, multiline) inside a string literal.
    stack = [("code", 0)]
    i = 0

    def erase(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        frame = stack[-1]
        c = source[i]
        if frame[0] == "code":
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                erase(i, end)
                i = end
                continue
            if source.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if source.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif source.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                erase(i, j)
                i = j
                continue
            match = STRING_START.match(source, i) if c in '"#' else None
            if match:
                hashes = len(match.group(1))
                multiline = match.group(2) == '"""'
                stack.append(("string", hashes, multiline))
                i = match.end()
                continue
            if c == "(" and len(stack) > 1:
                stack[-1] = ("code", frame[1] + 1)
            elif c == ")" and len(stack) > 1:
                if frame[1] == 0:
                    stack.pop()  # the end of an interpolation: back in its string
                else:
                    stack[-1] = ("code", frame[1] - 1)
            i += 1
            continue
        # Inside a string literal.
        _, hashes, multiline = frame
        escape = "\\" + "#" * hashes
        closing = ('"""' if multiline else '"') + "#" * hashes
        if source.startswith(escape, i):
            after = i + len(escape)
            if after < n and source[after] == "(":
                if not keep_strings:
                    erase(i, after)
                stack.append(("code", 0))
                i = after + 1
                continue
            if not keep_strings:
                erase(i, after + 1)
            i = after + 1
            continue
        if source.startswith(closing, i):
            stack.pop()
            i += len(closing)
            continue
        if c == "\n" and not multiline:
            stack.pop()  # an unterminated string: it ends with its line
            i += 1
            continue
        if not keep_strings and c != "\n":
            out[i] = " "
        i += 1
    return "".join(out)


IMPORT = re.compile(
    r"^\s*(?:(?:@[A-Za-z_]\w*(?:\([^)]*\))?|public|package|internal|fileprivate|private|open)\s+)*"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func|actor)\s+)?"
    r"([A-Za-z_]\w*)")


def imports(source):
    """(line, module) for each import statement of a Swift source, in order."""
    found = []
    for number, line in enumerate(blank(source).split("\n"), start=1):
        for statement in line.split(";"):
            match = IMPORT.match(statement)
            if match:
                found.append((number, match.group(1)))
    return found


# ---------------------------------------------------------------------------------------------------
# Package.swift


HEADER = re.compile(r"^\s*//\s*Targets, from the bottom up\b", re.IGNORECASE)
ENTRY = re.compile(r"^\s*//( +)([A-Za-z_]\w*)(?:\s.*)?$")


def listed_targets(manifest_text):
    """The targets of the header comment, bottom first. An entry is `//`, two spaces or more, a
    name; lines indented deeper than the first entry continue a description."""
    lines = manifest_text.split("\n")
    start = next((k for k, line in enumerate(lines) if HEADER.match(line)), None)
    if start is None:
        raise ManifestError("Package.swift: no comment line `// Targets, from the bottom up; ...` listing the "
                            "targets (the layer check reads the order from it)")
    names, indent = [], None
    for line in lines[start + 1:]:
        if not line.lstrip().startswith("//"):
            break
        comment = line.lstrip()[2:]
        width = len(comment) - len(comment.lstrip(" "))
        match = ENTRY.match(line)
        if indent is None:
            if match and width >= 2:
                indent = width
            else:
                continue  # the header's own continuation lines
        if not comment.strip() or width < indent:
            break
        if width > indent:
            continue  # a description's next line
        if not match:
            break
        names.append(match.group(2))
    if not names:
        raise ManifestError(f"Package.swift:{start + 1}: the comment `// Targets, from the bottom up; ...` is followed "
                            "by no `//   Name   description` lines")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ManifestError(f"Package.swift: the comment lists {', '.join(duplicates)} more than once")
    return names


OPENERS, CLOSERS = "([{", ")]}"


def matching(code, start):
    """The offset just past the bracket closing the one at `start` (strings already blanked)."""
    depth = 0
    for k in range(start, len(code)):
        if code[k] in OPENERS:
            depth += 1
        elif code[k] in CLOSERS:
            depth -= 1
            if depth == 0:
                return k + 1
    raise ManifestError(f"Package.swift: unbalanced bracket at offset {start}")


def split_top(code, start, end, separator):
    """(start, end) of the parts of code[start:end] between separators at bracket depth 0."""
    parts, depth, begin = [], 0, start
    for k in range(start, end):
        c = code[k]
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS:
            depth -= 1
        elif c == separator and depth == 0:
            parts.append((begin, k))
            begin = k + 1
    parts.append((begin, end))
    return [(a, b) for a, b in parts if code[a:b].strip()]


def arguments(code, text, open_paren):
    """{label: (start, end)} of the labelled arguments of the call whose `(` is at `open_paren`."""
    close = matching(code, open_paren) - 1
    found = {}
    for a, b in split_top(code, open_paren + 1, close, ","):
        match = re.match(r"\s*([A-Za-z_]\w*)\s*:", code[a:b])
        if match:
            found[match.group(1)] = (a + match.end(), b)
    return found


def string_literal(text, span):
    match = re.match(r'\s*"([^"\\\n]*)"\s*$', text[span[0]:span[1]])
    return match.group(1) if match else None


class Manifest:
    """The declarations of Package.swift, read from its text."""

    def __init__(self, text):
        self.text = blank(text, keep_strings=True)  # comments gone, strings kept
        self.code = blank(text)  # strings blanked too: brackets inside them never count
        self.notes = []  # dependency terms that could not be resolved
        self.variables = self._variables()
        self.declared = {}  # target name -> (kind, line, set of dependency names, path or None)
        self._declarations()

    def line(self, offset):
        return self.text.count("\n", 0, offset) + 1

    def _variables(self):
        """{name: (start, end)} of each `var`/`let` definition's body or value."""
        found = {}
        for match in re.finditer(r"\b(?:var|let)\s+([A-Za-z_]\w*)\s*(?::\s*([^={\n]+?))?\s*([={])", self.code):
            name, typed, kind = match.group(1), match.group(2) or "", match.group(3)
            if kind == "{":
                span = (match.end() - 1, matching(self.code, match.end() - 1))
            else:
                start, depth, k = match.end(), 0, match.end()
                while k < len(self.code):
                    c = self.code[k]
                    if c in OPENERS:
                        depth += 1
                    elif c in CLOSERS:
                        depth -= 1
                    elif c == "\n" and depth <= 0:
                        break
                    k += 1
                span = (start, k)
            found[name] = (span, "Target.Dependency" in typed)
        return found

    def _declarations(self):
        # Calls inside a dependency variable's body are dependencies (`.target(name:)`), not targets.
        skip = [span for span, is_dependency in self.variables.values() if is_dependency]
        pattern = re.compile(r"\.(%s)\s*\(" % "|".join(DECLARATIONS))
        position = 0
        while True:
            match = pattern.search(self.code, position)
            if not match:
                break
            if any(a <= match.start() < b for a, b in skip):
                position = match.end()
                continue
            open_paren = match.end() - 1
            args = arguments(self.code, self.text, open_paren)
            name = string_literal(self.text, args["name"]) if "name" in args else None
            if name is None:
                position = match.end()
                continue
            dependencies = self.dependencies(args["dependencies"], name) if "dependencies" in args else set()
            path = string_literal(self.text, args["path"]) if "path" in args else None
            kind = match.group(1)
            if name in self.declared:  # declared in several places (one per configuration): all count
                old = self.declared[name]
                self.declared[name] = (old[0], old[1], old[2] | dependencies, old[3] or path)
            else:
                self.declared[name] = (kind, self.line(match.start()), dependencies, path)
            position = matching(self.code, open_paren)  # past the whole declaration

    def dependencies(self, span, target):
        """The names a `dependencies:` expression can hold."""
        names = set()
        for a, b in split_top(self.code, span[0], span[1], "+"):
            names |= self._term(a, b, target)
        return names

    def _term(self, a, b, target, seen=()):
        term = self.code[a:b].strip()
        start = a + (len(self.code[a:b]) - len(self.code[a:b].lstrip()))
        if term.startswith("[") and matching(self.code, start) == start + len(term):
            return self._array(start, start + len(term), target)
        if re.fullmatch(r"[A-Za-z_]\w*", term):
            return self._variable(term, target, seen)
        # Anything else (a parenthesised condition, ...): the names of the array literals inside.
        return self._arrays_within(a, b, target, f"`{' '.join(term.split())}`")

    def _array(self, a, b, target):
        names = set()
        for x, y in split_top(self.code, a + 1, b - 1, ","):
            element = self.code[x:y].strip()
            literal = string_literal(self.text, (x, y))
            call = re.match(r"\s*\.(%s)\s*\(" % "|".join(DEPENDENCY_CALLS), self.code[x:y])
            if literal is not None:
                names.add(literal)
            elif call:
                args = arguments(self.code, self.text, x + call.end() - 1)
                name = string_literal(self.text, args["name"]) if "name" in args else None
                if name is None:
                    self.notes.append(f"{target}: dependency `{' '.join(element.split())}` names no target")
                else:
                    names.add(name)
            else:
                self.notes.append(f"{target}: dependency `{' '.join(element.split())}` not understood")
        return names

    def _variable(self, name, target, seen):
        if name in seen or name not in self.variables:
            self.notes.append(f"{target}: dependency variable `{name}` not found in Package.swift")
            return set()
        (a, b), _ = self.variables[name]
        return self._arrays_within(a, b, target, f"variable `{name}`")

    def _arrays_within(self, a, b, target, what):
        names, found, k = set(), False, a
        while k < b:
            if self.code[k] == "[":
                end = matching(self.code, k)
                inner = self.code[k + 1:end - 1].strip()
                if inner and not re.fullmatch(r"[A-Z][\w.]*", inner):  # not a type like [Target.Dependency]
                    names |= self._array(k, end, target)
                    found = True
                elif not inner:
                    found = True  # []
                k = end
            else:
                k += 1
        if not found:
            self.notes.append(f"{target}: dependency {what} has no array literal; it adds no name")
        return names


# ---------------------------------------------------------------------------------------------------


def is_c_target(name, kind):
    return kind == "systemLibrary" or re.match(r"C[A-Z]", name) is not None


def check(root):
    """(violations, summary, notes) for the package at `root`."""
    manifest_path = root / "Package.swift"
    if not manifest_path.is_file():
        raise ManifestError(f"{manifest_path}: no such file")
    manifest_text = manifest_path.read_text(encoding="utf-8")
    order = listed_targets(manifest_text)
    manifest = Manifest(manifest_text)
    position = {name: k for k, name in enumerate(order)}
    violations = []
    notes = list(manifest.notes)

    def relative(path):
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return str(path)

    for name in order:
        if name not in manifest.declared:
            violations.append(f"Package.swift: {name} is in the comment's list but no target of that name is declared")
            continue
        kind, line, dependencies, _ = manifest.declared[name]
        for dependency in sorted(dependencies):
            if dependency in position and position[dependency] >= position[name]:
                violations.append(f"Package.swift:{line}: {name} declares a dependency on {dependency}, which is not "
                                  f"above it in the list ({RULE_ORDER})")

    sources = root / "Sources"
    if sources.is_dir():
        for folder in sorted(p for p in sources.iterdir() if p.is_dir()):
            if folder.name not in position and any(folder.rglob("*.swift")):
                violations.append(f"{relative(folder)}: holds Swift files but {folder.name} is not in Package.swift's "
                                  "list of targets, so its imports are not checked (add it to the list)")

    scanned = 0
    for name in order:
        if name not in manifest.declared:
            continue
        kind, _, dependencies, path = manifest.declared[name]
        if is_c_target(name, kind):
            continue  # C: nothing to read; Swift importing it is checked below
        folder = root / (path or f"Sources/{name}")
        if not folder.is_dir():
            violations.append(f"{relative(folder)}: no such folder for the target {name}")
            continue
        for file in sorted(folder.rglob("*.swift")):
            source = file.read_text(encoding="utf-8", errors="replace")
            for line, module in imports(source):
                if module in SYSTEM_MODULES:
                    continue
                scanned += 1
                where = f"{relative(file)}:{line}: {name} imports {module}"
                if module not in position:
                    violations.append(f"{where}, which is not in Package.swift's list of targets nor a system "
                                      f"module ({RULE_LISTED})")
                    continue
                if position[module] >= position[name]:
                    relation = "itself" if module == name else "a target listed below it"
                    violations.append(f"{where}, {relation}, not above it ({RULE_ORDER})")
                    continue
                if module not in dependencies:
                    violations.append(f"{where}, which it does not declare in its dependencies in Package.swift "
                                      f"({RULE_DECLARED})")

    for store in STORE_TARGETS:
        folder = sources / store
        if not folder.is_dir():
            continue
        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            text = file.read_text(encoding="utf-8", errors="replace")
            for line, content in enumerate(text.split("\n"), start=1):
                if CONTEXT_NAME in content:
                    violations.append(f"{relative(file)}:{line}: {store} mentions {CONTEXT_NAME} ({RULE_CONTEXT}: "
                                      f"no {CONTEXT_NAME} under Sources/{'|'.join(STORE_TARGETS)})")

    summary = f"layers: {len(order)} targets, {scanned} imports, all downward"
    return violations, summary, notes


def main(argv):
    if len(argv) > 2:
        print("usage: check.py [PACKAGE_ROOT]", file=sys.stderr)
        return 2
    root = Path(argv[1]) if len(argv) == 2 else Path(__file__).resolve().parents[2]
    try:
        violations, summary, notes = check(root.resolve())
    except ManifestError as error:
        print(f"layers: {error}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"layers: note: {note}", file=sys.stderr)
    if violations:
        for violation in violations:
            print(violation)
        print(f"layers: {len(violations)} violation{'s' if len(violations) != 1 else ''}", file=sys.stderr)
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
