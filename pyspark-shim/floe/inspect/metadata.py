"""Finding and reading a table's current metadata file (``metadata/v<N>.metadata.json``)."""

from __future__ import annotations

import gzip
import io
import json
import re
import urllib.parse
import zlib
from pathlib import Path
from typing import Any

from floe.errors import FloeError, NoSuchTableError
from floe.inspect._paths import local_path

_VERSIONED = re.compile(r"^v(\d+)(?:\.gz)?\.metadata\.json(?:\.gz)?$")


def _percent_hint(table_location: str, path: Path) -> str:
    """A hint when ``table_location`` is a percent-encoded file: URI of a table: locations are read
    as table metadata writes them (as Hadoop paths, ``%20`` is not a space)."""
    decoded = Path(urllib.parse.unquote(str(path)))
    if "%" not in str(path) or not (decoded / "metadata").is_dir():
        return ""
    return (
        f" (file: locations are not percent-decoded, as in table metadata; the table at "
        f"{decoded} is given as that path or as file://{decoded})"
    )


def metadata_file(table_location: str) -> Path:
    """Return the current metadata file of the table at ``table_location``.

    Reads ``metadata/version-hint.text``; when it is missing or unreadable, takes the highest
    ``v<N>.metadata.json``; then probes ``v<N+1>``, ``v<N+2>``... as a stale hint may lag behind.
    A path to a ``*.metadata.json`` file is returned as is.
    """
    path = local_path(table_location)
    if path.is_file() and ".metadata.json" in path.name:
        return path
    metadata_dir = path / "metadata"
    if not metadata_dir.is_dir():
        raise NoSuchTableError(
            f"Cannot find table metadata: {metadata_dir} is not a directory"
            + _percent_hint(table_location, path)
        )
    hinted = _hint_version(metadata_dir)
    version = hinted
    if version is None or _versioned_file(metadata_dir, version) is None:
        version = _highest_listed_version(metadata_dir)
        if hinted is not None and hinted > 0 and (version is None or version < hinted):
            # The hint is written after its version is published: the current file was lost.
            # Reading an older version instead would silently show an old snapshot.
            raise FloeError(
                f"Cannot load table metadata: {metadata_dir / f'v{hinted}.metadata.json'} is "
                f"missing (version-hint.text names version {hinted}, the newest file found is "
                f"{'none' if version is None else f'v{version}.metadata.json'})"
            )
    if version is None:
        raise NoSuchTableError(
            f"Cannot find table metadata in {metadata_dir}: no version-hint.text and no "
            "v<N>.metadata.json file"
        )
    while _versioned_file(metadata_dir, version + 1) is not None:
        version += 1
    found = _versioned_file(metadata_dir, version)
    assert found is not None
    return found


# Keys every reader needs; the spec requires more for v2, but pyiceberg-written files omit some.
_REQUIRED_KEYS = ("format-version", "location", "last-updated-ms", "last-column-id")


def load_table_metadata(table_location: str) -> dict[str, Any]:
    """Return the parsed current metadata JSON of the table at ``table_location``."""
    path = metadata_file(table_location)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(path, raw)
    try:
        parsed = json.loads(raw)
    except ValueError as e:
        raise FloeError(f"Invalid table metadata file {path}: {e}") from e
    except RecursionError as e:
        raise FloeError(f"Invalid table metadata file {path}: JSON nested too deeply") from e
    if not isinstance(parsed, dict):
        raise FloeError(f"Invalid table metadata file {path}: expected a JSON object")
    missing = [key for key in _REQUIRED_KEYS if key not in parsed]
    if missing:
        fields = ", ".join(missing)
        raise FloeError(f"Invalid table metadata file {path}: missing field(s) {fields}")
    return parsed


# Unzipped metadata may be this many times the file (at least 64 MiB), as in the JVM reader: JSON
# compresses about 10 times, while a crafted file expands a thousand times.
_GZIP_RATIO_LIMIT = 100


def _gunzip(path: Path, raw: bytes) -> bytes:
    limit = max(64 << 20, _GZIP_RATIO_LIMIT * len(raw))
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as f:
            data = f.read(limit + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise FloeError(f"Invalid table metadata file {path}: not valid gzip ({e})") from e
    if len(data) > limit:
        raise FloeError(
            f"Invalid table metadata file {path}: gzip data expands past {limit} bytes, more than "
            "table metadata holds"
        )
    return data


def find_snapshot(
    metadata: dict[str, Any], snapshot_id: int | None = None
) -> dict[str, Any] | None:
    """Return the snapshot ``snapshot_id``, or the current one (None if the table has none)."""
    if snapshot_id is None:
        current = metadata.get("current-snapshot-id")
        if current is None or current == -1:
            return None
        snapshot_id = int(current)
    for snapshot in metadata.get("snapshots", []):
        if snapshot.get("snapshot-id") == snapshot_id:
            return dict(snapshot)
    raise FloeError(f"Cannot find snapshot {snapshot_id} in table {metadata.get('location')}")


def _hint_version(metadata_dir: Path) -> int | None:
    try:
        hint = (metadata_dir / "version-hint.text").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    # as the JVM reader: a hint that is not a version number (an int) is ignored
    if not hint.isdigit() or len(hint) > 10 or int(hint) > 2**31 - 1:
        return None
    return int(hint)


def _highest_listed_version(metadata_dir: Path) -> int | None:
    versions = [int(m.group(1)) for p in metadata_dir.iterdir() if (m := _VERSIONED.match(p.name))]
    return max(versions, default=None)


def _versioned_file(metadata_dir: Path, version: int) -> Path | None:
    for name in (
        f"v{version}.metadata.json",
        f"v{version}.gz.metadata.json",
        f"v{version}.metadata.json.gz",
    ):
        candidate = metadata_dir / name
        if candidate.is_file():
            return candidate
    return None
