"""check.py on a fake package of three targets (MappingCore ← MappingSQL ← MappingEngine): it passes on
the good tree and names the file, line, targets and rule of each violation."""
import subprocess
import sys
from pathlib import Path

CHECK = Path(__file__).resolve().parent / "check.py"

MANIFEST = """// swift-tools-version:6.0
// A fake package.
//
// Targets, from the bottom up; each imports only targets above it in this list (Tests/layers
// checks it):
//   MappingCore     the engine
//   MappingSQL      what the stores share
//                   (a description on two lines)
//   MappingEngine   the context
import PackageDescription

let wanted = true
var coreDependency: [Target.Dependency] { wanted ? ["MappingCore"] : [] }

let package = Package(
    name: "fake",
    targets: [
        .target(name: "MappingCore"),
        .target(name: "MappingSQL", dependencies: ["MappingCore"]),
        .target(name: "MappingEngine", dependencies: ["MappingSQL"] + coreDependency),
    ]
)
"""

SOURCES = {
    "Sources/MappingCore/Core.swift": "import Foundation\npublic struct Core {}\n",
    "Sources/MappingSQL/Layout.swift": "internal import MappingCore\n// import MappingEngine (a comment)\n"
                                       "public struct Layout {}\n",
    "Sources/MappingEngine/Context/MappingContext.swift": "import Glibc\n@_exported import MappingSQL\n"
                                                          "#if FLAG\npublic import MappingCore\n#endif\n"
                                                          "public final class MappingContext {}\n",
}


def make_package(root, manifest=MANIFEST, files=None):
    (root / "Package.swift").write_text(manifest)
    for path, text in {**SOURCES, **(files or {})}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def run(root):
    return subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True, timeout=60)


def test_a_good_tree_passes(tmp_path):
    result = run(make_package(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "layers: 3 targets, 3 imports, all downward\n"


def test_an_upward_import_fails(tmp_path):
    result = run(make_package(tmp_path, files={
        "Sources/MappingSQL/Rows.swift": "import MappingCore\n@testable import MappingEngine\n"}))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Sources/MappingSQL/Rows.swift:2: MappingSQL imports MappingEngine, a target listed below it, not above it "
        "(a target imports only targets above it in Package.swift's list)"]


def test_an_undeclared_dependency_fails(tmp_path):
    manifest = MANIFEST.replace('["MappingSQL"] + coreDependency', '["MappingSQL"]')
    result = run(make_package(tmp_path, manifest=manifest))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "Sources/MappingEngine/Context/MappingContext.swift:4: MappingEngine imports MappingCore, which it does not "
        "declare in its dependencies in Package.swift (every imported target must be a direct dependency in "
        "Package.swift)"]


def test_a_store_mentioning_the_context_fails(tmp_path):
    result = run(make_package(tmp_path, files={
        "Sources/MappingSQL/Layout.swift": "import MappingCore\n\n/// Filled by MappingContext.open.\n"
                                           "public struct Layout {}\n"}))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("Sources/MappingSQL/Layout.swift:3: MappingSQL mentions MappingContext "
                               "(the stores never see a context")


def test_an_unlisted_module_fails(tmp_path):
    result = run(make_package(tmp_path, files={"Sources/MappingCore/Extra.swift": "import Collections\n"}))
    assert result.returncode == 1
    assert result.stdout.startswith("Sources/MappingCore/Extra.swift:1: MappingCore imports Collections, which is "
                                    "not in Package.swift's list of targets nor a system module")


def test_a_manifest_without_the_list_is_an_error(tmp_path):
    manifest = MANIFEST.replace("Targets, from the bottom up", "Targets")
    result = run(make_package(tmp_path, manifest=manifest))
    assert result.returncode == 2
    assert "no comment line `// Targets, from the bottom up; ...`" in result.stderr
