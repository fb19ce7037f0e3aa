"""Reading one index segment: a Puffin file with three Floe-only blobs (docs/indexes.md, 'Segment
files'), one class per byte layout, as io.floe.format.index writes them. Integers are
little-endian, lengths unsigned LEB128 varints, keys single-value serialized
(``floe.inspect._index_keys``).

``floe-index-files-v1`` (zstd), :class:`CoveredFiles`::

    int32      n = number of covered data files
    n times    varint length, UTF-8 full path (a file's ordinal is its position here)

``floe-index-directory-v1`` (zstd), :class:`IndexDirectory`::

    int8       version (1)
    int8       index type: 0 inverted, 1 btree
    int32      number of covered files (as in the files blob)
    int64      number of entries (distinct keys) in all pages
    int32      p = number of pages
    p times    int64 offset in the pages blob, int32 stored (zstd) length, int32 length,
               int32 entries, varint length + first key, varint length + last key
    varint length + portable Roaring bitmap: ordinals of the files holding a null
    varint length + portable Roaring bitmap: ordinals of the files holding a non-null value

``floe-index-pages-v1`` (no Puffin codec; each page one zstd frame), :class:`IndexPage`::

    int32      n = number of entries, keys strictly ascending
    n times    varint length, key bytes
               inverted: varint length, portable Roaring bitmap of file ordinals
               btree:    varint m, then m varints: the first ordinal, then the gaps to the next

Every problem is a ``floe.errors.IndexFileError`` naming the table, the index and the file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from floe.errors import FloeError, IndexFileError
from floe.inspect._blob_bytes import BlobIn, Malformed
from floe.inspect._index_keys import Key, KeyType
from floe.inspect._paths import local_path
from floe.inspect.index_list import IndexDefinition, IndexSegment
from floe.inspect.puffin import read_puffin, read_puffin_blob, read_puffin_range
from floe.inspect.roaring import read_roaring_bitmap

FILES_BLOB = "floe-index-files-v1"
DIRECTORY_BLOB = "floe-index-directory-v1"
PAGES_BLOB = "floe-index-pages-v1"
INDEX_TYPE_PROPERTY = "floe.index.type"
DIRECTORY_VERSION = 1
TYPE_CODES = {0: "inverted", 1: "btree"}
_PAGE_REF_MIN_BYTES = 8 + 4 + 4 + 4 + 1 + 1
_FALLBACK = (
    ". Queries scan without this index until it is rebuilt (CALL floe.system.rewrite_index) "
    "or dropped (DROP INDEX)"
)
T = TypeVar("T")


@dataclass(frozen=True)
class CoveredFiles:
    """The data files a segment covers, in ordinal order."""

    paths: tuple[str, ...]

    @staticmethod
    def from_bytes(data: bytes) -> CoveredFiles:
        reader = BlobIn(data, FILES_BLOB)
        n = reader.count("file count", 1)
        paths = tuple(reader.utf8(f"path of file {i}") for i in range(n))
        reader.end()
        if len(set(paths)) != n:
            raise reader.malformed("paths", f"{n} distinct paths", f"{len(set(paths))} distinct")
        return CoveredFiles(paths)


@dataclass(frozen=True)
class PageRef:
    """Where one page is in the pages blob and which keys it holds."""

    offset: int
    stored_length: int
    length: int
    entries: int
    first_key: Key
    last_key: Key


@dataclass(frozen=True)
class IndexDirectory:
    """The page directory and the null / non-null file bitmaps of a segment."""

    type: str
    file_count: int
    entry_count: int
    pages: tuple[PageRef, ...]
    null_files: frozenset[int]
    value_files: frozenset[int]

    @staticmethod
    def from_bytes(data: bytes, key_type: KeyType) -> IndexDirectory:
        reader = BlobIn(data, DIRECTORY_BLOB)
        version = reader.int8("version")
        if version != DIRECTORY_VERSION:
            raise reader.malformed(
                "version", f"version {DIRECTORY_VERSION}", f"version {version} (a newer Floe?)"
            )
        code = reader.int8("index type")
        if code not in TYPE_CODES:
            raise reader.malformed("index type", "0 (inverted) or 1 (btree)", str(code))
        file_count = reader.int32("file count")
        entry_count = reader.int64("entry count")
        pages: list[PageRef] = []
        for i in range(reader.count("page count", _PAGE_REF_MIN_BYTES)):
            pages.append(_page_ref(reader, key_type, i, pages[-1] if pages else None))
        page_entries = sum(p.entries for p in pages)
        if file_count < 0 or page_entries != entry_count:
            raise reader.malformed(
                "entry count", f"the sum of the pages' entries, {page_entries}", str(entry_count)
            )
        bitmaps = [_bitmap(reader, field, file_count) for field in ("null files", "value files")]
        reader.end()
        return IndexDirectory(
            TYPE_CODES[code], file_count, entry_count, tuple(pages), bitmaps[0], bitmaps[1]
        )


def _page_ref(reader: BlobIn, key_type: KeyType, i: int, previous: PageRef | None) -> PageRef:
    field = f"page {i}"
    offset = reader.int64(field + " offset")
    stored = reader.int32(field + " stored length")
    length = reader.int32(field + " length")
    entries = reader.int32(field + " entries")
    first = _key(reader, key_type, field + " first key")
    last = _key(reader, key_type, field + " last key")
    if (
        offset < 0
        or stored <= 0
        or length < 4
        or entries <= 0
        or (previous is not None and offset != previous.offset + previous.stored_length)
    ):
        raise reader.malformed(
            field,
            "pages stored back to back with positive lengths and entries",
            f"offset {offset}, stored length {stored}, length {length}, entries {entries}",
        )
    if first > last or (previous is not None and previous.last_key >= first):  # type: ignore[operator]
        raise reader.malformed(
            field, "key ranges ascending without overlap", f"[{first!r}, {last!r}]"
        )
    return PageRef(offset, stored, length, entries, first, last)


def _key(reader: BlobIn, key_type: KeyType, field: str) -> Key:
    raw = reader.length_prefixed(field)
    try:
        return key_type.decode(raw)
    except ValueError as e:
        raise reader.malformed(field, f"a serialized {key_type}", str(e)) from e


def _bitmap(reader: BlobIn, field: str, file_count: int) -> frozenset[int]:
    values = read_roaring_bitmap(reader.length_prefixed(field), f"{reader.what} ({field})")
    if values and values[-1] >= file_count:
        raise reader.malformed(field, f"ordinals below {file_count}", str(values[-1]))
    return frozenset(values)


@dataclass(frozen=True)
class IndexPage:
    """One page: ascending keys, each with the ordinals of the covered files holding it."""

    keys: tuple[Key, ...]
    files: tuple[tuple[int, ...], ...]

    @staticmethod
    def decode(
        index_type: str, key_type: KeyType, body: bytes, file_count: int, what: str
    ) -> IndexPage:
        reader = BlobIn(body, what)
        keys: list[Key] = []
        files: list[tuple[int, ...]] = []
        for i in range(reader.count("entry count", 2)):
            key = _key(reader, key_type, f"key {i}")
            if keys and keys[-1] >= key:  # type: ignore[operator]
                raise reader.malformed(f"key {i}", f"a key above {keys[-1]!r}", repr(key))
            field = f"files of key {i}"
            if index_type == "inverted":
                ordinals = read_roaring_bitmap(reader.length_prefixed(field), f"{what} ({field})")
            else:
                ordinals = _ordinals(reader, field)
            if not ordinals or ordinals[-1] >= file_count:
                found = f"ordinal {ordinals[-1]}" if ordinals else "none"
                raise reader.malformed(
                    field, f"1 to {file_count} ordinals below {file_count}", found
                )
            keys.append(key)
            files.append(tuple(ordinals))
        reader.end()
        return IndexPage(tuple(keys), tuple(files))


def _ordinals(reader: BlobIn, field: str) -> list[int]:
    ordinals: list[int] = []
    ordinal = 0
    for j in range(reader.varint32(field)):
        gap = reader.varint(field)
        ordinal += gap
        if (j > 0 and gap == 0) or ordinal > 2**31 - 1:
            raise reader.malformed(field, "ascending ordinals", f"gap {gap} to {ordinal}")
        ordinals.append(ordinal)
    return ordinals


class SegmentReader:
    """Reads one segment lazily: footer, then the directory and files blobs, then only the
    pages a lookup asks for (``pages_read`` counts them)."""

    def __init__(
        self, table: str, index: IndexDefinition, segment: IndexSegment, key_type: KeyType
    ) -> None:
        self.table = table
        self.index = index
        self.segment = segment
        self.key_type = key_type
        self.pages_read = 0
        self._blobs: dict[str, Mapping[str, Any]] | None = None
        self._files: CoveredFiles | None = None
        self._directory: IndexDirectory | None = None
        self._pages: dict[int, IndexPage] = {}

    def covered_files(self) -> CoveredFiles:
        if self._files is None:
            data = self._read(lambda: read_puffin_blob(self.segment.path, self._blob(FILES_BLOB)))
            files = self._guard(lambda: CoveredFiles.from_bytes(data))
            if len(files.paths) != self.segment.covered_file_count:
                raise self._corrupt(
                    FILES_BLOB,
                    f"{self.segment.covered_file_count} files (as the index list says)",
                    str(len(files.paths)),
                )
            self._files = files
        return self._files

    def directory(self) -> IndexDirectory:
        if self._directory is None:
            blob = self._blob(DIRECTORY_BLOB)
            data = self._read(lambda: read_puffin_blob(self.segment.path, blob))
            directory = self._guard(lambda: IndexDirectory.from_bytes(data, self.key_type))
            if directory.type != self.index.type:
                raise self._corrupt(DIRECTORY_BLOB, f"index type {self.index.type}", directory.type)
            if directory.file_count != self.segment.covered_file_count:
                raise self._corrupt(
                    DIRECTORY_BLOB,
                    f"{self.segment.covered_file_count} covered files",
                    str(directory.file_count),
                )
            self._directory = directory
        return self._directory

    def page(self, number: int) -> IndexPage:
        page = self._pages.get(number)
        if page is not None:
            return page
        ref = self.directory().pages[number]
        blob = self._blob(PAGES_BLOB)
        where = f"page {number}"
        if ref.offset + ref.stored_length > int(blob["length"]):
            raise self._corrupt(
                where,
                f"a page within the {blob['length']} bytes of the pages blob",
                f"offset {ref.offset}, length {ref.stored_length}",
            )
        start = int(blob["offset"]) + ref.offset
        stored = self._read(lambda: read_puffin_range(self.segment.path, start, ref.stored_length))
        body = self._guard(lambda: _decompress(stored, ref.length, where))
        page = self._guard(
            lambda: IndexPage.decode(
                self.index.type, self.key_type, body, self.directory().file_count, where
            )
        )
        if (
            len(page.keys) != ref.entries
            or page.keys[0] != ref.first_key
            or page.keys[-1] != ref.last_key
        ):
            raise self._corrupt(
                where,
                f"{ref.entries} keys from {ref.first_key!r} to {ref.last_key!r} (as the "
                "directory says)",
                f"{len(page.keys)} keys from {page.keys[0]!r} to {page.keys[-1]!r}",
            )
        self.pages_read += 1
        self._pages[number] = page
        return page

    def _blob(self, blob_type: str) -> Mapping[str, Any]:
        if self._blobs is None:
            self._blobs = self._check_footer()
        return self._blobs[blob_type]

    def _check_footer(self) -> dict[str, Mapping[str, Any]]:
        path = self.segment.path
        try:
            size = local_path(path).stat().st_size
        except OSError as e:
            raise self._unreadable(f"the file cannot be read ({e})") from e
        if size != self.segment.file_size_in_bytes:
            raise self._corrupt(
                "file size",
                f"{self.segment.file_size_in_bytes} bytes (as the index list says)",
                f"{size} bytes",
            )
        footer = self._read(lambda: read_puffin(path))
        kind = footer["properties"].get(INDEX_TYPE_PROPERTY)
        if kind is not None and kind != self.index.type:
            raise self._corrupt(f"file property {INDEX_TYPE_PROPERTY}", self.index.type, str(kind))
        blobs: dict[str, Mapping[str, Any]] = {}
        known = (FILES_BLOB, DIRECTORY_BLOB, PAGES_BLOB)
        for blob in footer["blobs"]:
            where = f"blob at offset {blob['offset']}"
            if blob["type"] not in known:
                expected = f"blob types {', '.join(known)}"
                raise self._corrupt(where, expected, f"{blob['type']} (a newer Floe?)")
            if blob["type"] in blobs:
                raise self._corrupt(where, f"one {blob['type']} blob", "two")
            if list(blob["fields"]) != [self.index.source_field_id]:
                expected = f"fields [{self.index.source_field_id}] (the indexed field)"
                raise self._corrupt(where, expected, str(blob["fields"]))
            blobs[blob["type"]] = blob
        if len(blobs) != len(known):
            expected = f"one blob each of {', '.join(known)}"
            raise self._corrupt("footer", expected, "a footer without them all")
        codec = blobs[PAGES_BLOB].get("compression-codec")
        if codec is not None and codec != "none":
            expected = "an uncompressed blob (pages are compressed one by one)"
            raise self._corrupt(PAGES_BLOB, expected, str(codec))
        return blobs

    def _read(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except IndexFileError:
            raise
        except FloeError as e:
            raise self._unreadable(str(e)) from e

    def _guard(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except Malformed as e:
            raise self._corrupt(e.where, e.expected, e.found) from e

    def _unreadable(self, problem: str) -> IndexFileError:
        return IndexFileError(
            f"Cannot read segment {self.segment.path} of index {self.index.name} on table "
            f"{self.table}: {problem}{_FALLBACK}",
            table=self.table,
            index=self.index.name,
            path=self.segment.path,
        )

    def _corrupt(self, where: str, expected: str, found: str) -> IndexFileError:
        return IndexFileError(
            f"Invalid segment {self.segment.path} of index {self.index.name} on table "
            f"{self.table}: {where}, expected {expected}, found {found}{_FALLBACK}",
            table=self.table,
            index=self.index.name,
            path=self.segment.path,
        )


def _decompress(stored: bytes, length: int, what: str) -> bytes:
    import zstandard

    try:
        decompressor = zstandard.ZstdDecompressor().decompressobj()
        body = bytes(decompressor.decompress(stored))
        complete = decompressor.eof and not decompressor.unused_data
    except zstandard.ZstdError as e:
        raise Malformed(what, f"a zstd frame of {length} bytes", str(e)) from e
    if not complete:
        raise Malformed(what, "exactly one complete zstd frame", "a truncated or longer one")
    if len(body) != length:
        raise Malformed(what, f"{length} bytes", f"{len(body)} bytes")
    return body
