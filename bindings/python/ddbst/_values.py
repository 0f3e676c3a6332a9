"""Python values to the JSON entry's text and back, exactly.

In: str, int, bool, None, Decimal (written as its own digits, never through
a float), float (its repr, the shortest text that reads back as the same
float), bytes/bytearray/memoryview (standard base64, the entry's form for
binary), set/frozenset (a sorted array, so equal sets give equal bodies),
timezone-aware datetime (ISO-8601 with its offset; a naive one is refused:
it names no instant), lists, tuples and dicts.

Out: numbers as int when integral and Decimal otherwise (json's floats never
appear), then typed by the model: binary attributes as bytes, number
attributes as Decimal, sets as set.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
from decimal import Decimal
from typing import Any, Callable

_NUMBER_MARK = "\x00\x01ddbst-number:"
_NUMBER_TEXT = re.compile(r'"\\u0000\\u0001ddbst-number:([-+0-9.eE]+)"')


class _Encoder:
    """One request's encoding: json's C encoder, with `default` for the
    types JSON lacks. A Decimal becomes a marked string, replaced by its
    digits afterwards; the count of replacements is checked, so a string of
    the caller's that happens to look like a mark is never turned into a
    number (that request is encoded again, slowly and exactly)."""

    __slots__ = ("numbers",)

    def __init__(self) -> None:
        self.numbers = 0

    def default(self, value: Any) -> Any:
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise ValueError(f"{value!r} is not a number DynamoDB stores")
            self.numbers += 1
            return _NUMBER_MARK + format(value, "f" if _plain(value) else "")
        if isinstance(value, (bytes, bytearray, memoryview)):
            return base64.b64encode(value).decode("ascii")
        if isinstance(value, (set, frozenset)):
            try:
                return sorted(value)
            except TypeError:  # mixed types: keep them, the entry refuses
                return list(value)
        if isinstance(value, datetime.datetime):
            if value.utcoffset() is None:
                raise ValueError(f"{value!r} is a naive datetime: give it a "
                                 "time zone (datetime.timezone.utc)")
            return value.isoformat()
        raise TypeError(f"{type(value).__name__} is not a value ddbst takes "
                        "(str, int, Decimal, float, bool, bytes, set, "
                        "datetime with a time zone, list, dict)")


def native_default(value: Any) -> tuple[int, Any]:
    """For ddbst._native's encoder, the types JSON lacks: (1, text) writes
    a number's text bare, (0, value) writes value in its place."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{value!r} is not a number DynamoDB stores")
        return 1, format(value, "f" if _plain(value) else "")
    if isinstance(value, (set, frozenset)):
        try:
            return 0, sorted(value)
        except TypeError:
            return 0, list(value)
    if isinstance(value, datetime.datetime):
        if value.utcoffset() is None:
            raise ValueError(f"{value!r} is a naive datetime: give it a "
                             "time zone (datetime.timezone.utc)")
        return 0, value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a value ddbst takes "
                    "(str, int, Decimal, float, bool, bytes, set, "
                    "datetime with a time zone, list, dict)")


def _plain(d: Decimal) -> bool:
    """Write without an exponent when that is short (1E+2 → 100)."""
    exponent = d.as_tuple().exponent
    return isinstance(exponent, int) and -30 <= exponent <= 0


def encode(obj: Any) -> bytes:
    """The JSON text of a request (or configuration), UTF-8."""
    enc = _Encoder()
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":"), default=enc.default)
    if enc.numbers:
        text, n = _NUMBER_TEXT.subn(r"\1", text)
        if n != enc.numbers:
            text = _encode_slowly(obj)
    return text.encode("utf-8")


