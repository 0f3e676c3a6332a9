"""Prepared operations: one operation of a session (a put of Project, an
update of Product, a query of listProjects) resolved once, its values
passed to C as NUL-ended segments by attribute index and its body handed
back as bytes, with no JSON written or parsed on the way
(ddbst_prepared_* in include/ddbst.h; docs/ffi.md, "Prepared operations").

Values the segments do not carry as they are (a type the attribute does
not read from text, an attribute the entity lacks, text with NUL), and
every failure, go through the JSON entry, so that the body is the same and
the errors are the ones Ddbst.put, .update and .query raise.
"""

from __future__ import annotations

import base64
import ctypes
import datetime
import threading
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from . import _values
from ._errors import DdbstError

if TYPE_CHECKING:
    from ._session import Ddbst

# op -> (DDBST_OP_*, the flags the op itself implies)
_OPS = {"get": (1, 0), "put": (2, 0), "create": (2, 0x2), "update": (3, 0),
        "delete": (4, 0), "query": (5, 0)}
_NAMES = {1: "GetItem", 2: "PutItem", 3: "UpdateItem", 4: "DeleteItem",
          5: "Query", 8: "TransactWriteItems"}
# the options each op takes when prepared
_FIXED: dict[str, set[str]] = {"get": {"consistent"}, "query": {"consistent", "select"},
          "put": {"return_values", "return_on_failure"},
          "create": {"return_values", "return_on_failure"},
          "update": {"upsert", "return_values", "return_on_failure"},
          "delete": {"if_exists", "return_values", "return_on_failure"}}
# and per call
_PER_CALL: dict[str, set[str]] = {"get": set(), "delete": set(), "put": {"now"}, "create": {"now"},
             "query": {"limit", "cursor", "now"},
             "update": {"now", "remove", "add", "append", "expect_version"}}
_RETURNS = {"NONE": 0, "ALL_OLD": 0x100, "UPDATED_OLD": 0x200,
            "ALL_NEW": 0x300, "UPDATED_NEW": 0x400}
_CODE_NAMES = {-1: "EINVAL", -2: "ENOMEM", -3: "ESYNTAX", -4: "EMODEL",
               -5: "EVALUE", -6: "EMISSING", -7: "ENOTFOUND", -8: "ERANGE",
               -9: "EIO", -10: "ENOSPC", -11: "ECURSOR", -12: "EDYNAMODB"}
_NUMERIC = {"integer", "number", "ttl"}
_JSON_TYPES = {"list", "map", "string_set", "number_set"}
_ERROR_SIZE = 568  # a ddbst_error: code at 0, path at 56, message at 312


class TextRequest(NamedTuple):
    """A prepared operation's request: the body's bytes as ddbst wrote
    them, to send as they are (ddbst.boto3.send_body)."""
    operation: str
    target: str
    body: bytes


def _error(code: int, path: bytes, message: bytes) -> DdbstError:
    return DdbstError(code, _CODE_NAMES.get(code, "EUNKNOWN"),
                      path.decode("utf-8", "replace"),
                      message.decode("utf-8", "replace"))


def _flags(op: str, fixed: Mapping[str, Any]) -> int:
    f = _OPS[op][1]
    if fixed.get("consistent"):
        f |= 0x1
    if fixed.get("upsert"):
        f |= 0x4
    if fixed.get("if_exists"):
        f |= 0x8
    if fixed.get("return_on_failure"):
        f |= 0x800
    ret = fixed.get("return_values")
    if ret is not None:
        r = _RETURNS.get(ret, -1) if isinstance(ret, str) else -1
        if r < 0 or (op != "update" and r not in (0, 0x100)):
            takes = ", ".join(_RETURNS) if op == "update" else "NONE or ALL_OLD"
            raise ValueError(f"return_values: a prepared {op} takes {takes}, "
                             f"not {ret!r}")
        f |= r
    select = fixed.get("select")
    if select == "COUNT":
        f |= 0x1000
    elif select not in (None, "ALL"):
        raise ValueError(f"select: expected 'COUNT' or 'ALL', not {select!r}")
    return f


