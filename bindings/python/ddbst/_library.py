"""Finding and loading libddbst, and the C functions the package calls."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
# The wheel carries the library beside the package (see _build/).
BUNDLED = os.path.join(_HERE, "libddbst.so.0")

_libraries: dict[str, ctypes.CDLL] = {}
_lock = threading.Lock()


def library_path(path: str | os.PathLike[str] | None = None) -> str:
    """Which libddbst to load: `path`, else $DDBST_LIBRARY, else the one the
    wheel installed beside this module, else the dynamic linker's."""
    found = os.fspath(path) if path is not None else \
        os.environ.get("DDBST_LIBRARY")
    if not found and os.path.exists(BUNDLED):
        found = BUNDLED
    if not found:
        found = ctypes.util.find_library("ddbst")
    if not found:
        raise OSError("libddbst not found: install the ddbst package with pip "
                      "(it carries the library), pass library=, or set "
                      "DDBST_LIBRARY")
    return found


def _declare(lib: ctypes.CDLL) -> None:
    # Answers are c_void_p, not c_char_p: ctypes would copy a c_char_p into
    # bytes and lose the pointer ddbst_json_free needs.
    vp, sz, cp, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_int
    lib.ddbst_version.restype = cp
    lib.ddbst_version.argtypes = []
    lib.ddbst_json_open.restype = vp
    lib.ddbst_json_open.argtypes = [cp, sz, vp, ctypes.POINTER(vp)]
    lib.ddbst_json_call.restype = vp
    lib.ddbst_json_call.argtypes = [vp, cp, sz, ctypes.POINTER(sz)]
    lib.ddbst_json_free.restype = None
    lib.ddbst_json_free.argtypes = [vp]
    lib.ddbst_json_close.restype = None
    lib.ddbst_json_close.argtypes = [vp]
    # Prepared operations (_prepared.py): values as NUL-ended segments.
    u32, i64 = ctypes.c_uint32, ctypes.c_int64
    lib.ddbst_prepared_new.restype = vp
    lib.ddbst_prepared_new.argtypes = [vp, i, cp, u32, vp]
    lib.ddbst_prepared_free.restype = None
    lib.ddbst_prepared_free.argtypes = [vp]
    lib.ddbst_prepared_entity.restype = i
    lib.ddbst_prepared_entity.argtypes = [vp]
    lib.ddbst_prepared_version_attribute.restype = i
    lib.ddbst_prepared_version_attribute.argtypes = [vp]
    lib.ddbst_prepared_run.restype = i
    lib.ddbst_prepared_run.argtypes = [vp, cp, sz, u32, cp, sz, i64, vp]
    lib.ddbst_prepared_body.restype = vp
    lib.ddbst_prepared_body.argtypes = [vp, ctypes.POINTER(sz)]
    # The typed API, for the attribute types answers are converted by.
    lib.ddbst_model_load.restype = i
    lib.ddbst_model_load.argtypes = [cp, sz, vp, ctypes.POINTER(vp), vp]
    lib.ddbst_model_load_file.restype = i
    lib.ddbst_model_load_file.argtypes = [cp, vp, ctypes.POINTER(vp), vp]
    lib.ddbst_model_free.restype = None
    lib.ddbst_model_free.argtypes = [vp]
    lib.ddbst_model_entity_count.restype = i
    lib.ddbst_model_entity_count.argtypes = [vp]
    lib.ddbst_model_entity_name.restype = cp
    lib.ddbst_model_entity_name.argtypes = [vp, i]
    lib.ddbst_model_attribute_count.restype = i
    lib.ddbst_model_attribute_count.argtypes = [vp, i]
    lib.ddbst_model_attribute_name.restype = cp
    lib.ddbst_model_attribute_name.argtypes = [vp, i, i]
    lib.ddbst_model_attribute_type.restype = cp
    lib.ddbst_model_attribute_type.argtypes = [vp, i, i]


def load_library(path: str | os.PathLike[str] | None = None) -> ctypes.CDLL:
    """libddbst with the prototypes declared (see library_path); loaded once
    a path."""
    found = library_path(path)
    with _lock:
        lib = _libraries.get(found)
        if lib is None:
            lib = ctypes.CDLL(found)
            _declare(lib)
            _libraries[found] = lib
        return lib


def attribute_types(lib: ctypes.CDLL, model_file: str | None,
                    model_text: bytes | None) -> dict[str, dict[str, str]]:
    """Every entity's attributes and their types as the model spells them
    ("binary", "number", ...), implicit ones (version, timestamps) included,
    read through the typed API from the model the session loaded."""
    model = ctypes.c_void_p()
    # ddbst_error is 568 bytes; room to spare
    err = ctypes.create_string_buffer(1024)
    if model_file is not None:
        rc = lib.ddbst_model_load_file(os.fsencode(model_file), None,
                                       ctypes.byref(model), err)
    else:
        assert model_text is not None
        rc = lib.ddbst_model_load(model_text, len(model_text), None,
                                  ctypes.byref(model), err)
    if rc != 0:  # the session opened it a moment ago: a changed file
        raise OSError(f"the model could not be loaded again (code {rc})")
    try:
        types: dict[str, dict[str, str]] = {}
        for e in range(lib.ddbst_model_entity_count(model)):
            name = lib.ddbst_model_entity_name(model, e).decode()
            types[name] = {
                lib.ddbst_model_attribute_name(model, e, a).decode():
                lib.ddbst_model_attribute_type(model, e, a).decode()
                for a in range(lib.ddbst_model_attribute_count(model, e))}
        return types
    finally:
        lib.ddbst_model_free(model)
