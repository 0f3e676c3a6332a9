"""A ddbst session: the JSON entry of libddbst through ctypes."""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, cast

from . import _values
from ._errors import DdbstError
from ._library import BUNDLED, attribute_types, load_library
from ._prepared import Prepared

# The per-call path in C (ddbst/_native, built with the wheel when a C
# compiler and Python's headers are there); ctypes and json otherwise, or
# with DDBST_NATIVE=0. It is linked to the library the wheel carries, so it
# serves sessions on that library only.
_native: Any
try:
    from . import _native  # type: ignore[attr-defined,no-redef]
    _native.set_default(_values.native_default)
except ImportError:
    _native = None
if os.environ.get("DDBST_NATIVE") == "0":
    _native = None
from ._types import (Check, Explanation, Hydration, ItemSize, Keys, Lint,
                     Page, Parsed, Request, Requests, StreamAnswer, Values)

_DECODER = json.JSONDecoder(parse_float=Decimal)

_CAMEL = {
    "expect_version": "expectVersion", "if_exists": "ifExists",
    "stream_filters": "streamFilters",
    "return_values": "return", "return_on_failure": "returnOnFailure",
    "total_segments": "totalSegments",
}


def build_request(op: str, **fields: Any) -> dict[str, Any]:
    """The request dict of `op`, its fields given in Python style
    (expect_version → expectVersion); None fields and False flags are left
    out. What every method of Ddbst sends; build one yourself to keep it
    for explain():

        req = build_request("create", entity="User", values={...})
        db.call(req)  ...  db.explain(req, error)
    """
    req: dict[str, Any] = {"op": op}
    for name, value in fields.items():
        if value is None or value is False:
            continue
        req[_CAMEL.get(name, name)] = value
    return req


def _cursor_keys(keys: str | bytes | Sequence[str | bytes] | None
                 ) -> str | None:
    """"hex64,hex64" from a string, 32 raw bytes, or a list of either
    (newest first)."""
    if keys is None or isinstance(keys, str):
        return keys
    if isinstance(keys, (bytes, bytearray)):
        return bytes(keys).hex()
    return ",".join(cast(str, _cursor_keys(k)) for k in keys)


