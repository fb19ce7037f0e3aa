"""Reading manifest lists and manifests (Avro) with fastavro."""

from __future__ import annotations

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


def read_avro(path: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Return the key-value metadata and the records of the Avro file at ``path``."""
    import fastavro

    local = local_path(path)
    try:
        with local.open("rb") as f:
            reader = fastavro.reader(f)
            records = [_record(record, local) for record in reader]
            meta = {
                k: v.decode() if isinstance(v, bytes) else str(v)
                for k, v in reader.metadata.items()
            }
    except OSError as e:
        raise FloeError(f"Cannot read Avro file {local}: {e}") from e
    except ValueError as e:
        raise FloeError(f"Invalid Avro file {local}: {e}") from e
    return meta, records


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
                    data_file[name] = {kv["key"]: kv["value"] for kv in data_file[name]}
        if manifest is not None:
            _inherit(entry, manifest)
    return entries


def _inherit(entry: dict[str, Any], manifest: Mapping[str, Any]) -> None:
    if entry.get("snapshot_id") is None:
        entry["snapshot_id"] = manifest.get("added_snapshot_id")
    manifest_seq = manifest.get("sequence_number", 0)  # v1 manifest lists have none: 0
    for key in ("sequence_number", "file_sequence_number"):
        if key not in entry:
            entry[key] = 0
        elif entry[key] is None and entry.get("status") == _ADDED:
            entry[key] = manifest_seq
