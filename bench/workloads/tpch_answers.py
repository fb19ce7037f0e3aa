"""A stable digest of a query's answer, so that engines' answers can be checked equal."""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

#: Decimal places kept for DECIMAL and DOUBLE values: the engines may add doubles in another
#: order, and averages of decimals may carry a different scale.
PLACES = 4
_WIDE = decimal.Context(prec=400)


def normalize(value: Any) -> str:
    """One value as text: decimals and doubles rounded to :data:`PLACES` places."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float | decimal.Decimal):
        exact = decimal.Decimal(repr(value) if isinstance(value, float) else value)
        if not exact.is_finite():
            return str(exact)
        # precision enough for any DECIMAL(38) or double at PLACES places (the default 28
        # digits would raise InvalidOperation from 10^24 on)
        rounded = exact.quantize(
            decimal.Decimal(1).scaleb(-PLACES), rounding=decimal.ROUND_HALF_EVEN, context=_WIDE
        )
        return str(rounded.normalize(_WIDE) if rounded != 0 else decimal.Decimal(0))
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return str(value)


def digest(rows: Iterable[Sequence[Any]]) -> str:
    """SHA-256 (first 16 hex digits) of the sorted, normalized rows, with the row count."""
    lines = sorted("|".join(normalize(v) for v in row) for row in rows)
    text = "\n".join(lines)
    return f"{len(lines)}:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}"
