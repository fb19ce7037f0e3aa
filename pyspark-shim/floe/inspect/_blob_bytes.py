"""Reading the primitives of Floe's index blobs front to back: little-endian fixed-width integers,
unsigned LEB128 varints and varint-length-prefixed byte strings (docs/indexes.md).

Every read checks the bytes left and raises :class:`Malformed` saying where (the blob and the byte
offset), what was expected and what was found; the segment reader turns it into a
``floe.errors.IndexFileError`` naming the table, the index and the file.
"""

from __future__ import annotations

import struct

_MAX_VARINT_BYTES = 10
INT32_MAX = 2**31 - 1


class Malformed(Exception):
    """Bytes that do not follow their layout (internal: callers add the file and the index)."""

    def __init__(self, where: str, expected: str, found: str) -> None:
        super().__init__(f"{where}: expected {expected}, found {found}")
        self.where = where
        self.expected = expected
        self.found = found


class BlobIn:
    """Reads ``data`` front to back; ``what`` names the blob (or page) in errors."""

    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._pos = 0
        self.what = what

    @property
    def position(self) -> int:
        return self._pos

    def remaining(self) -> int:
        return len(self._data) - self._pos

    def malformed(self, field: str, expected: str, found: str) -> Malformed:
        return Malformed(f"{self.what} at byte {self._pos} ({field})", expected, found)

    def _take(self, n: int, field: str) -> bytes:
        if n < 0 or self.remaining() < n:
            raise self.malformed(field, f"{n} more bytes", f"{self.remaining()} (truncated blob)")
        out = self._data[self._pos : self._pos + n]
        self._pos += n
        return out

    def int8(self, field: str) -> int:
        return self._take(1, field)[0]

    def int32(self, field: str) -> int:
        return int(struct.unpack("<i", self._take(4, field))[0])

    def int64(self, field: str) -> int:
        return int(struct.unpack("<q", self._take(8, field))[0])

    def count(self, field: str, min_bytes_each: int) -> int:
        """A non-negative int32 no larger than the bytes left divided by ``min_bytes_each``."""
        n = self.int32(field)
        if n < 0 or n * min_bytes_each > self.remaining():
            limit = self.remaining() // max(1, min_bytes_each)
            raise self.malformed(field, f"a count from 0 to {limit}", str(n))
        return n

    def varint(self, field: str) -> int:
        value = 0
        for i in range(_MAX_VARINT_BYTES):
            b = self._take(1, field)[0]
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return value
        raise self.malformed(
            field, f"a varint of at most {_MAX_VARINT_BYTES} bytes", "a longer one"
        )

    def varint32(self, field: str) -> int:
        value = self.varint(field)
        if value > INT32_MAX:
            raise self.malformed(field, f"a value from 0 to {INT32_MAX}", str(value))
        return value

    def length_prefixed(self, field: str) -> bytes:
        return self._take(self.varint32(field), field)

    def utf8(self, field: str) -> str:
        raw = self.length_prefixed(field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.malformed(field, "UTF-8 text", f"invalid bytes ({e.reason})") from e

    def end(self) -> None:
        """Fails unless every byte was read."""
        if self.remaining():
            raise self.malformed("end", "the end of the blob", f"{self.remaining()} more bytes")
