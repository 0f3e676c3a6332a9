"""Python binding of ddbst's JSON entry (ddbst_json_open / ddbst_json_call),
on ctypes alone: dicts in, dicts out, errors raised as DdbstError.

    from ddbst import Ddbst, DdbstError

    with Ddbst(model_file="examples/saas/model.json",
               cursor_keys=os.urandom(32).hex()) as db:
        db.keys("User", {"orgId": "acme", "userId": "u1",
                         "email": "ann@acme.example"})["keys"]
        # {'PK': 'ORG#acme', 'SK': 'USER#u1', 'GSI1PK': 'EMAIL#ann@...', ...}
        req = db.query("listUsers", {"orgId": "acme"}, limit=2)
        # req["target"] is the X-Amz-Target header, req["body"] the body

ddbst does no network I/O: send req["body"] with your HTTP client, then
read the answer back with db.page(answer_text, ...).

Threads: a Ddbst is read-only once open, and ddbst_json_call is
thread-safe on a shared session, so any number of threads may call one
Ddbst at once (ctypes releases the GIL during the call, so they do run in
parallel). close() waits for the calls in flight and refuses new ones.

The library: the `library` argument, else $DDBST_LIBRARY, else
ctypes.util.find_library("ddbst"). docs/ffi.md (in ddbst's tree) lists every
request and answer; the methods here map onto them one to one.
"""

import ctypes
import ctypes.util
import json
import os
import threading

__all__ = ["Ddbst", "DdbstError", "DynamoDBError", "build_request",
           "load_library"]


class DdbstError(Exception):
    """An error answer: {"error": {"code", "name", "path", "message"}}.

    code is the C API's negative DDBST_E* code, name its name ("EVALUE",
    "ECURSOR", ...), path what was wrong ("facet orgId", "cursor",
    "values.orgId", "items[2].entity"; may be empty), message ddbst's words.
    `errors` lists every problem when a model fails to load (else just this
    one); `answer` is the whole answer dict; offset, line and column say
    where a JSON input was wrong (else None). str(e) is "path: message"
    (just the message when the path is empty).
    """

    def __init__(self, code, name, path, message, answer=None, errors=None,
                 offset=None, line=None, column=None):
        super().__init__(code, name, path, message)
        self.code = code
        self.name = name
        self.path = path
        self.message = message
        self.answer = answer
        self.errors = errors if errors is not None else [self]
        # where in a JSON input (a model, a response) it went wrong, if so
        self.offset = offset
        self.line = line
        self.column = column

    @staticmethod
    def _fields(e):
        return (e.get("code", 0), e.get("name", ""), e.get("path", ""),
                e.get("message", ""))

    @staticmethod
    def _where(e):
        return {k: e.get(k) for k in ("offset", "line", "column")}

    @classmethod
    def from_answer(cls, answer):
        e = answer["error"]
        errors = None
        if "errors" in answer:
            errors = [DdbstError(*cls._fields(x), answer, **cls._where(x))
                      for x in answer["errors"]]
        if "dynamodb" in answer:
            return DynamoDBError(*cls._fields(e), answer, errors,
                                 answer["dynamodb"], **cls._where(e))
        return cls(*cls._fields(e), answer, errors, **cls._where(e))

    def __str__(self):
        return f"{self.path}: {self.message}" if self.path else self.message

    def __repr__(self):
        return (f"{type(self).__name__}(code={self.code!r}, "
                f"name={self.name!r}, path={self.path!r}, "
                f"message={self.message!r})")


class DynamoDBError(DdbstError):
    """An answer that is DynamoDB's error (page of a non-200 answer): the
    "dynamodb" member as attributes: type ("ConditionalCheckFailedException"),
    kind ("ConditionalCheckFailed", "TransactionCanceled", "Throttled", ...),
    message, retryable, and reasons (a transaction's cancellation reasons:
    dicts of code, kind, message)."""

    def __init__(self, code, name, path, message, answer, errors, dynamodb,
                 **where):
        super().__init__(code, name, path, message, answer, errors, **where)
        self.dynamodb = dynamodb
        self.type = dynamodb.get("type")
        self.kind = dynamodb.get("kind")
        self.dynamodb_message = dynamodb.get("message")
        self.retryable = bool(dynamodb.get("retryable"))
        self.reasons = dynamodb.get("reasons", [])


_libraries = {}
_libraries_lock = threading.Lock()


