"""Index keys: values of the indexed column in Iceberg's single-value binary serialization
(docs/format.md, 'Single-value serialization'), decoded with the column's current type and ordered
as Floe's filters compare them (io.floe.format.expr.Comparators).

In Python a key is an ``int`` (int, long, days for date, microseconds since the epoch for both
timestamps), a ``str`` (compared by code point, as Python does), ``bytes`` (unsigned bytes),
a ``Decimal`` (by value) or a ``bool``: every key of one index has the same Python type, so
Python's own order is the index's order.
"""

from __future__ import annotations

import datetime
import decimal
import re
import struct
from dataclasses import dataclass
from typing import Any

from floe.errors import FloeError

Key = int | str | bytes | decimal.Decimal | bool

_DECIMAL = re.compile(r"^decimal\((\d+),\s*(\d+)\)$")
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DATE = datetime.date(1970, 1, 1)
_MICROS_PER_DAY = 86_400_000_000
SUPPORTED = "int, bigint, string, date, timestamp, timestamp_ntz, decimal, binary, boolean"


@dataclass(frozen=True)
class KeyType:
    """A column type an index supports, as the table schema's JSON names it."""

    name: str  # boolean, int, long, date, timestamp, timestamptz, string, binary, decimal
    scale: int = 0

    @staticmethod
    def of(schema_type: Any) -> KeyType | None:
        """The key type of a schema type (its JSON form), or None when no index supports it."""
        if not isinstance(schema_type, str):
            return None
        simple = ("boolean", "int", "long", "date", "timestamp", "timestamptz", "string", "binary")
        if schema_type in simple:
            return KeyType(schema_type)
        if m := _DECIMAL.match(schema_type):
            return KeyType("decimal", int(m.group(2)))
        return None

    def __str__(self) -> str:
        return f"decimal(scale {self.scale})" if self.name == "decimal" else self.name

    def decode(self, raw: bytes) -> Key:
        """Read a serialized key; raises ValueError saying what is wrong."""
        n = len(raw)
        if self.name == "boolean":
            _check_length(self, n, (1,))
            return raw[0] != 0
        if self.name in ("int", "date"):
            _check_length(self, n, (4,))
            return int(struct.unpack("<i", raw)[0])
        if self.name in ("long", "timestamp", "timestamptz"):
            _check_length(self, n, (4, 8))  # 4 bytes: written before a promotion
            if n == 8:
                return int(struct.unpack("<q", raw)[0])
            narrow = int(struct.unpack("<i", raw)[0])
            return narrow if self.name == "long" else narrow * _MICROS_PER_DAY
        if self.name == "string":
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"Invalid serialized string: bytes are not valid UTF-8 ({e})"
                ) from e
        if self.name == "binary":
            return bytes(raw)
        if n < 1:
            raise ValueError(f"Invalid serialized {self}: expected at least 1 byte, found 0")
        unscaled = int.from_bytes(raw, "big", signed=True)
        sign, digits, _ = decimal.Decimal(unscaled).as_tuple()
        return decimal.Decimal((sign, digits, -self.scale))

    def coerce(self, value: Any, what: str) -> Key:
        """The key for a value a caller gives (``what`` names the index and column in errors):
        ``int``; ``datetime.date`` or days for date; ``datetime.datetime`` (naive is UTC) or
        microseconds for timestamps; ``str``; ``bytes``; ``Decimal`` or ``int``; ``bool``."""
        name = self.name
        if isinstance(value, bool):
            if name == "boolean":
                return value
        elif name in ("int", "long") and isinstance(value, int):
            return value
        elif (
            name == "date"
            and isinstance(value, int | datetime.date)
            and not isinstance(value, datetime.datetime)
        ):
            return value if isinstance(value, int) else (value - _EPOCH_DATE).days
        elif name in ("timestamp", "timestamptz") and isinstance(value, int | datetime.datetime):
            return value if isinstance(value, int) else _micros(value)
        elif name == "string" and isinstance(value, str):
            return value
        elif name == "binary" and isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        elif name == "decimal" and isinstance(value, int | decimal.Decimal):
            if isinstance(value, decimal.Decimal) and not value.is_finite():
                raise FloeError(f"Cannot look up {value!r} in {what}: not a finite decimal")
            return decimal.Decimal(value)
        raise FloeError(
            f"Cannot look up {value!r} ({type(value).__name__}) in {what}: the column's type is "
            f"{self}, which takes {_ACCEPTED[name]}"
        )

    def parse(self, text: str, what: str) -> Any:
        """A value of this type written as text (command lines): an integer, an ISO date or
        datetime, a decimal, ``true``/``false``, hex digits for binary; strings as they are."""
        try:
            if self.name in ("int", "long"):
                return int(text)
            if self.name == "date":
                return datetime.date.fromisoformat(text)
            if self.name in ("timestamp", "timestamptz"):
                return datetime.datetime.fromisoformat(text)
            if self.name == "decimal":
                return decimal.Decimal(text)
            if self.name == "binary":
                return bytes.fromhex(text)
        except (ValueError, decimal.InvalidOperation) as e:
            raise FloeError(
                f"Cannot read {text!r} as a value of type {self} for {what}: {e}"
            ) from e
        if self.name == "boolean":
            if text.lower() not in ("true", "false"):
                raise FloeError(f"Cannot read {text!r} as a boolean for {what}: use true or false")
            return text.lower() == "true"
        return text


_ACCEPTED = {
    "boolean": "bool",
    "int": "int",
    "long": "int",
    "date": "datetime.date or int (days since 1970-01-01)",
    "timestamp": "datetime.datetime (naive means UTC) or int (microseconds since the epoch)",
    "timestamptz": "datetime.datetime (naive means UTC) or int (microseconds since the epoch)",
    "string": "str",
    "binary": "bytes",
    "decimal": "decimal.Decimal or int",
}


def _micros(value: datetime.datetime) -> int:
    if value.tzinfo is not None:
        value = value.astimezone(datetime.UTC).replace(tzinfo=None)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _check_length(key_type: KeyType, actual: int, allowed: tuple[int, ...]) -> None:
    if actual not in allowed:
        sizes = " or ".join(str(a) for a in allowed)
        raise ValueError(f"Invalid serialized {key_type}: expected {sizes} bytes, found {actual}")
