"""The PEP 517 build backend of ddbst's Python package, on the standard
library alone, so that `pip install ./bindings/python` needs no package index
(pip installs a backend's requirements from the index; this one has none).

The wheel holds the package and libddbst itself (ddbst/libddbst.so.0), which
the package loads from its own directory: nothing to set at run time. The
library comes from, in this order:

  1. the config setting `library` (`pip install -C library=PATH ...`) or
     $DDBST_WHEEL_LIBRARY: a libddbst.so file;
  2. an installed ddbst that pkg-config finds (its libdir);
  3. the ddbst source tree this directory sits in (../..), built with CMake
     into its build/libddbst/ (Release, the library alone), once: the Node
     package's `npm pack` builds into the same directory, so packing both
     from one tree builds the library once.

Its version must be the package's. libddbst's own dependencies (YAJL,
libsodium, libcbor) stay the system's shared libraries.

With a C compiler and Python's headers (Debian's python3-dev) the wheel
also holds ddbst/_native, the per-call path in C (src/native.c), linked to
that libddbst with an RPATH of $ORIGIN; the wheel is then for this Python
(cp311-cp311-...). Without them, or with the config setting native=no, it
is left out and the package uses ctypes alone (py3-none-...).
"""

import base64
import ctypes
import hashlib
import io
import os
import subprocess
import sysconfig
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SOURCE_ROOT = HERE.parent.parent
PACKAGE = "ddbst"
LIBRARY_NAME = "libddbst.so.0"


def _project():
    with open(HERE / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _metadata():
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        f"Requires-Python: {p['requires-python']}",
        f"License: {p['license']['text']}",
    ]
    for extra, requirements in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for r in requirements:
            lines.append(f'Requires-Dist: {r}; extra == "{extra}"')
    lines.append("Description-Content-Type: text/markdown")
    readme = (HERE / p["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def _library_version(path):
    lib = ctypes.CDLL(str(path))
    lib.ddbst_version.restype = ctypes.c_char_p
    return lib.ddbst_version().decode()


def _pkg_config_library():
    try:
        libdir = subprocess.run(
            ["pkg-config", "--variable=libdir", "ddbst"], check=True,
            capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    candidate = Path(libdir) / "libddbst.so"
    return candidate if candidate.exists() else None


def _build_from_source():
    if not (SOURCE_ROOT / "CMakeLists.txt").exists() or \
            not (SOURCE_ROOT / "include" / "ddbst.h").exists():
        return None
    # shared with bindings/node/scripts/bundle-library.cjs
    build = SOURCE_ROOT / "build" / "libddbst"
    log = build.parent / "libddbst-build.log"
    build.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        for cmd in (["cmake", "-S", str(SOURCE_ROOT), "-B", str(build),
                     "-DCMAKE_BUILD_TYPE=Release", "-DDDBST_TESTS=OFF", "-DDDBST_TOOLS=OFF"],
                    ["cmake", "--build", str(build), "--target", "ddbst",
                     "-j2"]):
            if subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode:
                raise RuntimeError(f"building libddbst failed: {' '.join(cmd)}"
                                   f" (see {log})")
    return build / "libddbst.so"


def _find_library(config_settings):
    given = (config_settings or {}).get("library") or \
        os.environ.get("DDBST_WHEEL_LIBRARY")
    if given:
        path = Path(given)
        if not path.exists():
            raise RuntimeError(f"library {given}: no such file")
    else:
        path = _pkg_config_library() or _build_from_source()
        if path is None:
            raise RuntimeError(
                "libddbst not found: install ddbst (pkg-config ddbst), build "
                "from the ddbst source tree, or pass -C library=PATH")
    version = _library_version(path)
    if version != _project()["version"]:
        raise RuntimeError(f"{path} is ddbst {version}, this package is "
                           f"{_project()['version']}")
    return path.resolve()


def _include_dir():
    if (SOURCE_ROOT / "include" / "ddbst.h").exists():
        return SOURCE_ROOT / "include"
    try:
        d = subprocess.run(["pkg-config", "--variable=includedir", "ddbst"],
                           check=True, capture_output=True,
                           text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return Path(d) if (Path(d) / "ddbst.h").exists() else None


def _build_native(library, config_settings):
    """ddbst/_native's file name and bytes, or None (with why, on stderr)."""
    if (config_settings or {}).get("native") == "no":
        return None
    include = _include_dir()
    python_include = sysconfig.get_paths()["include"]
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    if include is None or not (Path(python_include) / "Python.h").exists():
        print("ddbst_build: no ddbst.h or Python.h: the wheel has no "
              "ddbst._native (ctypes alone)", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / ("_native" + suffix)
        cmd = cc + ["-shared", "-fPIC", "-O2", "-std=c11", "-Wall",
                    f"-I{python_include}", f"-I{include}",
                    str(HERE / "src" / "native.c"), str(library),
                    "-Wl,-rpath,$ORIGIN", "-o", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            print("ddbst_build: ddbst._native did not build (ctypes alone):\n"
                  + done.stderr, file=sys.stderr)
            return None
        return "_native" + suffix, out.read_bytes()


def _tag(native):
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    if not native:
        return f"py3-none-{platform}"
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{impl}-{impl}-{platform}"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def _package_files():
    for path in sorted((HERE / PACKAGE).iterdir()):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            yield f"{PACKAGE}/{path.name}", path.read_bytes()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    library = _find_library(config_settings)
    native = _build_native(library, config_settings)
    tag = _tag(native)
    dist_info = f"{p['name']}-{p['version']}.dist-info"
    name = f"{p['name']}-{p['version']}-{tag}.whl"
    files = list(_package_files())
    files.append((f"{PACKAGE}/{LIBRARY_NAME}", library.read_bytes()))
    if native:
        files.append((f"{PACKAGE}/{native[0]}", native[1]))
    files.append((f"{dist_info}/METADATA", _metadata().encode("utf-8")))
    files.append((f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: ddbst_build\n"
        f"Root-Is-Purelib: false\nTag: {tag}\n").encode()))
    record = [_record_line(n, d) for n, d in files]
    record.append(f"{dist_info}/RECORD,,")
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(Path(wheel_directory) / name, "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if ".so" in n else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, d)
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The package's own files: installing from it needs an installed ddbst
    (pkg-config) or -C library=PATH, since the C sources are not in it."""
    p = _project()
    base = f"{p['name']}-{p['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        for rel in ["pyproject.toml", p["readme"], "_build/ddbst_build.py",
                    "src/native.c"] + \
                [n for n, _ in _package_files()]:
            tar.add(HERE / rel, arcname=f"{base}/{rel}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode("utf-8")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