def load_library(path=None):
    """The ddbst shared library with the JSON entry's prototypes declared:
    `path`, else $DDBST_LIBRARY, else find_library("ddbst"). Loaded once a
    path."""
    path = path or os.environ.get("DDBST_LIBRARY") or \
        ctypes.util.find_library("ddbst")
    if not path:
        raise OSError("libddbst not found: pass library=, set DDBST_LIBRARY "
                      "or install ddbst where the dynamic linker finds it")
    with _libraries_lock:
        lib = _libraries.get(path)
        if lib is None:
            lib = ctypes.CDLL(path)
            # answers are c_void_p, not c_char_p: ctypes would copy a
            # c_char_p into bytes and lose the pointer ddbst_json_free needs
            lib.ddbst_json_open.restype = ctypes.c_void_p
            lib.ddbst_json_open.argtypes = [
                ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                ctypes.POINTER(ctypes.c_void_p)]
            lib.ddbst_json_call.restype = ctypes.c_void_p
            lib.ddbst_json_call.argtypes = [
                ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                ctypes.POINTER(ctypes.c_size_t)]
            lib.ddbst_json_free.restype = None
            lib.ddbst_json_free.argtypes = [ctypes.c_void_p]
            lib.ddbst_json_close.restype = None
            lib.ddbst_json_close.argtypes = [ctypes.c_void_p]
            _libraries[path] = lib
        return lib