class Ddbst:
    """A ddbst session: a loaded model and the cursor keys.

    model_file: a path; or model: the model as a dict or its JSON text.
    table: overrides the model's table name. cursor_keys: the sealing keys
    of pagination cursors, "hex64,hex64" newest first (or 32 raw bytes, or a
    list). cursor_max_age: seconds a cursor stays valid (needs cursor_keys).
    library: the path of libddbst (by default the one the package carries).

    A model that fails to load raises DdbstError with every problem in
    .errors. Read-only once open: any number of threads may call one Ddbst
    at once (ctypes releases the GIL during the call). close() waits for
    calls in flight and refuses new ones.
    """

    def __init__(self, model_file: str | os.PathLike[str] | None = None,
                 model: str | Mapping[str, Any] | None = None,
                 table: str | None = None,
                 cursor_keys: str | bytes | Sequence[str | bytes] | None = None,
                 cursor_max_age: int | None = None,
                 library: str | os.PathLike[str] | None = None) -> None:
        if (model_file is None) == (model is None):
            raise ValueError("give model_file= or model=, one of the two")
        self._lib = load_library(library)
        self._native = _native if _native is not None and \
            os.path.realpath(self._lib._name) == os.path.realpath(BUNDLED) \
            else None
        self._handle: int | None = None
        self._closed = False
        # prepared handles not yet freed (_prepared.py), each with its
        # lock and cell: freed before the session
        self._live: dict[int, tuple[threading.Lock, list[int | None]]] = {}
        self._live_lock = threading.Lock()
        self._in_flight = 0
        # a plain Lock under the Condition: cheaper than the default RLock,
        # and nothing here takes it twice
        self._state = threading.Condition(threading.Lock())
        config: dict[str, Any] = {}
        model_text: bytes | None = None
        if model_file is not None:
            config["modelFile"] = os.fspath(model_file)
        else:
            text = model if isinstance(model, str) else \
                _values.encode(model).decode("utf-8")
            config["model"] = text
            model_text = text.encode("utf-8")
        if table is not None:
            config["table"] = table
        if cursor_keys is not None:
            config["cursorKeys"] = _cursor_keys(cursor_keys)
        if cursor_max_age is not None:
            config["cursorMaxAge"] = int(cursor_max_age)
        raw = _values.encode(config)
        error = ctypes.c_void_p()
        handle = self._lib.ddbst_json_open(raw, len(raw), None,
                                           ctypes.byref(error))
        if not handle:
            raise DdbstError.from_answer(
                _values.decode(self._take(error.value, None)))
        self._handle = handle
        self.types: dict[str, dict[str, str]] = attribute_types(
            self._lib, config.get("modelFile"), model_text)
        """Each entity's attributes and their types ("binary", ...)."""
        self._convert = _values.converters(self.types)

    # ---- the session ----

    def _take(self, pointer: int | None, length: int | None) -> bytes:
        """The answer's bytes, freed whatever happens."""
        assert pointer is not None  # ddbst_json_call never returns NULL
        try:
            if length is None:
                return ctypes.string_at(pointer)
            return ctypes.string_at(pointer, length)
        finally:
            self._lib.ddbst_json_free(pointer)

    def _enter(self) -> None:
        with self._state:
            if self._closed:
                raise ValueError("this Ddbst session is closed")
            self._in_flight += 1

    def _leave(self) -> None:
        with self._state:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._state.notify_all()

    def call_raw(self, request: Mapping[str, Any]) -> bytes:
        """The answer's JSON text to one request dict, error answers
        included (not raised)."""
        if self._native is not None:
            self._enter()
            try:
                return cast(bytes, self._native.call(self._handle, request))
            finally:
                self._leave()
        text = _values.encode(request)
        self._enter()
        try:
            length = ctypes.c_size_t()
            pointer = self._lib.ddbst_json_call(self._handle, text, len(text),
                                                ctypes.byref(length))
            return self._take(pointer, length.value)
        finally:
            self._leave()

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Runs one request dict ({"op": "query", ...}) and returns its
        answer dict (numbers as int or Decimal; items are not typed by the
        model: the methods below do that). An error answer raises
        DdbstError (DynamoDBError when it carries DynamoDB's error)."""
        answer = _values.decode(self.call_raw(request))
        if "error" in answer:
            raise DdbstError.from_answer(answer)
        return cast(dict[str, Any], answer)

    def build(self, request: Mapping[str, Any]) -> tuple[Request, bytes]:
        """A request that builds one body, and that body's bytes exactly as
        ddbst wrote them (to send as they are). The answer's own "body" is
        left out; "item" is there, typed, for put and create."""
        if self._native is not None:
            self._enter()
            try:
                op, body, rest = self._native.build(self._handle, request)
            finally:
                self._leave()
            if op is None:  # an error answer
                answer = _values.decode(body)
                if "error" in answer:
                    raise DdbstError.from_answer(answer)
                raise ValueError(f"{request.get('op')} builds no single body")
            head: dict[str, Any] = {"operation": op,
                                    "target": "DynamoDB_20120810." + op}
            if rest is not None:
                head.update(_values.decode(rest))
                if "item" in head:
                    self.typed(request.get("entity"), head["item"])
            return cast(Request, head), cast(bytes, body)
        raw = self.call_raw(request)
        text = raw.decode("utf-8")
        # {"operation":"PutItem","target":"DynamoDB_20120810.PutItem",
        #  "body":{...},"item":{...}}: ddbst's own layout
        start = text.find(',"body":') + 8
        if not text.startswith('{"operation":"') or start < 8:
            answer = _values.decode(raw)
            if "error" in answer:
                raise DdbstError.from_answer(answer)
            raise ValueError(f"{request.get('op')} builds no single body")
        operation = text[14:text.index('"', 14)]
        # the body's end, found by reading it (a string may hold anything)
        _, end = _DECODER.raw_decode(text, start)
        head = {"operation": operation,
                "target": "DynamoDB_20120810." + operation}
        if text[end] == ",":
            head.update(_values.decode("{" + text[end + 1:]))
        if "item" in head:
            self.typed(request.get("entity"), head["item"])
        return cast(Request, head), text[start:end].encode("utf-8")

    def close(self) -> None:
        """Closes the session once the calls in flight have returned. Calls
        after it raise ValueError; closing twice is harmless."""
        with self._state:
            self._closed = True
            while self._in_flight:
                self._state.wait()
            handle, self._handle = self._handle, None
        for h in list(self._live):
            self._release(h)
        if handle:
            self._lib.ddbst_json_close(handle)

    def _release(self, prepared: int) -> None:
        """Frees a prepared handle once: by its close(), its finalizer or
        the session's close, whichever comes first."""
        with self._live_lock:
            entry = self._live.pop(prepared, None)
        if entry is None:
            return
        lock, cell = entry
        with lock:  # after a run in flight on it
            cell[0] = None
            self._lib.ddbst_prepared_free(prepared)

    def prepare(self, op: str, name: str, **options: Any) -> Prepared:
        """One operation prepared for calls without JSON: "get", "put",
        "create", "update", "delete" of entity `name`, or "query" of
        pattern `name`. Options fixed for every call: consistent (get,
        query), select (query), if_exists (delete), upsert (update),
        return_values and return_on_failure (put, create, update, delete).
        Its body(values, ...) is the request body's bytes, as build() gives
        them for the same request (see ddbst._prepared.Prepared)."""
        return Prepared(self, op, name, options)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Ddbst:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_handle", None):
                self.close()
        except Exception:
            pass

    def typed(self, entity: str | None, item: Any) -> Any:
        """An item of `entity` (plain values, as answers hold them) with
        binary as bytes, numbers as Decimal and sets as set, in place."""
        if entity is None:
            return item
        return _values.type_item(self._convert.get(entity), item)

    # ---- the model ----

    def check(self) -> Check:
        """{"ok": True, "table": ..., "entities": n, "patterns": n}"""
        return cast(Check, self.call(build_request("check")))

    def version(self) -> str:
        """The library's version string, e.g. "0.2.0"."""
        return cast(str, self.call(build_request("version"))["version"])

    def patterns(self) -> dict[str, dict[str, Any]]:
        """The access patterns by name: op, entities, index, pk, sk, ..."""
        return cast(dict[str, dict[str, Any]],
                    self.call(build_request("patterns"))["patterns"])

    def create_table(self) -> Request:
        """The CreateTable request: keys, indexes, stream and the table
        settings the model declares."""
        return cast(Request, self.call(build_request("createTable")))

    def describe_table(self) -> Request:
        """The DescribeTable request of the model's table."""
        return cast(Request, self.call(build_request("describeTable")))

    def delete_table(self) -> Request:
        """The DeleteTable request of the model's table."""
        return cast(Request, self.call(build_request("deleteTable")))

    def update_table(self, add_index: str | None = None,
                     remove_index: str | None = None) -> Request:
        """The UpdateTable request creating the model's global index
        add_index on the live table, or deleting remove_index, which the
        model no longer declares (give one of the two)."""
        return cast(Request, self.call(build_request(
            "updateTable", addIndex=add_index, removeIndex=remove_index)))

    def update_continuous_backups(self) -> Request:
        """The UpdateContinuousBackups request: point-in-time recovery as
        the model's pointInTimeRecovery says (on unless false)."""
        return cast(Request, self.call(build_request(
            "updateContinuousBackups")))

    def update_contributor_insights(self, index: str | None = None
                                    ) -> Request:
        """The UpdateContributorInsights request of the table (or its
        global index `index`), as the model's contributorInsights says."""
        return cast(Request, self.call(build_request(
            "updateContributorInsights", index=index)))

    def update_time_to_live(self, disable: str | None = None) -> Request:
        """The UpdateTimeToLive request: expiry enabled on the model's
        ttlAttribute, or disabled on `disable`, an attribute the model no
        longer declares."""
        return cast(Request, self.call(build_request(
            "updateTimeToLive", disable=disable)))

    def cloudformation(self, stream_filters: Sequence[str] | None = None
                       ) -> dict[str, Any]:
        """The CloudFormation template; stream_filters like ["Event:INSERT"]."""
        return cast(dict[str, Any], self.call(build_request(
            "cloudformation", stream_filters=stream_filters))["template"])

    def lint(self) -> Lint:
        return cast(Lint, self.call(build_request("lint")))

    def doc(self) -> str:
        """The model as Markdown."""
        return cast(str, self.call(build_request("doc"))["markdown"])

    # ---- keys and items ----

    def keys(self, entity: str, values: Values, now: int | None = None) -> Keys:
        """{"keys": {"PK": ..., ...}, "item": {values, defaults filled}}"""
        answer = self.call(build_request("keys", entity=entity, values=values,
                                         now=now))
        self.typed(entity, answer["item"])
        return cast(Keys, answer)

    def item_size(self, entity: str, values: Values, now: int | None = None
                  ) -> ItemSize:
        return cast(ItemSize, self.call(build_request(
            "itemSize", entity=entity, values=values, now=now)))

    def parse(self, pk: str, sk: str | None = None, index: str | None = None
              ) -> Parsed:
        """A key read back: {"entity": ..., "values": {...}}."""
        answer = self.call(build_request("parse", pk=pk, sk=sk, index=index))
        self.typed(answer.get("entity"), answer.get("values"))
        return cast(Parsed, answer)

    # ---- requests ----

    def _written(self, answer: dict[str, Any], entity: str) -> Request:
        if "item" in answer:
            self.typed(entity, answer["item"])
        return cast(Request, answer)

    def get(self, entity: str, values: Values, consistent: bool = False,
            project: Sequence[str] | None = None) -> Request:
        return cast(Request, self.call(build_request(
            "get", entity=entity, values=values, consistent=consistent,
            project=project)))

    def put(self, entity: str, values: Values, now: int | None = None,
            expect_version: int | None = None) -> Request:
        """Also "item": what the write stores (generated ids included)."""
        return self._written(self.call(build_request(
            "put", entity=entity, values=values, now=now,
            expect_version=expect_version)), entity)

    def create(self, entity: str, values: Values, now: int | None = None,
               expect_version: int | None = None) -> Request:
        """A put that fails if the item exists; a TransactWriteItems when
        the entity has unique attributes. Also "item", as put()."""
        return self._written(self.call(build_request(
            "create", entity=entity, values=values, now=now,
            expect_version=expect_version)), entity)

    def update(self, entity: str, values: Values, set: Values | None = None,
               remove: Sequence[str] | None = None, add: Values | None = None,
               append: Values | None = None, previous: Values | None = None,
               expect_version: int | None = None, upsert: bool = False,
               now: int | None = None, update: str | None = None,
               condition: str | None = None,
               params: Values | None = None,
               return_values: str | None = None,
               return_on_failure: bool = False) -> Request:
        """update, condition: the text (or JSON) form of docs/conditions.md;
        return_values: "ALL_NEW", "UPDATED_NEW", "ALL_OLD", "UPDATED_OLD"
        (read the answer with page(..., operation="UpdateItem",
        entity=...)); return_on_failure: a failed condition's answer holds
        the item, and explain() names what it held."""
        return cast(Request, self.call(build_request(
            "update", entity=entity, values=values, set=set, remove=remove,
            add=add, append=append, previous=previous,
            expect_version=expect_version, upsert=upsert, now=now,
            update=update, condition=condition, params=params,
            return_values=return_values,
            return_on_failure=return_on_failure)))

    def delete(self, entity: str, values: Values,
               expect_version: int | None = None, if_exists: bool = False
               ) -> Request:
        return cast(Request, self.call(build_request(
            "delete", entity=entity, values=values,
            expect_version=expect_version, if_exists=if_exists)))

    def query(self, pattern: str, values: Values,
              condition: Mapping[str, Mapping[str, Any]] | None = None,
              limit: int | None = None, cursor: str | None = None,
              consistent: bool = False, project: Sequence[str] | None = None,
              now: int | None = None, select: str | None = None) -> Request:
        """condition: {"ts": {"between": ["2026-01-01", "2026-02-01"]}}, or
        begins, gt, gte, lt, lte, or a lower and an upper bound
        {"ts": {"gt": "2026-01", "lt": "2026-03"}}; cursor: a page's
        "cursor"; select="COUNT": the number of items (the page's
        "matched"), not the items."""
        return cast(Request, self.call(build_request(
            "query", pattern=pattern, values=values, condition=condition,
            limit=limit, cursor=cursor, consistent=consistent,
            project=project, now=now, select=select)))

    def scan(self, index: str | None = None,
             entities: Sequence[str] | None = None, filter: Any = None,
             params: Values | None = None,
             project: Sequence[str] | None = None, segment: int | None = None,
             total_segments: int | None = None, limit: int | None = None,
             cursor: str | None = None, consistent: bool = False,
             select: str | None = None, now: int | None = None) -> Request:
        """A Scan of the table (or `index`): every item, or those of
        `entities`, or those of one entity its `filter` holds for; a
        parallel scan's `segment` of `total_segments`; cursor: the page
        before's "cursor" (docs/scans.md)."""
        return cast(Request, self.call(build_request(
            "scan", index=index, entities=entities, filter=filter,
            params=params, project=project, segment=segment,
            total_segments=total_segments, limit=limit, cursor=cursor,
            consistent=consistent, select=select, now=now)))

    def scan_page(self, response: Any, index: str | None = None,
                  entities: Sequence[str] | None = None, filter: Any = None,
                  params: Values | None = None,
                  project: Sequence[str] | None = None,
                  segment: int | None = None,
                  total_segments: int | None = None,
                  now: int | None = None) -> Page:
        """A Scan's answer, given the scan's own settings: {"items",
        "count", "hasMore", "cursor"?}; items of no entity of the model
        (guards, foreign items) come as {"entity": None, "item": {every
        attribute as stored}}."""
        answer = self.call(build_request(
            "scanPage", response=_values.as_text(response), index=index,
            entities=entities, filter=filter, params=params, project=project,
            segment=segment, total_segments=total_segments, now=now))
        for entry in answer["items"]:
            if entry is not None and entry["entity"] is not None:
                self.typed(entry["entity"], entry["item"])
        return cast(Page, answer)

    def guards(self, pages: Sequence[Any], holders: Sequence[Any] = ()
               ) -> dict[str, Any]:
        """The orphan-guard audit of Scan answers `pages`, given the
        answers to the requests it gave so far (`holders`, in order):
        {"request": {...}} to send next, or {"guards": n, "orphans":
        [{"kind", "entity", "unique", "guard", "holder"}]}."""
        return self.call(build_request(
            "guards", pages=[_values.as_text(p) for p in pages],
            holders=[_values.as_text(h) for h in holders] or None))

    def batch_get(self, items: Iterable[Mapping[str, Any]],
                  consistent: bool = False) -> Requests:
        """items: [{"op": "get", "entity": ..., "values": {...}}]."""
        return cast(Requests, self.call(build_request(
            "batchGet", items=list(items), consistent=consistent)))

    def batch_write(self, items: Iterable[Mapping[str, Any]],
                    now: int | None = None) -> Requests:
        """items: put and delete operations."""
        return cast(Requests, self.call(build_request(
            "batchWrite", items=list(items), now=now)))

    def transact(self, items: Iterable[Mapping[str, Any]],
                 token: str | None = None, now: int | None = None) -> Request:
        """items: get, put, create, update, delete or check operations (all
        gets make a TransactGetItems); token: ClientRequestToken."""
        return cast(Request, self.call(build_request(
            "transact", items=list(items), token=token, now=now)))

    # ---- answers ----

    def page(self, response: Any, operation: str = "Query",
             pattern: str | None = None, values: Values | None = None,
             now: int | None = None, entity: str | None = None) -> Page:
        """DynamoDB's answer read back — its text, bytes, a dict (boto3's
        own, binary as bytes, included): {"items": [{"entity", "item"}],
        "count", "hasMore", "cursor"?, "followup"?}. Give the query's
        pattern and values for a sealed "cursor" of the next page.
        DynamoDB's error answer (or a botocore ClientError) raises
        DynamoDBError."""
        answer = self.call(build_request(
            "page", operation=operation, response=_values.as_text(response),
            pattern=pattern, values=values, now=now, entity=entity))
        for entry in answer["items"]:
            if entry is not None:
                self.typed(entry["entity"], entry["item"])
        return cast(Page, answer)

    def hydrate(self, response: Any, attributes: Sequence[str] | None = None,
                consistent: bool = False,
                answers: Sequence[tuple[int, Any]] | None = None
                ) -> Hydration:
        """A Query answer of a KEYS_ONLY or INCLUDE index (text, bytes or
        boto3's dict) into {"requests": [...]}: the BatchGetItem of its
        full items, 100 keys each (attributes: only these, with the keys).
        With answers, [(chunk, answer), ...] — every answer to request
        `chunk` and to its follow-ups (page(answer, "BatchGetItem")'s
        "followup") — also "items" in the page's order (None: not there
        any more), "missing" and "pending" (item indices)."""
        given = None if answers is None else [
            {"chunk": chunk, "response": _values.as_text(a)}
            for chunk, a in answers]
        answer = self.call(build_request(
            "hydrate", response=_values.as_text(response),
            attributes=None if attributes is None else list(attributes),
            consistent=consistent, answers=given))
        for entry in answer.get("items", []):
            if entry is not None:
                self.typed(entry["entity"], entry["item"])
        return cast(Hydration, answer)

    def explain(self, request: Mapping[str, Any], response: Any
                ) -> Explanation:
        """DynamoDB's error answer to the write `request` (the request dict
        sent, see build_request) in the model's words. `response`: the
        error body (text, bytes or dict) or botocore's ClientError."""
        return cast(Explanation, self.call(build_request(
            "explain", request=request, response=_values.as_text(response))))

    def stream(self, event: Any, failed: Sequence[int] | None = None
               ) -> StreamAnswer:
        """A DynamoDB Streams Lambda event (text, bytes or dict):
        {"records": [...]}; with failed (record indices), also "failures",
        the ReportBatchItemFailures answer."""
        answer = self.call(build_request("stream",
                                         event=_values.as_text(event),
                                         failed=failed))
        for record in answer["records"]:
            for image in ("new", "old"):
                if image in record:
                    self.typed(record.get("entity"), record[image])
        return cast(StreamAnswer, answer)

