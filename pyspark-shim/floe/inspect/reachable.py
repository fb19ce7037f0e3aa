"""Every file a table's current metadata reaches, found without a JVM: what maintenance must keep.

From the current metadata file: the files of its metadata log and ``version-hint.text``; for
every snapshot it holds (of any branch or tag, or of none, like a staged snapshot) its manifest
list, its manifests and their live (ADDED or EXISTING) data files, delete files and deletion-vector
Puffin files; the statistics and partition-statistics files; and the index lists named by the
current metadata and by each previous metadata file that still exists, with their segments.

The walk does not stop at a missing or unreadable file: it is recorded in ``unreadable`` and the
files it would have led to are not known. Locations are compared as local paths with the scheme
(``file:``, ``file://``, ``file:///``) and repeated slashes removed, without following links.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from floe.errors import FloeError
from floe.inspect._paths import local_path
from floe.inspect.index_list import read_index_list
from floe.inspect.manifests import read_manifest, read_manifest_list
from floe.inspect.metadata import load_table_metadata, metadata_file

_DELETED = 2
_CONTENT_KINDS = {0: "data", 1: "position-deletes", 2: "equality-deletes"}
_SLASHES = re.compile(r"/{2,}")


@dataclass
class Reachability:
    """The files a table's metadata reaches, by local path, each with what it is."""

    #: ``metadata``, ``metadata-log``, ``version-hint``, ``manifest-list``, ``manifest``,
    #: ``data``, ``position-deletes``, ``deletion-vector``, ``equality-deletes``, ``statistics``,
    #: ``partition-statistics``, ``index-list``, ``index-segment``.
    files: dict[Path, str] = field(default_factory=dict)
    #: Snapshot ids walked, and each ref's snapshot id.
    snapshots: list[int] = field(default_factory=list)
    refs: dict[str, int] = field(default_factory=dict)
    #: Files the walk needed to read and could not, with the reason (their files are unknown).
    unreadable: dict[Path, str] = field(default_factory=dict)

    def missing(self) -> list[Path]:
        """The reachable files that do not exist (a maintenance bug, or a corrupt table)."""
        return sorted(p for p in self.files if not os.path.lexists(p))

    def inside(self, root: str | Path) -> set[Path]:
        """The reachable files below ``root`` (compared as normalized local paths)."""
        prefix = str(normalized(str(root))).rstrip("/") + "/"
        return {p for p in self.files if str(p).startswith(prefix)}


def normalized(location: str) -> Path:
    """The local path of ``location`` with the scheme, repeated slashes and ``.``/``..`` removed."""
    text = _SLASHES.sub("/", str(local_path(location)))
    return Path(os.path.normpath(text))


def reachable_files(table_location: str) -> Reachability:
    """Walk the table at ``table_location`` (see the module comment)."""
    found = Reachability()
    metadata = load_table_metadata(table_location)
    root = local_path(table_location)
    if root.is_file():  # a metadata file was given: the table's folder is two levels up
        root = root.parent.parent
    found.files[normalized(str(metadata_file(table_location)))] = "metadata"
    found.files.setdefault(normalized(str(root / "metadata" / "version-hint.text")), "version-hint")
    previous: list[dict[str, Any]] = []
    for entry in metadata.get("metadata-log", []):
        path = normalized(entry["metadata-file"])
        found.files.setdefault(path, "metadata-log")
        if path.exists():
            parsed = _json(path, found)
            if parsed is not None:
                previous.append(parsed)
    for kind in ("statistics", "partition-statistics"):
        for stats in metadata.get(kind, []):
            found.files.setdefault(normalized(stats["statistics-path"]), kind)
    for name, ref in metadata.get("refs", {}).items():
        found.refs[name] = int(ref["snapshot-id"])
    for snapshot in metadata.get("snapshots", []):
        found.snapshots.append(int(snapshot["snapshot-id"]))
        _walk_snapshot(snapshot, found)
    for version in (metadata, *previous):
        _walk_indexes(version, found)
    return found


def _walk_snapshot(snapshot: dict[str, Any], found: Reachability) -> None:
    manifest_list = snapshot.get("manifest-list")
    if manifest_list is None:
        for manifest in snapshot.get("manifests", []):  # format v1 without a manifest list
            _walk_manifest({"manifest_path": manifest}, found)
        return
    path = normalized(manifest_list)
    found.files.setdefault(path, "manifest-list")
    try:
        manifests = read_manifest_list(manifest_list)
    except FloeError as e:
        found.unreadable[path] = str(e)
        return
    for manifest in manifests:
        _walk_manifest(manifest, found)


def _walk_manifest(manifest: dict[str, Any], found: Reachability) -> None:
    path = normalized(manifest["manifest_path"])
    if found.files.get(path) == "manifest":
        return  # shared by several snapshots: read once
    found.files[path] = "manifest"
    try:
        listed = manifest if "added_snapshot_id" in manifest else None
        entries = read_manifest(manifest["manifest_path"], listed)
    except FloeError as e:
        found.unreadable[path] = str(e)
        return
    for entry in entries:
        if entry["status"] == _DELETED:
            continue
        data_file = entry["data_file"]
        kind = _CONTENT_KINDS.get(int(data_file.get("content", 0)), "data")
        if kind == "position-deletes" and str(data_file.get("file_format", "")).upper() == "PUFFIN":
            kind = "deletion-vector"
        found.files.setdefault(normalized(data_file["file_path"]), kind)


def _walk_indexes(metadata: dict[str, Any], found: Reachability) -> None:
    location = metadata.get("properties", {}).get("floe.indexes")
    if not isinstance(location, str) or not location.strip():
        return
    path = normalized(location.strip())
    if found.files.get(path) == "index-list":
        return
    found.files[path] = "index-list"
    try:
        indexes = read_index_list(metadata)
    except FloeError as e:
        found.unreadable[path] = str(e)
        return
    for index in indexes:
        for segment in index.segments:
            found.files.setdefault(normalized(segment.path), "index-segment")


def _json(path: Path, found: Reachability) -> dict[str, Any] | None:
    try:
        raw = path.read_bytes()
        parsed = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    except (OSError, ValueError, EOFError) as e:
        found.unreadable[path] = f"Cannot read metadata file {path}: {e}"
        return None
    return parsed if isinstance(parsed, dict) else None
