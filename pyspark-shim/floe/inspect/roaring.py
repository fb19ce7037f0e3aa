"""Reading the portable serialization of 32-bit Roaring bitmaps (RoaringFormatSpec,
https://github.com/RoaringBitmap/RoaringFormatSpec), strictly and without pyroaring.

Layout (all integers little-endian; offsets from the start of the bitmap)::

    cookie   uint32   12346: no run containers, then uint32 n = number of containers
                      12347 in the low 16 bits: n - 1 in the high 16 bits, then a bitset of
                      ceil(n / 8) bytes, bit i set when container i is a run container
    header   n times  uint16 key (the high 16 bits of its values), uint16 cardinality - 1
    offsets  n times  uint32 offset of the container; present with cookie 12346 or when n >= 4
    containers, in key order:
             run      uint16 r, then r times uint16 start, uint16 length - 1
             array    cardinality <= 4096: cardinality uint16 values, ascending
             bitset   cardinality > 4096: 1024 uint64 words, bit v set when v is present

A reader checks the cookie, ascending keys and values, the offsets against where the containers
really are, each container's cardinality against the header, and the total length.
"""

from __future__ import annotations

import struct

from floe.inspect._blob_bytes import Malformed

SERIAL_COOKIE_NO_RUN = 12346
SERIAL_COOKIE = 12347
NO_OFFSET_THRESHOLD = 4
MAX_CONTAINERS = 1 << 16
ARRAY_MAX = 4096
BITSET_BYTES = 8192


def read_roaring_bitmap(data: bytes, what: str) -> list[int]:
    """Return the ascending values of the bitmap that fills ``data`` exactly; ``what`` names it
    in errors (raises :class:`floe.inspect._blob_bytes.Malformed`)."""
    values, end = read_roaring32(data, 0, what)
    if end != len(data):
        raise Malformed(what, f"a Roaring bitmap of {len(data)} bytes", f"one of {end} bytes")
    return values


def read_roaring32(data: bytes, start: int, what: str) -> tuple[list[int], int]:
    """Parse the bitmap at ``data[start:]``; return its ascending values and its end offset."""
    reader = _Reader(data, start, what)
    cookie = reader.u32("cookie")
    run_flags = b""
    if cookie & 0xFFFF == SERIAL_COOKIE:
        n = (cookie >> 16) + 1
        run_flags = reader.take((n + 7) // 8, "run container bitset")
    elif cookie == SERIAL_COOKIE_NO_RUN:
        n = reader.u32("container count")
        if n > MAX_CONTAINERS:
            raise reader.malformed("container count", f"at most {MAX_CONTAINERS}", str(n))
    else:
        raise reader.malformed(
            "cookie", f"{SERIAL_COOKIE_NO_RUN} or {SERIAL_COOKIE} in the low 16 bits", str(cookie)
        )
    header = reader.take(4 * n, "container headers")
    pairs = [struct.unpack_from("<HH", header, 4 * i) for i in range(n)]
    for i in range(1, n):
        if pairs[i][0] <= pairs[i - 1][0]:
            raise reader.malformed(
                f"key of container {i}", f"a key above {pairs[i - 1][0]}", str(pairs[i][0])
            )
    offsets: tuple[int, ...] | None = None
    if not run_flags or n >= NO_OFFSET_THRESHOLD:
        offsets = struct.unpack(f"<{n}I", reader.take(4 * n, "container offsets"))
    values: list[int] = []
    for i, (key, card_minus_one) in enumerate(pairs):
        if offsets is not None and offsets[i] != reader.pos - start:
            raise reader.malformed(
                f"offset of container {i}", str(reader.pos - start), str(offsets[i])
            )
        is_run = bool(run_flags) and bool(run_flags[i // 8] & (1 << (i % 8)))
        low = _container(reader, i, card_minus_one + 1, is_run)
        base = key << 16
        values.extend(base | v for v in low)
    return values, reader.pos


def _container(reader: _Reader, i: int, cardinality: int, is_run: bool) -> list[int]:
    field = f"container {i}"
    if is_run:
        (runs,) = struct.unpack("<H", reader.take(2, field + " run count"))
        raw = reader.take(4 * runs, field + " runs")
        low: list[int] = []
        previous_end = -1
        for r in range(runs):
            begin, length = struct.unpack_from("<HH", raw, 4 * r)
            end = begin + length
            if begin <= previous_end or end > 0xFFFF:
                raise reader.malformed(
                    field, "ascending, disjoint runs within 0..65535", f"run [{begin}, {end}]"
                )
            low.extend(range(begin, end + 1))
            previous_end = end
    elif cardinality <= ARRAY_MAX:
        low = list(struct.unpack(f"<{cardinality}H", reader.take(2 * cardinality, field)))
        if any(low[j] >= low[j + 1] for j in range(len(low) - 1)):
            raise reader.malformed(field, "ascending array values", "values out of order")
    else:
        low = []
        for w, word in enumerate(struct.unpack("<1024Q", reader.take(BITSET_BYTES, field))):
            while word:
                bit = word & -word
                low.append(64 * w + bit.bit_length() - 1)
                word ^= bit
    if len(low) != cardinality:
        raise reader.malformed(field, f"{cardinality} values (as its header says)", str(len(low)))
    return low


class _Reader:
    def __init__(self, data: bytes, pos: int, what: str) -> None:
        self.data = data
        self.pos = pos
        self.what = what

    def malformed(self, field: str, expected: str, found: str) -> Malformed:
        return Malformed(
            f"{self.what}, Roaring bitmap at byte {self.pos} ({field})", expected, found
        )

    def take(self, n: int, field: str) -> bytes:
        if len(self.data) - self.pos < n:
            raise self.malformed(
                field, f"{n} more bytes", f"{len(self.data) - self.pos} (truncated bitmap)"
            )
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def u32(self, field: str) -> int:
        return int(struct.unpack("<I", self.take(4, field))[0])
