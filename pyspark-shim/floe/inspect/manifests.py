"""Reading manifest lists and manifests (Avro) with fastavro."""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from floe.errors import FloeError
from floe.inspect._paths import local_path

# data_file fields stored as Avro arrays of {key, value} records (int-keyed maps).
_MAP_FIELDS = (
    "column_sizes",
    "value_counts",
    "null_value_counts",
    "nan_value_counts",
    "lower_bounds",
    "upper_bounds",
)
_ADDED = 1
# Decompressed bytes an Avro file may hold, as in the JVM reader: 32 times its size, at least
# 64 MiB.
_MIN_INFLATED = 64 << 20
_INFLATION_RATIO = 32


def read_avro(path: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Return the key-value metadata and the records of the Avro file at ``path``."""
    import fastavro

    local = local_path(path)
    try:
        data = local.read_bytes()
        _check_container(data, local)
        reader = fastavro.reader(io.BytesIO(data))
        records = [_record(record, local) for record in reader]
        meta = {
            k: v.decode() if isinstance(v, bytes) else str(v) for k, v in reader.metadata.items()
        }
    except OSError as e:
        raise FloeError(f"Cannot read Avro file {local}: {e}") from e
    except (ValueError, EOFError, KeyError, IndexError, TypeError, OverflowError, zlib.error) as e:
        # fastavro's errors on damaged bytes: what it read does not follow the schema or codec
        raise FloeError(f"Invalid Avro file {local}: {type(e).__name__}: {e}") from e
    return meta, records


def _check_container(data: bytes, path: Path) -> None:
    """Checks the magic, the header's counts and lengths and every block's size and decompressed
    size (deflate, zstandard) before fastavro reads the file: fastavro allocates what a count
    declares and inflates a block whole, so a crafted file of a few KiB could take gigabytes."""
    if data[:4] != b"Obj\x01":
        raise FloeError(f"Invalid Avro file {path}: no magic bytes Obj\\x01 at offset 0")
    pos = 4
    header: dict[bytes, bytes] = {}
    while True:
        count, pos = _varint(data, pos, path)
        if count == 0:
            break
        if count < 0:
            count = -count
            _, pos = _varint(data, pos, path)
        if count > len(data) - pos:
            raise FloeError(
                f"Invalid Avro file {path}: header declares {count} entries at offset {pos}"
            )
        for _ in range(count):
            key, pos = _bytes(data, pos, path)
            header[key], pos = _bytes(data, pos, path)
    codec = header.get(b"avro.codec", b"null").decode("utf-8", "replace")
    budget = max(_MIN_INFLATED, _INFLATION_RATIO * len(data))
    pos += 16
    while pos < len(data):
        _, pos = _varint(data, pos, path)
        block, pos = _bytes(data, pos, path)
        pos += 16
        budget -= _inflated_size(codec, block, budget, path)


def _inflated_size(codec: str, block: bytes, budget: int, path: Path) -> int:
    import zstandard

    try:
        if codec == "deflate":
            size = len(zlib.decompressobj(-15).decompress(block, budget + 1))
        elif codec == "zstandard":
            with zstandard.ZstdDecompressor().stream_reader(block) as reader:
                size = len(reader.read(budget + 1))
        else:
            return 0
    except (zlib.error, zstandard.ZstdError) as e:
        raise FloeError(f"Invalid Avro file {path}: invalid {codec} block ({e})") from e
    if size > budget:
        raise FloeError(
            f"Invalid Avro file {path}: {codec} blocks expand past the limit for the file"
        )
    return size


def _bytes(data: bytes, pos: int, path: Path) -> tuple[bytes, int]:
    length, pos = _varint(data, pos, path)
    if length < 0 or length > len(data) - pos:
        raise FloeError(f"Invalid Avro file {path}: length {length} at offset {pos} past the end")
    return data[pos : pos + length], pos + length


def _varint(data: bytes, pos: int, path: Path) -> tuple[int, int]:
    raw = 0
    for shift in range(0, 70, 7):
        if pos >= len(data):
            raise FloeError(f"Invalid Avro file {path}: the header ends at offset {pos}")
        b = data[pos]
        pos += 1
        raw |= (b & 0x7F) << shift
        if not b & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
    raise FloeError(f"Invalid Avro file {path}: a varint longer than 10 bytes at offset {pos}")


def _record(record: object, path: Path) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise FloeError(
            f"Invalid Avro file {path}: expected records, found {type(record).__name__}"
        )
    return record


def read_manifest_list(path: str) -> list[dict[str, Any]]:
    """Return the manifest-list records (``manifest_file``) of the file at ``path``."""
    return read_avro(path)[1]


def read_manifest(path: str, manifest: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Return the entries (``manifest_entry``) of the manifest at ``path``, DELETED ones included.

    Int-keyed maps of ``data_file`` (column sizes, counts, bounds) become dicts. Given the
    manifest's record from the manifest list, entries inherit what they leave null: the snapshot
    id (from ``added_snapshot_id``) and, for ADDED entries, the sequence numbers.
    """
    entries = read_avro(path)[1]
    for entry in entries:
        data_file = entry.get("data_file")
        if isinstance(data_file, dict):
            for name in _MAP_FIELDS:
                if isinstance(data_file.get(name), list):
                    data_file[name] = _int_map(data_file[name], name, path)
        if manifest is not None:
            _inherit(entry, manifest)
    return entries


def _int_map(items: list[Any], name: str, path: str) -> dict[Any, Any]:
    if not all(isinstance(kv, dict) and "key" in kv and "value" in kv for kv in items):
        raise FloeError(
            f"Invalid manifest {path}: field {name} is not an array of key/value records"
        )
    return {kv["key"]: kv["value"] for kv in items}


def _inherit(entry: dict[str, Any], manifest: Mapping[str, Any]) -> None:
    if entry.get("snapshot_id") is None:
        entry["snapshot_id"] = manifest.get("added_snapshot_id")
    manifest_seq = manifest.get("sequence_number", 0)  # v1 manifest lists have none: 0
    for key in ("sequence_number", "file_sequence_number"):
        if key not in entry:
            entry[key] = 0
        elif entry[key] is None and entry.get("status") == _ADDED:
            entry[key] = manifest_seq