def _encode_slowly(obj: Any) -> str:
    """Exact whatever the strings hold: Decimals written in place."""
    enc = _Encoder()
    if isinstance(obj, Decimal):
        enc.default(obj)
        return format(obj, "f" if _plain(obj) else "")
    if isinstance(obj, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" +
                              _encode_slowly(v) for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(_encode_slowly(v) for v in obj) + "]"
    if isinstance(obj, (set, frozenset, bytes, bytearray, memoryview,
                        datetime.datetime)):
        return _encode_slowly(enc.default(obj))
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


# one decoder for every answer: json.loads with parse_float builds a new
# one each call
_DECODER = json.JSONDecoder(parse_float=Decimal)


def decode(raw: bytes | str) -> Any:
    """An answer: integers as int, other numbers as Decimal."""
    return _DECODER.decode(raw if isinstance(raw, str) else raw.decode("utf-8"))


# ---- typing items by the model ----

def _to_bytes(v: Any) -> Any:
    return base64.b64decode(v, validate=True) if isinstance(v, str) else v


def _to_decimal(v: Any) -> Any:
    return Decimal(v) if isinstance(v, (int, str)) and \
        not isinstance(v, bool) else v


def _to_set(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: {convert(x) for x in v} if isinstance(v, list) else v


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "binary": _to_bytes,
    "number": _to_decimal,
    "string_set": _to_set(lambda x: x),
    "number_set": _to_set(_to_decimal),
}


def converters(types: dict[str, dict[str, str]]
               ) -> dict[str, dict[str, Callable[[Any], Any]]]:
    """Per entity, the attributes whose answers need converting."""
    return {entity: {name: _CONVERT[t] for name, t in attrs.items()
                     if t in _CONVERT}
            for entity, attrs in types.items()}


def type_item(convert: dict[str, Callable[[Any], Any]] | None,
              item: Any) -> Any:
    """An item's values as Python types, in place."""
    if convert and isinstance(item, dict):
        for name, fn in convert.items():
            if name in item:
                item[name] = fn(item[name])
    return item


# ---- DynamoDB JSON, as the SDKs hold it ----

def body_to_sdk(value: Any) -> Any:
    """A request body for boto3: binary ({"B": base64} and {"BS": [...]})
    as bytes, since boto3 base64-encodes bytes itself (given ddbst's text
    it would store the base64 characters)."""
    if isinstance(value, dict):
        if len(value) == 1:
            if "B" in value and isinstance(value["B"], str):
                return {"B": base64.b64decode(value["B"], validate=True)}
            if "BS" in value and isinstance(value["BS"], list):
                return {"BS": [base64.b64decode(x, validate=True)
                               for x in value["BS"]]}
        return {k: body_to_sdk(v) for k, v in value.items()}
    if isinstance(value, list):
        return [body_to_sdk(v) for v in value]
    return value


def _sdk_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):  # boto3's resource layer
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} in a DynamoDB answer")


def sdk_to_text(response: Any) -> str:
    """A response as boto3 returns it (binary as bytes, ResponseMetadata)
    as DynamoDB's own JSON text, which ddbst reads."""
    if isinstance(response, dict) and "ResponseMetadata" in response:
        response = {k: v for k, v in response.items()
                    if k != "ResponseMetadata"}
    return json.dumps(response, ensure_ascii=False, separators=(",", ":"),
                      default=_sdk_default)


def sdk_error_body(response: dict[str, Any]) -> str:
    """A botocore ClientError's `response` as DynamoDB's error body:
    {"__type": ..., "message": ..., "CancellationReasons": [...]}."""
    error = response.get("Error", {})
    body: dict[str, Any] = {"__type": error.get("Code", ""),
                            "message": error.get("Message", "")}
    for k, v in response.items():
        if k not in ("Error", "ResponseMetadata"):
            body[k] = v
    return sdk_to_text(body)


def as_text(value: Any) -> str:
    """A response or an event given as text, bytes, a parsed dict (boto3's
    included), or a botocore ClientError."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8")
    response = getattr(value, "response", None)
    if isinstance(value, Exception) and isinstance(response, dict):
        return sdk_error_body(response)
    return sdk_to_text(value)
