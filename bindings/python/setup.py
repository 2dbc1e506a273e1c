"""Builds the package with libmapping.so inside it, so that an installed `import mapping` needs no
environment variable (the loader in mapping/_lib.py looks beside the package), as a platform wheel
(py3-none-linux_x86_64: the Python code is version-independent, the library is not).

The library copied in is $MAPPING_LIBRARY, else <repository>/.build/release/libmapping.so, built with
`make release` in the repository when neither exists. It is copied into the build directory, never
into src/, and stripped of its symbol tables there. In a checkout the build directory is
<repository>/.build/python, so `pip wheel` and `pip install` leave the working tree as it was.
The metadata is in pyproject.toml."""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]  # bindings/python -> bindings -> the repository
IN_CHECKOUT = (REPOSITORY / "Makefile").is_file() and (REPOSITORY / "include" / "mapping.h").is_file()
LIBRARY_NAME = "libmapping.so"
# The plugins libmapping.so loads from beside itself (the simdjson parser, the PostgreSQL store);
# each shipped when the build made it.
PLUGINS = {"libmapping-simdjson.so": "the simdjson parser", "libmapping-postgres.so": "the PostgreSQL store"}


def library():
    """The libmapping.so to ship: $MAPPING_LIBRARY, else the checkout's release build (made if missing)."""
    explicit = os.environ.get("MAPPING_LIBRARY")
    if explicit:
        if not Path(explicit).is_file():
            raise SystemExit(f"MAPPING_LIBRARY={explicit} is not a file")
        return Path(explicit)
    if not IN_CHECKOUT:
        raise SystemExit(f"libmapping.so not found: set MAPPING_LIBRARY, or build from a checkout of libmapping "
                         f"({REPOSITORY} is not one)")
    built = REPOSITORY / ".build" / "release" / LIBRARY_NAME
    if not built.is_file():
        print(f"{built} is missing: running `make release` in {REPOSITORY}")
        subprocess.run(["make", "release"], cwd=REPOSITORY, check=True)
    return built


class build_py_with_library(build_py):
    """build_py, plus libmapping.so copied into the built package (mapping/libmapping.so)."""

    def run(self):
        editable = getattr(self, "editable_mode", False)
        if not editable:
            shutil.rmtree(Path(self.build_lib) / "mapping", ignore_errors=True)  # no module left from an earlier build
        super().run()
        if editable:
            return  # an editable install runs from src/ and finds the checkout's library
        source = library()
        for name, found in [(LIBRARY_NAME, source)] + [(plugin, source.parent / plugin) for plugin in PLUGINS]:
            if name in PLUGINS and not found.is_file():
                print(f"{found} is not there: the package ships without {PLUGINS[name]}")
                continue
            target = Path(self.build_lib) / "mapping" / name
            print(f"copying {found} -> {target}")
            shutil.copyfile(found, target)
            if shutil.which("strip"):
                subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)
            target.chmod(0o755)

    def get_outputs(self, include_bytecode=True):
        shipped = [LIBRARY_NAME] + [plugin for plugin in PLUGINS if (Path(self.build_lib) / "mapping" / plugin).is_file()]
        return super().get_outputs(include_bytecode) + [str(Path(self.build_lib) / "mapping" / name) for name in shipped]


class BinaryDistribution(Distribution):
    """A distribution with a compiled part (the library): installed into platlib, wheel not pure."""

    def has_ext_modules(self):
        return True


class bdist_platform_wheel(bdist_wheel):
    """A wheel for this platform, for any Python 3: py3-none-<platform>."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


# In a checkout, everything the build writes goes under .build/python (ignored, like every build
# product): the build tree and the egg-info that setuptools would otherwise leave in src/.
options = {}
if IN_CHECKOUT:
    BUILD = REPOSITORY / ".build" / "python"
    BUILD.mkdir(parents=True, exist_ok=True)
    options = {"build": {"build_base": str(BUILD)}, "egg_info": {"egg_base": str(BUILD)}}

setup(distclass=BinaryDistribution, cmdclass={"build_py": build_py_with_library, "bdist_wheel": bdist_platform_wheel},
      options=options)
