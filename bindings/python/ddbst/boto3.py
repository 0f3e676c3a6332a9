"""ddbst through a boto3 DynamoDB client: ddbst builds every request and
reads every answer, boto3 signs, sends and retries.

    import boto3
    from ddbst import Ddbst
    from ddbst.boto3 import Table

    table = Table(Ddbst(model_file="model.json", cursor_keys=key_hex),
                  boto3.client("dynamodb"))
    order = table.put("Order", {"customerId": "c1", "total": Decimal("9.90")})
    page = table.query("listOrders", {"customerId": "c1"}, limit=25)
    page["items"], page.get("cursor")      # the next page: cursor=...

boto3 is not imported here: any object with boto3's client methods (put_item,
query, ...) and botocore's ClientError (an exception with a `response` dict)
will do. Binary values go to boto3 as bytes (boto3 base64-encodes them
itself) and come back from its answers as bytes, so stored bytes are the
caller's bytes exactly; numbers travel as DynamoDB's text, never as floats.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, cast

from . import _values
from ._errors import DdbstError, DynamoDBError
from ._prepared import Prepared
from ._session import Ddbst, build_request
from ._types import Hydration, Page, PageItem, Request, Values

__all__ = ["Table", "send", "send_body", "METHODS"]

# The boto3 client method of each operation ddbst builds.
METHODS = {
    "GetItem": "get_item", "PutItem": "put_item",
    "UpdateItem": "update_item", "DeleteItem": "delete_item",
    "Query": "query", "Scan": "scan", "BatchGetItem": "batch_get_item",
    "BatchWriteItem": "batch_write_item",
    "TransactWriteItems": "transact_write_items",
    "TransactGetItems": "transact_get_items", "CreateTable": "create_table",
    "DescribeTable": "describe_table", "DeleteTable": "delete_table",
    "UpdateTable": "update_table",
    "UpdateContinuousBackups": "update_continuous_backups",
    "UpdateContributorInsights": "update_contributor_insights",
    "UpdateTimeToLive": "update_time_to_live",
}


def send(client: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """Sends one ddbst request ({"operation", "target", "body"}) through a
    boto3 client and returns boto3's response. botocore's ClientError
    propagates."""
    method = getattr(client, METHODS[request["operation"]])
    return cast(dict[str, Any], method(**_values.body_to_sdk(request["body"])))


# ---- sending ddbst's own bytes ----
#
# boto3 validates and serializes the keyword arguments of every call (about
# 90 us for a PutItem on the machine of docs/performance.md, 100 times what
# building the dict costs). ddbst has built the exact body already, so for
# the single-item operations and Query the adapter calls boto3 with the
# smallest arguments that validate, and swaps ddbst's body in at botocore's
# before-call event: boto3 still signs, sends, retries and parses the
# answer. The swapped body is per thread, set just before the call.

# What each fast operation takes besides TableName to pass validation.
_PLACEHOLDERS: dict[str, dict[str, Any]] = {
    "GetItem": {"Key": {}}, "PutItem": {"Item": {}},
    "UpdateItem": {"Key": {}}, "DeleteItem": {"Key": {}}, "Query": {},
}
_pending = threading.local()
_hooked: "weakref.WeakSet[Any]" = weakref.WeakSet()
_hook_lock = threading.Lock()


def _swap_body(params: dict[str, Any], **_: Any) -> None:
    body = getattr(_pending, "body", None)
    if body is not None:
        params["body"] = body
        _pending.body = None


def _hook(client: Any) -> None:
    with _hook_lock:
        if client not in _hooked:
            client.meta.events.register("before-call.dynamodb", _swap_body)
            _hooked.add(client)


def send_body(client: Any, operation: str, table: str, body: bytes
              ) -> dict[str, Any]:
    """Sends `body` (a request body's bytes, as ddbst built them) as
    `operation` through a boto3 client, which signs, sends, retries and
    parses the answer, without validating and serializing arguments again.
    For GetItem, PutItem, UpdateItem, DeleteItem and Query."""
    placeholder = _PLACEHOLDERS[operation]
    _hook(client)
    _pending.body = body
    try:
        return cast(dict[str, Any], getattr(client, METHODS[operation])(
            TableName=table, **placeholder))
    finally:
        _pending.body = None


def _is_client_error(e: BaseException) -> bool:
    return isinstance(getattr(e, "response", None), dict) and \
        "Error" in getattr(e, "response")


class Table:
    """A ddbst session and a boto3 client: each method builds the request,
    sends it, and reads the answer back as the model's items.

    DynamoDB's refusals raise ddbst.DynamoDBError (the ClientError as its
    __cause__); a refused write also carries `explanation`, `reason` and
    `failures` in the model's words. Throttling is boto3's to retry (its
    retry modes and max_attempts apply). Batches are re-sent until DynamoDB
    has processed every item (unprocessed_attempts times at most, with
    exponential backoff).
    """

    def __init__(self, db: Ddbst, client: Any, *,
                 unprocessed_attempts: int = 8,
                 serialize: Literal["ddbst", "boto3"] = "ddbst") -> None:
        """serialize="ddbst" (the default) sends the bytes ddbst built for
        single-item operations and queries (see send_body); "boto3" gives
        boto3 the request as keyword arguments to validate and serialize
        itself, for code that inspects them (botocore's Stubber, hooks on
        before-parameter-build)."""
        self.db = db
        self.client = client
        self.unprocessed_attempts = unprocessed_attempts
        self.serialize = serialize
        self.table_name = db.check()["table"]
        # prepared operations by (op, name, options), each thread's own (a
        # prepared operation is one caller's at a time)
        self._local = threading.local()

    # ---- sending ----

    def send(self, request: Mapping[str, Any],
             write: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """boto3's response to a built request. A ClientError becomes
        DynamoDBError; `write` (the request dict the body was built from)
        has a refusal explained."""
        try:
            return send(self.client, request)
        except Exception as e:
            if not _is_client_error(e):
                raise
            raise self._error(e, write) from e

    def _error(self, e: BaseException, write: Mapping[str, Any] | None
               ) -> DdbstError:
        if write is not None:
            try:
                answer = self.db.explain(write, e)
            except DdbstError:
                answer = None
            if answer is not None:
                d = answer["dynamodb"]
                err = DynamoDBError(
                    -12, "EDYNAMODB", "__type",
                    f"{d.get('type', '')}: {d.get('message', '')}",
                    cast(dict[str, Any], answer), None, dynamodb=d)
                err.explanation = answer["explanation"]
                err.reason = answer["kind"]
                err.failures = answer.get("failures")
                return err
        try:
            self.db.page(e)
        except DdbstError as refused:
            return refused
        return DdbstError(-12, "EDYNAMODB", "", str(e))

    def _sent(self, request: Mapping[str, Any],
              write: Mapping[str, Any] | None = None) -> tuple[Request, dict[str, Any]]:
        """Builds `request` and sends it: ddbst's bytes when it is a fast
        operation (see send_body), else through boto3's arguments."""
        if self.serialize == "ddbst":
            built, body = self.db.build(request)
            if built["operation"] in _PLACEHOLDERS:
                if write is not None and "item" in built:
                    # explain() needs the values as built (ids, the clock)
                    write = dict(write, values=built["item"])
                try:
                    return built, send_body(self.client, built["operation"],
                                            self.table_name, body)
                except Exception as e:
                    if not _is_client_error(e):
                        raise
                    raise self._error(e, write) from e
        built = cast(Request, self.db.call(request))
        if "item" in built:
            self.db.typed(request.get("entity"), built["item"])
            if write is not None:
                write = dict(write, values=built["item"])
        return built, self.send(built, write)

    def _prepared(self, op: str, name: str, **fixed: Any) -> Prepared:
        cache = getattr(self._local, "prepared", None)
        if cache is None:
            cache = self._local.prepared = {}
        key = (op, name, tuple(sorted(fixed.items())))
        p = cache.get(key)
        if p is None:
            p = cache[key] = self.db.prepare(op, name, **fixed)
        return cast(Prepared, p)

    def _sent_prepared(self, fixed: tuple[str, str, dict[str, Any]],
                       values: Values, request: Mapping[str, Any],
                       write: bool = False, **per_call: Any
                       ) -> dict[str, Any]:
        """boto3's response to the body of `fixed` (op, name, options)
        prepared, for `values` (no JSON on the way: see ddbst._prepared);
        to `request` the usual way when that does not prepare (a get
        pattern's query, a name the model lacks: the entry says so) or its
        body is no fast operation's (a transaction). `write`: a refusal is
        explained from `request`."""
        try:
            p = self._prepared(fixed[0], fixed[1], **fixed[2])
        except DdbstError:
            p = None
        if p is None:
            return self._sent(request, request if write else None)[1]
        body = p.body(values, **per_call)
        if p.operation not in _PLACEHOLDERS:
            return self._sent(request, request if write else None)[1]
        try:
            return send_body(self.client, p.operation, self.table_name, body)
        except Exception as e:
            if not _is_client_error(e):
                raise
            raise self._error(e, request if write else None) from e

    def _write(self, op: str, **fields: Any) -> tuple[Request, dict[str, Any]]:
        req = build_request(op, **fields)
        built, _ = self._sent(req, req)
        return built, req

    # ---- the table ----

    def create_table(self, wait: bool = True) -> None:
        """CreateTable of the model's table (its name in force), waiting
        until it is ACTIVE."""
        request = self.db.create_table()
        self.send(request)
        if wait:
            self.client.get_waiter("table_exists").wait(
                TableName=request["body"]["TableName"],
                WaiterConfig={"Delay": 1, "MaxAttempts": 60})

    def delete_table(self) -> None:
        """DeleteTable of the model's table (refused by DynamoDB while its
        deletion protection is on)."""
        self.send(self.db.delete_table())

    def describe_table(self) -> dict[str, Any]:
        """DescribeTable of the model's table: boto3's "Table"."""
        return cast(dict[str, Any],
                    self.send(self.db.describe_table())["Table"])

    def _wait_index(self, index: str, gone: bool) -> None:
        for _ in range(600):
            status = {i["IndexName"]: i.get("IndexStatus") for i in
                      self.describe_table().get("GlobalSecondaryIndexes", [])}
            if (index not in status) if gone else status.get(index) == "ACTIVE":
                return
            time.sleep(0.5)
        raise TimeoutError(f"index {index} never became "
                           f"{'gone' if gone else 'ACTIVE'}")

    def add_index(self, index: str, wait: bool = True) -> None:
        """UpdateTable creating the model's global index `index` on the
        live table (DynamoDB backfills it), waiting until it is ACTIVE."""
        self.send(self.db.update_table(add_index=index))
        if wait:
            self._wait_index(index, gone=False)

    def remove_index(self, index: str, wait: bool = True) -> None:
        """UpdateTable deleting global index `index`, which the model no
        longer declares, waiting until it is gone."""
        self.send(self.db.update_table(remove_index=index))
        if wait:
            self._wait_index(index, gone=True)

    # ---- items ----

    def get(self, entity: str, values: Values, consistent: bool = False,
            project: Sequence[str] | None = None) -> Values | None:
        """The item, its values typed by the model, or None."""
        request = build_request("get", entity=entity, values=values,
                                consistent=consistent, project=project)
        if self.serialize == "ddbst" and project is None:
            response = self._sent_prepared(
                ("get", entity, {"consistent": consistent}), values,
                request)
        else:
            _, response = self._sent(request)
        page = self.db.page(response, operation="GetItem")
        entry = page["items"][0] if page["items"] else None
        return entry["item"] if entry is not None else None

    def put(self, entity: str, values: Values, now: int | None = None,
            expect_version: int | None = None) -> Values:
        """PutItem; the values written (defaults and generated ids filled)."""
        built, _ = self._write("put", entity=entity, values=values, now=now,
                               expect_version=expect_version)
        return built["item"]

    def create(self, entity: str, values: Values, now: int | None = None,
               expect_version: int | None = None) -> Values:
        """Put only if no such item exists (with unique attributes, a
        transaction with their guards). The values written. A refusal is
        DynamoDBError with the explanation ("unique constraint ...")."""
        built, _ = self._write("create", entity=entity, values=values,
                               now=now, expect_version=expect_version)
        return built["item"]

    def update(self, entity: str, values: Values, set: Values | None = None,
               remove: Sequence[str] | None = None, add: Values | None = None,
               append: Values | None = None, previous: Values | None = None,
               expect_version: int | None = None, upsert: bool = False,
               now: int | None = None) -> None:
        """UpdateItem: `values` SET (the key's facets say which item),
        `remove`d, `add`ed, `append`ed; conditional on the item existing
        unless upsert."""
        if self.serialize == "ddbst" and set is None and previous is None:
            request = build_request(
                "update", entity=entity, values=values, remove=remove,
                add=add, append=append, expect_version=expect_version,
                upsert=upsert, now=now)
            self._sent_prepared(
                ("update", entity, {"upsert": upsert}), values,
                request, write=True, remove=remove, add=add, append=append,
                expect_version=expect_version, now=now)
            return
        self._write("update", entity=entity, values=values, set=set,
                    remove=remove, add=add, append=append, previous=previous,
                    expect_version=expect_version, upsert=upsert, now=now)

    def delete(self, entity: str, values: Values,
               expect_version: int | None = None,
               if_exists: bool = False) -> None:
        if self.serialize == "ddbst" and expect_version is None:
            request = build_request("delete", entity=entity, values=values,
                                    if_exists=if_exists)
            self._sent_prepared(
                ("delete", entity, {"if_exists": if_exists}),
                values, request, write=True)
            return
        self._write("delete", entity=entity, values=values,
                    expect_version=expect_version, if_exists=if_exists)

    # ---- reads of many ----

    def query(self, pattern: str, values: Values,
              condition: Mapping[str, Mapping[str, Any]] | None = None,
              limit: int | None = None, cursor: str | None = None,
              consistent: bool = False, project: Sequence[str] | None = None,
              now: int | None = None) -> Page:
        """One page: {"items": [{"entity", "item"}], "count", "hasMore",
        "cursor"?}. Pass its "cursor" back for the next page."""
        request = build_request(
            "query", pattern=pattern, values=values, condition=condition,
            limit=limit, cursor=cursor, consistent=consistent,
            project=project, now=now)
        if self.serialize == "ddbst" and condition is None and project is None:
            response = self._sent_prepared(
                ("query", pattern, {"consistent": consistent}),
                values, request, limit=limit, cursor=cursor, now=now)
        else:
            _, response = self._sent(request)
        return self.db.page(response, pattern=pattern, values=values, now=now)

    def query_all(self, pattern: str, values: Values,
                  condition: Mapping[str, Mapping[str, Any]] | None = None,
                  limit: int | None = None, consistent: bool = False,
                  project: Sequence[str] | None = None
                  ) -> Iterator[PageItem]:
        """Every item of the pattern, page after page."""
        cursor: str | None = None
        while True:
            page = self.query(pattern, values, condition, limit, cursor,
                              consistent, project)
            for entry in page["items"]:
                if entry is not None:
                    yield entry
            cursor = page.get("cursor")
            if not page["hasMore"] or cursor is None:
                return

    def scan(self, index: str | None = None,
             entities: Sequence[str] | None = None, filter: Any = None,
             params: Values | None = None,
             project: Sequence[str] | None = None,
             segment: int | None = None, total_segments: int | None = None,
             limit: int | None = None, cursor: str | None = None,
             consistent: bool = False, now: int | None = None) -> Page:
        """One page of a Scan (docs/scans.md): {"items", "count",
        "hasMore", "cursor"?}; pass its "cursor" back for the next page of
        the same scan (segment)."""
        fields: dict[str, Any] = dict(
            index=index, entities=entities, filter=filter, params=params,
            project=project, segment=segment, total_segments=total_segments)
        response = self.send(self.db.scan(limit=limit, cursor=cursor,
                                          consistent=consistent, now=now,
                                          **fields))
        return self.db.scan_page(response, now=now, **fields)

    def scan_all(self, index: str | None = None,
                 entities: Sequence[str] | None = None, filter: Any = None,
                 params: Values | None = None,
                 project: Sequence[str] | None = None,
                 segment: int | None = None,
                 total_segments: int | None = None,
                 limit: int | None = None) -> Iterator[PageItem]:
        """Every item of a scan (or of one segment of it), page after
        page."""
        cursor: str | None = None
        while True:
            page = self.scan(index, entities, filter, params, project,
                             segment, total_segments, limit, cursor)
            for entry in page["items"]:
                if entry is not None:
                    yield entry
            cursor = page.get("cursor")
            if not page["hasMore"] or cursor is None:
                return

    def orphan_guards(self, limit: int | None = None) -> dict[str, Any]:
        """The unique guards of the table whose holder is gone or holds
        another value: {"guards": n, "orphans": [...]}, a scan page at a
        time, each page's holders read back (docs/scans.md)."""
        guards, orphans = 0, []
        cursor: str | None = None
        while True:
            response = self.send(self.db.scan(limit=limit, cursor=cursor))
            page = self.db.scan_page(response)
            holders: list[Any] = []
            while True:
                audit = self.db.guards([response], holders)
                if "request" not in audit:
                    break
                holders.append(self.send(audit["request"]))
            guards += audit["guards"]
            orphans += audit["orphans"]
            cursor = page.get("cursor")
            if not page["hasMore"] or cursor is None:
                return {"guards": guards, "orphans": orphans}

    def _until_processed(self, request: Request, operation: str
                         ) -> Iterator[PageItem | None]:
        pending: Request | None = request
        for attempt in range(self.unprocessed_attempts + 1):
            if pending is None:
                return
            if attempt:
                time.sleep(min(0.05 * 2 ** attempt, 2.0))
            page = self.db.page(self.send(pending), operation=operation)
            yield from page["items"]
            pending = page.get("followup")
        if pending is not None:
            raise DdbstError(-12, "EDYNAMODB", "",
                             f"{operation}: items still unprocessed after "
                             f"{self.unprocessed_attempts} retries")

    def hydrate(self, response: Any, attributes: Sequence[str] | None = None,
                consistent: bool = False) -> Hydration:
        """The full items of a page of a KEYS_ONLY or INCLUDE index, from
        the Query's answer as boto3 gave it (or its text): each
        BatchGetItem sent, its unprocessed keys again until none are left,
        and the answers read back: {"items": [...] in the page's order
        (None: deleted since the query), "missing": [indices],
        "pending": [], "requests": [...]}."""
        plan = self.db.hydrate(response, attributes, consistent)
        answers: list[tuple[int, Any]] = []
        for chunk, request in enumerate(plan["requests"]):
            pending: Request | None = request
            for attempt in range(self.unprocessed_attempts + 1):
                if pending is None:
                    break
                if attempt:
                    time.sleep(min(0.05 * 2 ** attempt, 2.0))
                answer = self.send(pending)
                answers.append((chunk, answer))
                pending = self.db.page(answer, operation="BatchGetItem"
                                       ).get("followup")
            if pending is not None:
                raise DdbstError(-12, "EDYNAMODB", "",
                                 "BatchGetItem: keys still unprocessed after "
                                 f"{self.unprocessed_attempts} retries")
        return self.db.hydrate(response, attributes, consistent, answers)

    def query_full(self, pattern: str, values: Values,
                   condition: Mapping[str, Mapping[str, Any]] | None = None,
                   limit: int | None = None, cursor: str | None = None,
                   attributes: Sequence[str] | None = None,
                   consistent: bool = False, now: int | None = None) -> Page:
        """One page of a pattern on a KEYS_ONLY or INCLUDE index, its items
        the full ones (read with ConsistentRead when `consistent`), in the
        index's order; an item deleted since the query is None, and
        "missing" lists them. "cursor" is the index page's."""
        _, response = self._sent(build_request(
            "query", pattern=pattern, values=values, condition=condition,
            limit=limit, cursor=cursor, now=now))
        page = self.db.page(response, pattern=pattern, values=values, now=now)
        full = self.hydrate(response, attributes, consistent)
        out = cast(dict[str, Any], page)
        out["items"] = full.get("items", [])
        out["missing"] = full.get("missing", [])
        return cast(Page, out)

    def batch_get(self, items: Iterable[Mapping[str, Any]],
                  consistent: bool = False) -> list[PageItem]:
        """items: [{"op": "get", "entity": ..., "values": {...}}]; the items
        found, in no particular order (DynamoDB's)."""
        out: list[PageItem] = []
        for request in self.db.batch_get(items, consistent)["requests"]:
            out.extend(e for e in self._until_processed(request,
                                                        "BatchGetItem")
                       if e is not None)
        return out

    def batch_write(self, items: Iterable[Mapping[str, Any]],
                    now: int | None = None) -> None:
        """items: put and delete operations, sent 25 at a time, unprocessed
        ones again until none are left."""
        for request in self.db.batch_write(items, now)["requests"]:
            for _ in self._until_processed(request, "BatchWriteItem"):
                pass

    def transact_write(self, items: Sequence[Mapping[str, Any]],
                       token: str | None = None, now: int | None = None
                       ) -> None:
        """One TransactWriteItems; a cancellation is explained per item."""
        req = build_request("transact", items=list(items), token=token,
                            now=now)
        self.send(cast(Request, self.db.call(req)), req)

    def transact_get(self, items: Sequence[Mapping[str, Any]]
                     ) -> list[PageItem | None]:
        """One TransactGetItems: an entry per get, None where none was found."""
        request = self.db.transact(items)
        return self.db.page(self.send(request),
                            operation="TransactGetItems")["items"]