def _encode(obj):
    return json.dumps(obj, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode("utf-8")


def _text(value):
    """A response or event given as text, bytes or an already parsed dict."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def _cursor_keys(keys):
    """"hex64,hex64" from a string, 32 raw bytes, or a list of either
    (newest first)."""
    if keys is None or isinstance(keys, str):
        return keys
    if isinstance(keys, (bytes, bytearray)):
        return bytes(keys).hex()
    return ",".join(_cursor_keys(k) for k in keys)


_CAMEL = {
    "expect_version": "expectVersion", "if_exists": "ifExists",
    "stream_filters": "streamFilters",
}


def build_request(op, **fields):
    """The request dict of `op`, its fields given in Python style
    (expect_version → expectVersion); None fields and False flags are left
    out. What every method below sends; build one yourself to keep it for
    explain():

        req = build_request("create", entity="User", values={...})
        db.call(req)  ...  db.explain(req, answer_text)
    """
    req = {"op": op}
    for name, value in fields.items():
        if value is None or value is False:
            continue
        req[_CAMEL.get(name, name)] = value
    return req


class Ddbst:
    """A ddbst session: a loaded model and the cursor keys.

    model_file: a path; or model: the model as a dict or its JSON text.
    table: overrides the model's table name. cursor_keys: the sealing keys
    of pagination cursors, "hex64,hex64" newest first (or 32 raw bytes, or a
    list). cursor_max_age: seconds a cursor stays valid (needs cursor_keys).
    library: the path of libddbst (see load_library).

    A model that fails to load raises DdbstError with every problem in
    .errors. Thread-safe: see the module's docstring.
    """

    def __init__(self, model_file=None, model=None, table=None,
                 cursor_keys=None, cursor_max_age=None, library=None):
        if (model_file is None) == (model is None):
            raise ValueError("give model_file= or model=, one of the two")
        self._lib = load_library(library)
        self._handle = None
        self._closed = False
        self._in_flight = 0
        self._state = threading.Condition()
        config = {}
        if model_file is not None:
            config["modelFile"] = os.fspath(model_file)
        else:
            config["model"] = model if isinstance(model, str) else \
                json.dumps(model)
        if table is not None:
            config["table"] = table
        if cursor_keys is not None:
            config["cursorKeys"] = _cursor_keys(cursor_keys)
        if cursor_max_age is not None:
            config["cursorMaxAge"] = int(cursor_max_age)
        text = _encode(config)
        error = ctypes.c_void_p()
        handle = self._lib.ddbst_json_open(text, len(text), None,
                                           ctypes.byref(error))
        if not handle:
            answer = self._take(error.value, None)
            raise DdbstError.from_answer(answer)
        self._handle = handle

    # ---- the session ----

    def _take(self, pointer, length):
        """The answer at `pointer` as a dict, freed whatever happens."""
        try:
            if length is None:
                raw = ctypes.string_at(pointer)
            else:
                raw = ctypes.string_at(pointer, length)
            return json.loads(raw.decode("utf-8"))
        finally:
            self._lib.ddbst_json_free(pointer)

    def call(self, request):
        """Runs one request dict ({"op": "query", ...}) and returns its
        answer dict; an error answer raises DdbstError (DynamoDBError when
        the answer carries DynamoDB's error)."""
        text = _encode(request)
        with self._state:
            if self._closed:
                raise ValueError("this Ddbst session is closed")
            self._in_flight += 1
        try:
            length = ctypes.c_size_t()
            pointer = self._lib.ddbst_json_call(self._handle, text, len(text),
                                                ctypes.byref(length))
            answer = self._take(pointer, length.value)
        finally:
            with self._state:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._state.notify_all()
        if "error" in answer:
            raise DdbstError.from_answer(answer)
        return answer

    def close(self):
        """Closes the session once the calls in flight have returned. Calls
        after it raise ValueError; closing twice is harmless."""
        with self._state:
            self._closed = True
            while self._in_flight:
                self._state.wait()
            handle, self._handle = self._handle, None
        if handle:
            self._lib.ddbst_json_close(handle)

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_handle", None):
                self.close()
        except Exception:
            pass

    # ---- the model ----

    def check(self):
        """{"ok": True, "table": ..., "entities": n, "patterns": n}"""
        return self.call(build_request("check"))

    def version(self):
        """The library's version string, e.g. "0.1.0"."""
        return self.call(build_request("version"))["version"]

    def patterns(self):
        """The access patterns by name: op, entities, index, pk, sk, ..."""
        return self.call(build_request("patterns"))["patterns"]

    def create_table(self):
        """The CreateTable request: {"operation", "target", "body"}."""
        return self.call(build_request("createTable"))

    def cloudformation(self, stream_filters=None):
        """The CloudFormation template (a dict); stream_filters like
        ["Event:INSERT"]."""
        return self.call(build_request("cloudformation",
                                 stream_filters=stream_filters))["template"]

    def lint(self):
        """{"findings": [{"severity", "rule", "path", "message"}],
        "errors": n}"""
        return self.call(build_request("lint"))

    def doc(self):
        """The model as Markdown."""
        return self.call(build_request("doc"))["markdown"]

    # ---- keys and items ----

    def keys(self, entity, values, now=None):
        """{"keys": {"PK": ..., ...}, "item": {values, defaults filled}}"""
        return self.call(build_request("keys", entity=entity, values=values,
                                       now=now))

    def item_size(self, entity, values, now=None):
        """{"bytes": n, "limit": 409600}"""
        return self.call(build_request("itemSize", entity=entity,
                                       values=values, now=now))

    def parse(self, pk, sk=None, index=None):
        """A key read back: {"entity": ..., "values": {...}}."""
        return self.call(build_request("parse", pk=pk, sk=sk, index=index))

    # ---- requests: each answer is {"operation", "target", "body"} ----

    def get(self, entity, values, consistent=False, project=None):
        return self.call(build_request("get", entity=entity, values=values,
                                 consistent=consistent, project=project))

    def put(self, entity, values, now=None, expect_version=None):
        """Also "item": what the write stores (generated ids included)."""
        return self.call(build_request("put", entity=entity, values=values,
                                       now=now, expect_version=expect_version))

    def create(self, entity, values, now=None, expect_version=None):
        """A put that fails if the item exists; a TransactWriteItems when the
        entity has unique attributes. Also "item", as put()."""
        return self.call(build_request("create", entity=entity, values=values,
                                 now=now, expect_version=expect_version))

    def update(self, entity, values, set=None, remove=None, add=None,
               append=None, previous=None, expect_version=None, upsert=False,
               now=None):
        return self.call(build_request(
            "update", entity=entity, values=values, set=set, remove=remove,
            add=add, append=append, previous=previous,
            expect_version=expect_version, upsert=upsert, now=now))

    def delete(self, entity, values, expect_version=None, if_exists=False):
        return self.call(build_request("delete", entity=entity, values=values,
                                 expect_version=expect_version,
                                 if_exists=if_exists))

    def query(self, pattern, values, condition=None, limit=None, cursor=None,
              consistent=False, project=None, now=None):
        """condition: {"ts": {"between": ["2026-01-01", "2026-02-01"]}}, or
        begins, gt, gte, lt, lte; cursor: a page()'s "cursor"."""
        return self.call(build_request(
            "query", pattern=pattern, values=values, condition=condition,
            limit=limit, cursor=cursor, consistent=consistent,
            project=project, now=now))

    def batch_get(self, items, consistent=False):
        """items: [{"op": "get", "entity": ..., "values": {...}}];
        {"requests": [...]}, as many BatchGetItem as the items need."""
        return self.call(build_request("batchGet", items=items,
                                 consistent=consistent))

    def batch_write(self, items, now=None):
        """items: put and delete operations; {"requests": [...]}."""
        return self.call(build_request("batchWrite", items=items, now=now))

    def transact(self, items, token=None, now=None):
        """items: get, put, create, update, delete or check operations (all
        gets make a TransactGetItems); token: ClientRequestToken."""
        return self.call(build_request("transact", items=items, token=token,
                                 now=now))

    # ---- answers ----

    def page(self, response_text, operation="Query", pattern=None,
             values=None, now=None):
        """DynamoDB's answer (text, bytes or dict) read back:
        {"items": [{"entity", "item"}], "count", "hasMore", "cursor"?,
        "followup"?}. Give the query's pattern and values for a sealed
        "cursor" of the next page. DynamoDB's error raises DynamoDBError."""
        return self.call(build_request("page", operation=operation,
                                 response=_text(response_text),
                                 pattern=pattern, values=values, now=now))

    def explain(self, request, response_text):
        """DynamoDB's error answer to the write `request` (the request dict
        sent through call(), see build_request()) in the model's words:
        {"dynamodb": {...}, "kind": "unique", "explanation": ...,
        "failures"?: [...]}."""
        return self.call(build_request("explain", request=request,
                                 response=_text(response_text)))

    def stream(self, event, failed=None):
        """A DynamoDB Streams Lambda event (text, bytes or dict):
        {"records": [...]}; with failed (record indices), also "failures",
        the ReportBatchItemFailures answer."""
        return self.call(build_request("stream", event=_text(event),
                                       failed=failed))