class Prepared:
    """One operation prepared once (Ddbst.prepare), called without JSON.

    body(values, ...) is the request body's bytes; request(values, ...)
    also names the operation (a put of an entity with unique attributes is
    a TransactWriteItems). Per call: a query's limit, cursor and now; a
    put's or create's now; an update's now, remove, add, append and
    expect_version (the values are SET). One caller at a time: each thread
    prepares its own. close() frees it (the session's close does too).
    """

    def __init__(self, db: Ddbst, op: str, name: str,
                 options: Mapping[str, Any]) -> None:
        if op not in _OPS:
            raise ValueError(f"a prepared operation is {', '.join(_OPS)}, "
                             f"not {op!r}")
        for k in options:
            if k not in _FIXED[op]:
                raise ValueError(
                    f"a prepared {op} takes {', '.join(sorted(_FIXED[op])) or 'nothing'} "
                    f"when prepared (and {', '.join(sorted(_PER_CALL[op])) or 'nothing'} "
                    f"per call), not {k}")
        self.db = db
        self.op = op
        self.name = name
        self._fixed = {k: v for k, v in options.items()
                       if v is not None and v is not False}
        self._per_call = _PER_CALL[op]
        lib = db._lib
        err = ctypes.create_string_buffer(_ERROR_SIZE)
        db._enter()
        try:
            handle = lib.ddbst_prepared_new(db._handle, _OPS[op][0],
                                            name.encode("utf-8"),
                                            _flags(op, options), err)
            if not handle:
                raise _error(int.from_bytes(err.raw[:4], "little", signed=True),
                             err.raw[56:312].split(b"\0", 1)[0],
                             err.raw[312:568].split(b"\0", 1)[0])
            # the handle, which the session's close may free first: both
            # go through the cell, under the lock
            self._lock = threading.Lock()
            self._cell: list[int | None] = [handle]
            db._live[handle] = (self._lock, self._cell)
            entity = list(db.types)[lib.ddbst_prepared_entity(handle)]
            self._version: int = lib.ddbst_prepared_version_attribute(handle)
        finally:
            db._leave()
        self.entity: str = entity
        """the entity whose attributes the values are"""
        self.operation: str = _NAMES[_OPS[op][0]]
        """the operation of the last body"""
        types = db.types[entity]
        self._index = {a: i for i, a in enumerate(types)}
        self._types = list(types.values())

    def close(self) -> None:
        """Frees it; calls after it raise ValueError."""
        h = self._cell[0]
        if h:
            self.db._release(h)

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_cell", None):
                self.close()
        except Exception:
            pass

    # ---- packing ----

    def _text(self, v: Any, i: int) -> str | None:
        """A value as the text ddbst_item_set reads for attribute i, or None
        when the JSON entry must take it (and answer for it)."""
        t = self._types[i]
        if isinstance(v, str):
            return v
        if isinstance(v, bool):
            return ("true" if v else "false") if t == "boolean" else None
        if isinstance(v, int):
            return str(v) if t in _NUMERIC else None
        if isinstance(v, float):
            return repr(v) if t in _NUMERIC and v == v and \
                v not in (float("inf"), float("-inf")) else None
        if isinstance(v, Decimal):
            return _values.native_default(v)[1] if t in _NUMERIC and \
                v.is_finite() else None
        if isinstance(v, (bytes, bytearray, memoryview)):
            return base64.b64encode(v).decode("ascii") if t == "binary" \
                else None
        if isinstance(v, datetime.datetime):
            return v.isoformat() if v.utcoffset() is not None else None
        if t in _JSON_TYPES and isinstance(
                v, (list, tuple, dict, set, frozenset)):
            try:
                return _values.encode(v).decode("utf-8")
            except (TypeError, ValueError):
                return None
        return None

    def _pack(self, values: Mapping[str, Any] | None,
              o: Mapping[str, Any]) -> bytes | None:
        segs = [""] * len(self._types)  # "": unset; else a mark and text
        index = self._index
        if values:
            for name, v in values.items():
                if v is None:
                    continue
                i = index.get(name)
                if i is None:
                    return None
                if type(v) is not str:
                    v = self._text(v, i)
                    if v is None:
                        return None
                segs[i] = "=" + v
        if self.op == "update" and not self._marks(segs, o):
            return None
        try:
            # a lone surrogate is no UTF-8: the entry's to refuse
            return ("\0".join(segs) + "\0").encode("utf-8")
        except UnicodeEncodeError:
            return None

    def _marks(self, segs: list[str], o: Mapping[str, Any]) -> bool:
        """An update's remove, add, append and expect_version as marks;
        False when the JSON entry must take them (an attribute given twice,
        what the attribute does not take)."""
        if o.get("remove") is None and o.get("add") is None and \
                o.get("append") is None and o.get("expect_version") is None:
            return True  # the values alone: every segment a SET
        index = self._index

        def mark(name: Any, text: str | None) -> bool:
            i = index.get(name) if isinstance(name, str) else None
            if i is None or text is None or segs[i]:
                return False
            segs[i] = text
            return True

        remove = o.get("remove")
        if remove is not None:
            if isinstance(remove, str) or not isinstance(remove, Sequence):
                return False
            for name in remove:
                if not mark(name, "-"):
                    return False
        for field, sign, kinds in (("add", "+", _NUMERIC | {"string_set", "number_set"}),
                                   ("append", ">", {"list"})):
            given = o.get(field)
            if given is None:
                continue
            if not isinstance(given, Mapping):
                return False
            for name, v in given.items():
                i = index.get(name)
                if i is None or self._types[i] not in kinds or \
                        isinstance(v, (str, bool)):
                    return False
                s = self._text(v, i) if self._types[i] in _NUMERIC else \
                    self._json(v)
                if not mark(name, None if s is None else sign + s):
                    return False
        version = o.get("expect_version")
        if version is not None:
            if self._version < 0 or isinstance(version, bool) or \
                    not isinstance(version, int) or version < 1 or \
                    segs[self._version]:
                return False
            segs[self._version] = f"?{version}"
        return True

    @staticmethod
    def _json(v: Any) -> str | None:
        if not isinstance(v, (list, tuple, set, frozenset)):
            return None
        try:
            return _values.encode(v).decode("utf-8")
        except (TypeError, ValueError):
            return None

    def _plain(self, o: Mapping[str, Any]) -> bool:
        for k in o:
            if k not in self._per_call:
                return False
        limit, cursor, now = o.get("limit"), o.get("cursor"), o.get("now")
        return (limit is None or (type(limit) is int and 1 <= limit <= 0xffffffff)) and \
            (cursor is None or (isinstance(cursor, str) and "\0" not in cursor)) and \
            (now is None or (type(now) is int and 0 <= now < 1 << 63))

    # ---- running ----

    def _run(self, packed: bytes, o: Mapping[str, Any]
             ) -> tuple[int, bytes] | DdbstError:
        """(operation code, body) or the prepared run's error."""
        cursor = o.get("cursor")
        c = None if cursor is None else cursor.encode("utf-8")
        limit, now = o.get("limit") or 0, o.get("now") or 0
        db = self.db
        # the lock, not the session's count of calls in flight: the
        # session's close frees this handle under it, before closing
        with self._lock:
            h = self._cell[0]
            if not h:
                raise ValueError("this prepared operation (or its session) "
                                 "is closed")
            native = db._native
            if native is not None:
                out = native.prepared_run(h, packed, limit, c, now)
                if out[0] < 0:
                    return _error(out[0], out[1], out[2])
                return cast(tuple[int, bytes], out)
            lib = db._lib
            err = ctypes.create_string_buffer(_ERROR_SIZE)
            rc = lib.ddbst_prepared_run(h, packed, len(packed), limit, c,
                                        0 if c is None else len(c), now, err)
            if rc < 0:
                raw = err.raw
                return _error(rc, raw[56:312].split(b"\0", 1)[0],
                              raw[312:568].split(b"\0", 1)[0])
            n = ctypes.c_size_t()
            p = lib.ddbst_prepared_body(h, ctypes.byref(n))
            return rc, ctypes.string_at(p, n.value)

    def request(self, values: Mapping[str, Any] | None = None,
                **options: Any) -> TextRequest:
        """{operation, target, body}: the body's bytes, and where they go."""
        body = self.body(values, **options)
        return TextRequest(self.operation,
                           "DynamoDB_20120810." + self.operation, body)

    def body(self, values: Mapping[str, Any] | None = None,
             **options: Any) -> bytes:
        """The request body's bytes for `values`, as the JSON entry writes
        them for the same request. Raises what Ddbst.put (.update, ...)
        raises."""
        if not self._cell[0]:
            raise ValueError("this prepared operation (or its session) is "
                             "closed")
        packed = self._pack(values, options) if self._plain(options) else None
        refused = None
        if packed is not None:
            out = self._run(packed, options)
            if not isinstance(out, DdbstError):
                self.operation = _NAMES[out[0]]
                return out[1]
            refused = out
        return self._slow(values, options, refused)

    def _slow(self, values: Mapping[str, Any] | None,
              o: Mapping[str, Any], refused: DdbstError | None) -> bytes:
        """The same request through the JSON entry: its error, or its
        body."""
        from ._session import build_request
        fields = dict(self._fixed)
        fields.update(o)
        fields["pattern" if self.op == "query" else "entity"] = self.name
        request = build_request(self.op, values=values, **fields)
        built, body = self.db.build(request)  # raises what Ddbst.put raises
        if refused is not None:
            # the JSON entry built what the prepared run refused: say so
            # rather than send it
            raise refused
        self.operation = built["operation"]
        return body
