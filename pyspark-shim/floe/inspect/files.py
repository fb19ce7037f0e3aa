"""Listing the live data and delete files of a snapshot."""

from __future__ import annotations

from typing import Any

from floe.inspect.manifests import read_manifest, read_manifest_list
from floe.inspect.metadata import find_snapshot, load_table_metadata

_DELETED = 2


def table_files(table_location: str, snapshot_id: int | None = None) -> list[dict[str, Any]]:
    """Return the live files of a snapshot (the current one by default).

    Each item is the manifest entry's ``data_file`` record (``content``: 0 data, 1 position
    deletes or deletion vectors, 2 equality deletes) plus the entry's ``status``, ``snapshot_id``,
    ``sequence_number`` and ``file_sequence_number`` (inherited values filled in), the
    ``spec_id`` and the ``manifest_path``. A table without snapshots has no files.
    """
    snapshot = find_snapshot(load_table_metadata(table_location), snapshot_id)
    if snapshot is None:
        return []
    files: list[dict[str, Any]] = []
    for manifest in read_manifest_list(snapshot["manifest-list"]):
        for entry in read_manifest(manifest["manifest_path"], manifest):
            if entry["status"] == _DELETED:
                continue
            files.append(
                {
                    "content": 0,  # v1 manifests have no content field
                    **entry["data_file"],
                    "status": entry["status"],
                    "snapshot_id": entry["snapshot_id"],
                    "sequence_number": entry["sequence_number"],
                    "file_sequence_number": entry["file_sequence_number"],
                    "spec_id": manifest["partition_spec_id"],
                    "manifest_path": manifest["manifest_path"],
                }
            )
    return files
