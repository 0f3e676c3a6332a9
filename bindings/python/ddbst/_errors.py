"""The errors an answer carries, as exceptions."""

from __future__ import annotations

from typing import Any


class DdbstError(Exception):
    """An error answer: {"error": {"code", "name", "path", "message"}}.

    code is the C API's negative DDBST_E* code, name its name ("EVALUE",
    "ECURSOR", ...), path what was wrong ("facet orgId", "cursor",
    "values.orgId", "items[2].entity"; may be empty), message ddbst's words.
    `errors` lists every problem when a model fails to load (else just this
    one); `answer` is the whole answer; offset, line and column say where a
    JSON input was wrong (else None). str(e) is "path: message".
    """

    def __init__(self, code: int, name: str, path: str, message: str,
                 answer: dict[str, Any] | None = None,
                 errors: list[DdbstError] | None = None,
                 offset: int | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(code, name, path, message)
        self.code = code
        self.name = name
        self.path = path
        self.message = message
        self.answer = answer
        self.errors: list[DdbstError] = errors if errors is not None else [self]
        self.offset = offset
        self.line = line
        self.column = column

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> DdbstError:
        e = answer["error"]
        errors = None
        if "errors" in answer:
            errors = [DdbstError(x.get("code", 0), x.get("name", ""),
                                 x.get("path", ""), x.get("message", ""),
                                 answer, None, x.get("offset"), x.get("line"),
                                 x.get("column"))
                      for x in answer["errors"]]
        fields = (e.get("code", 0), e.get("name", ""), e.get("path", ""),
                  e.get("message", ""))
        where = (e.get("offset"), e.get("line"), e.get("column"))
        if "dynamodb" in answer:
            return DynamoDBError(*fields, answer, errors, *where,
                                 dynamodb=answer["dynamodb"])
        return cls(*fields, answer, errors, *where)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(code={self.code!r}, "
                f"name={self.name!r}, path={self.path!r}, "
                f"message={self.message!r})")


class DynamoDBError(DdbstError):
    """DynamoDB refused a request. `type` ("ConditionalCheckFailedException"),
    `kind` ("ConditionalCheckFailed", "TransactionCanceled", "Throttled",
    "Validation", ...), `dynamodb_message`, `retryable` and `reasons` (a
    transaction's cancellation reasons: dicts of code, kind, message) are
    what DynamoDB said, sorted by ddbst; `throttling_reasons` lists the
    ThrottlingReasons a throttling error carries (dicts of reason, e.g.
    "TableWriteKeyRangeThroughputExceeded", and resource, the table's or
    index's ARN).

    For a refused write sent through ddbst.boto3, `explanation` says why in
    the model's words ("TransactItems[1]: unique constraint User.email:
    another User already has this email (EMAIL#ann@x.com)"), `reason` is its
    kind ("unique", "exists", "version", "missing", ...) and `failures` the
    failed operations; they are None otherwise. The botocore ClientError is
    the exception's __cause__.
    """

    def __init__(self, code: int, name: str, path: str, message: str,
                 answer: dict[str, Any] | None,
                 errors: list[DdbstError] | None,
                 offset: int | None = None, line: int | None = None,
                 column: int | None = None, *,
                 dynamodb: dict[str, Any]) -> None:
        super().__init__(code, name, path, message, answer, errors, offset,
                         line, column)
        self.dynamodb = dynamodb
        self.type: str = dynamodb.get("type", "")
        self.kind: str = dynamodb.get("kind", "")
        self.dynamodb_message: str = dynamodb.get("message", "")
        self.retryable = bool(dynamodb.get("retryable"))
        self.reasons: list[dict[str, Any]] = dynamodb.get("reasons", [])
        self.throttling_reasons: list[dict[str, str]] = dynamodb.get(
            "throttlingReasons", [])
        self.explanation: str | None = None
        self.reason: str | None = None
        self.failures: list[dict[str, Any]] | None = None

    def __str__(self) -> str:
        if self.explanation:
            return self.explanation.rstrip("\n")
        return super().__str__()
