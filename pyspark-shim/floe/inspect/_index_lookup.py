"""Answering a predicate on the indexed column with one segment: the ordinals of the covered
files that may hold a match, reading the directory and only the pages whose key range meets the
predicate (as io.floe.format.index.IndexLookup does)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from floe.inspect._index_keys import Key
from floe.inspect.index_segment import PageRef, SegmentReader


@dataclass(frozen=True)
class KeyRange:
    """An interval of keys; an absent end (None) is unbounded."""

    lower: Key | None = None
    lower_inclusive: bool = True
    upper: Key | None = None
    upper_inclusive: bool = True

    @staticmethod
    def exactly(key: Key) -> KeyRange:
        return KeyRange(key, True, key, True)

    def is_empty(self) -> bool:
        if self.lower is None or self.upper is None:
            return False
        if self.lower > self.upper:  # type: ignore[operator]
            return True
        return self.lower == self.upper and not (self.lower_inclusive and self.upper_inclusive)

    def is_below(self, key: Key) -> bool:
        """True when ``key`` is below the range."""
        if self.lower is None:
            return False
        return key < self.lower or (key == self.lower and not self.lower_inclusive)  # type: ignore[operator]

    def is_above(self, key: Key) -> bool:
        """True when ``key`` is above the range."""
        if self.upper is None:
            return False
        return key > self.upper or (key == self.upper and not self.upper_inclusive)  # type: ignore[operator]


def null_files(reader: SegmentReader) -> set[int]:
    """The covered files holding a null (the directory's bitmap; no page is read)."""
    return set(reader.directory().null_files)


def range_files(reader: SegmentReader, keys: KeyRange) -> set[int]:
    """The covered files holding a key in ``keys``."""
    files: set[int] = set()
    if keys.is_empty():
        return files
    pages = reader.directory().pages
    for number in range(_first_page_ending_in(pages, keys), len(pages)):
        if keys.is_above(pages[number].first_key):
            break
        page = reader.page(number)
        start = 0 if keys.lower is None else bisect.bisect_left(page.keys, keys.lower)
        for i in range(start, len(page.keys)):
            key = page.keys[i]
            if keys.is_above(key):
                break
            if not keys.is_below(key):
                files.update(page.files[i])
    return files


def prefix_files(reader: SegmentReader, prefix: str) -> set[int]:
    """The covered files holding a string key that starts with ``prefix``."""
    if not prefix:
        return set(reader.directory().value_files)
    files: set[int] = set()
    pages = reader.directory().pages
    for number in range(_first_page_ending_in(pages, KeyRange(prefix)), len(pages)):
        first = pages[number].first_key
        if isinstance(first, str) and first > prefix and not first.startswith(prefix):
            break
        page = reader.page(number)
        for i in range(bisect.bisect_left(page.keys, prefix), len(page.keys)):
            key = page.keys[i]
            if not (isinstance(key, str) and key.startswith(prefix)):
                break
            files.update(page.files[i])
    return files


def _first_page_ending_in(pages: tuple[PageRef, ...], keys: KeyRange) -> int:
    """The first page whose last key is not below the range (binary search)."""
    lo, hi = 0, len(pages)
    while lo < hi:
        mid = (lo + hi) // 2
        if keys.is_below(pages[mid].last_key):
            lo = mid + 1
        else:
            hi = mid
    return lo
