"""The shapes of requests and answers, for type checkers."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# An item's values by attribute name: str, int, Decimal, bool, bytes, set,
# list, dict (and, going in, float and timezone-aware datetime).
Values = dict[str, Any]

Operation = Literal["GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query",
                    "BatchGetItem", "BatchWriteItem", "TransactWriteItems",
                    "TransactGetItems", "CreateTable"]


class Request(TypedDict):
    """A request body and where it goes: send `body` with the header
    X-Amz-Target: `target` (ddbst.boto3 does it through boto3)."""
    operation: Operation
    target: str
    body: dict[str, Any]
    # put and create: the values written, generated ids and timestamps included
    item: NotRequired[Values]


class Requests(TypedDict):
    """A batch, cut into DynamoDB's chunks."""
    requests: list[Request]


class Keys(TypedDict):
    keys: dict[str, str]
    item: Values


class Parsed(TypedDict):
    entity: str
    values: Values


class ItemSize(TypedDict):
    bytes: int
    limit: int


class PageItem(TypedDict):
    entity: str
    item: Values
    # attributes the entity does not declare, when there are any
    undeclared: NotRequired[dict[str, Any]]
    # on a page of a KEYS_ONLY or INCLUDE index: what the index leaves out
    notProjected: NotRequired[list[str]]


class Page(TypedDict):
    # a TransactGetItems slot that found nothing is None
    items: list[PageItem | None]
    count: int
    hasMore: bool
    cursor: NotRequired[str]       # the next page's, sealed
    followup: NotRequired[Request]  # a batch's unprocessed items
    matched: NotRequired[int]      # a select="COUNT" answer's Count
    scanned: NotRequired[int]      # ... and its ScannedCount
    missing: NotRequired[list[int]]  # query_full: items deleted since


class Hydration(TypedDict):
    # the BatchGetItem of the page's full items, 100 keys each
    requests: list[Request]
    # given the answers: the full items in the page's order (None: not
    # there any more, or not answered yet), and those indices
    items: NotRequired[list[PageItem | None]]
    missing: NotRequired[list[int]]
    pending: NotRequired[list[int]]


class Explanation(TypedDict):
    dynamodb: dict[str, Any]
    kind: str
    explanation: str
    failures: NotRequired[list[dict[str, Any]]]


class Finding(TypedDict):
    severity: Literal["error", "warning", "note"]
    rule: str
    path: str
    message: str


class Lint(TypedDict):
    findings: list[Finding]
    errors: int


class Check(TypedDict):
    ok: bool
    table: str
    entities: int
    patterns: int


class StreamAnswer(TypedDict):
    records: list[dict[str, Any]]
    failures: NotRequired[dict[str, Any]]
