"""Reading row-level deletes: v2 position delete files and v3 deletion vectors.

Which deletes apply to a data file follows the spec's sequence-number rules: a deletion vector
or position delete file applies when it references the data file (or, without a reference, is in
the same partition of the same spec) and its data sequence number is at least the data file's;
position deletes are ignored when a deletion vector applies (the vector already holds them). An
equality delete applies when its sequence number is strictly greater and it is in the same
partition or its spec is unpartitioned.

Deletion vector blob (``deletion-vector-v1``)::

    int32 BE length L | magic D1 D3 39 64 | portable 64-bit Roaring (L - 4 bytes) | uint32 BE CRC-32

The portable 64-bit Roaring format is a little-endian uint64 count of 32-bit bitmaps, then per
bitmap a little-endian uint32 key (the high 32 bits of the positions) followed by a standard
32-bit Roaring bitmap (RoaringFormatSpec).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from floe.errors import FloeError
from floe.inspect._blob_bytes import Malformed
from floe.inspect._paths import local_path
from floe.inspect.roaring import read_roaring32

if TYPE_CHECKING:
    import pyarrow as pa

DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])
FILE_PATH_ID = 2147483546
POS_ID = 2147483545
_FIELD_ID = b"PARQUET:field_id"


def read_deletion_vector(path: str, offset: int, length: int) -> set[int]:
    """Return the deleted positions in the blob at ``[offset, offset + length)`` of ``path``."""
    if offset < 0 or length < 0:
        raise FloeError(
            f"Invalid deletion vector in {path}: offset {offset} and length {length} must not be "
            "negative"
        )
    with local_path(path).open("rb") as f:
        f.seek(offset)
        blob = f.read(length)
    if len(blob) != length or length < 12:
        raise FloeError(
            f"Invalid deletion vector in {path} at offset {offset}: needs {length} bytes"
        )
    (vector_length,) = struct.unpack_from(">i", blob, 0)
    if vector_length != length - 8:
        raise FloeError(
            f"Invalid deletion vector in {path} at offset {offset}: length field {vector_length}, "
            f"expected {length - 8}"
        )
    if blob[4:8] != DV_MAGIC:
        raise FloeError(
            f"Invalid deletion vector in {path} at offset {offset}: bad magic {blob[4:8].hex()}"
        )
    (crc,) = struct.unpack_from(">I", blob, 4 + vector_length)
    if zlib.crc32(blob[4 : 4 + vector_length]) != crc:
        raise FloeError(f"Invalid deletion vector in {path} at offset {offset}: CRC mismatch")
    return _roaring64(blob[8 : 4 + vector_length], f"{path}@{offset}")


def _roaring64(data: bytes, source: str) -> set[int]:
    """Parse a portable 64-bit Roaring bitmap; every malformed byte is a FloeError naming it."""
    try:
        if len(data) < 8:
            raise Malformed("count", "8 bytes", f"{len(data)} (truncated)")
        (count,) = struct.unpack_from("<Q", data, 0)
        pos = 8
        positions: set[int] = set()
        previous_key = -1
        for i in range(count):
            if len(data) - pos < 4:
                raise Malformed(f"key of bitmap {i}", "4 bytes", f"{len(data) - pos} (truncated)")
            (key,) = struct.unpack_from("<I", data, pos)
            if key <= previous_key:
                raise Malformed(f"key of bitmap {i}", f"a key above {previous_key}", str(key))
            previous_key = key
            low, pos = read_roaring32(data, pos + 4, f"bitmap {i}")
            high = key << 32
            positions.update(high | v for v in low)
    except Malformed as e:
        raise FloeError(f"Invalid deletion vector {source}: {e}") from e
    return positions


def read_position_deletes(path: str) -> dict[str, set[int]]:
    """Return the positions a Parquet position delete file deletes, by data file path."""
    import pyarrow.parquet as pq

    table = pq.read_table(local_path(path))
    columns = {
        int(f.metadata[_FIELD_ID]): i
        for i, f in enumerate(table.schema)
        if f.metadata and _FIELD_ID in f.metadata
    }
    path_index = columns.get(FILE_PATH_ID, table.schema.get_field_index("file_path"))
    pos_index = columns.get(POS_ID, table.schema.get_field_index("pos"))
    if path_index < 0 or pos_index < 0:
        raise FloeError(f"Invalid position delete file {path}: no file_path and pos columns")
    out: dict[str, set[int]] = {}
    for data_path, pos in zip(
        table.column(path_index).to_pylist(), table.column(pos_index).to_pylist(), strict=True
    ):
        out.setdefault(str(data_path), set()).add(int(pos))
    return out


def referenced_data_file(delete_file: Mapping[str, Any]) -> str | None:
    """The data file a position delete file or deletion vector is scoped to, if any."""
    referenced = delete_file.get("referenced_data_file")
    if referenced:
        return str(referenced)
    lower = _bound(delete_file.get("lower_bounds"), FILE_PATH_ID)
    upper = _bound(delete_file.get("upper_bounds"), FILE_PATH_ID)
    if lower is not None and lower == upper:
        return lower.decode("utf-8")
    return None


def _bound(
    bounds: Iterable[Mapping[str, Any]] | Mapping[int, bytes] | None, field_id: int
) -> bytes | None:
    if bounds is None:
        return None
    if isinstance(bounds, Mapping):
        value = bounds.get(field_id)
        return bytes(value) if value is not None else None
    for item in bounds:
        if int(item["key"]) == field_id:
            return bytes(item["value"])
    return None


def _partition_key(file: Mapping[str, Any]) -> tuple[Any, ...]:
    partition = file.get("partition") or {}
    return (
        file.get("spec_id"),
        tuple(sorted((str(k), repr(v)) for k, v in dict(partition).items())),
    )


class DeleteIndex:
    """The live delete files of one snapshot, indexed for the data files they apply to."""

    def __init__(
        self, delete_files: Iterable[Mapping[str, Any]], unpartitioned_specs: set[int]
    ) -> None:
        self.dvs: dict[str, Mapping[str, Any]] = {}
        self.scoped: dict[str, list[Mapping[str, Any]]] = {}
        self.by_partition: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
        self.equality: list[Mapping[str, Any]] = []
        self.unpartitioned_specs = unpartitioned_specs
        self._position_cache: dict[str, dict[str, set[int]]] = {}
        for f in delete_files:
            if f["content"] == 2:
                self.equality.append(f)
                continue
            referenced = referenced_data_file(f)
            if str(f.get("file_format", "")).upper() == "PUFFIN":
                if referenced is None:
                    raise FloeError(
                        f"Invalid deletion vector {f['file_path']}: no referenced_data_file"
                    )
                if referenced in self.dvs:
                    raise FloeError(
                        f"Invalid snapshot: more than one deletion vector for {referenced}"
                    )
                self.dvs[referenced] = f
            elif referenced is not None:
                self.scoped.setdefault(referenced, []).append(f)
            else:
                self.by_partition.setdefault(_partition_key(f), []).append(f)

    def deleted_positions(self, data_file: Mapping[str, Any]) -> set[int]:
        """The positions of ``data_file`` deleted by a deletion vector or position deletes."""
        path = str(data_file["file_path"])
        seq = int(data_file["sequence_number"])
        dv = self.dvs.get(path)
        if dv is not None and int(dv["sequence_number"]) >= seq:
            return read_deletion_vector(
                str(dv["file_path"]), int(dv["content_offset"]), int(dv["content_size_in_bytes"])
            )
        deleted: set[int] = set()
        candidates = self.scoped.get(path, []) + self.by_partition.get(
            _partition_key(data_file), []
        )
        for f in candidates:
            if int(f["sequence_number"]) >= seq:
                location = str(f["file_path"])
                if location not in self._position_cache:
                    self._position_cache[location] = read_position_deletes(location)
                deleted |= self._position_cache[location].get(path, set())
        return deleted

    def equality_deletes(self, data_file: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The equality delete files that apply to ``data_file``."""
        seq = int(data_file["sequence_number"])
        key = _partition_key(data_file)
        return [
            f
            for f in self.equality
            if int(f["sequence_number"]) > seq
            and (f.get("spec_id") in self.unpartitioned_specs or _partition_key(f) == key)
        ]


def apply_equality_deletes(
    table: pa.Table, delete_files: list[Mapping[str, Any]], schema: pa.Schema
) -> pa.Table:
    """Drop the rows of ``table`` (projected to ``schema``) that an equality delete file matches."""
    import pyarrow.parquet as pq

    names_by_id = {int(f.metadata[_FIELD_ID]): f.name for f in schema}
    for f in delete_files:
        ids = [int(i) for i in f.get("equality_ids") or []]
        deletes = pq.read_table(local_path(str(f["file_path"])))
        delete_columns = {
            int(c.metadata[_FIELD_ID]): i
            for i, c in enumerate(deletes.schema)
            if c.metadata and _FIELD_ID in c.metadata
        }
        missing = [i for i in ids if i not in names_by_id or i not in delete_columns]
        if missing:
            raise FloeError(
                f"Cannot apply equality delete file {f['file_path']}: no field id {missing}"
            )
        keys = set(zip(*(deletes.column(delete_columns[i]).to_pylist() for i in ids), strict=True))
        rows = zip(*(table.column(names_by_id[i]).to_pylist() for i in ids), strict=True)
        mask = [row not in keys for row in rows]
        table = table.filter(mask)
    return table
