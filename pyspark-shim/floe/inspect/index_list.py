"""Reading a table's index list: the JSON document named by the table property ``floe.indexes``
(docs/indexes.md, 'The index list and the table property').

::

    {"format-version": 1, "indexes": [
      {"name": "by_user", "type": "btree", "source-field-ids": [3],
       "properties": {"maintenance": "sync"},
       "segments": [{"path": ".../metadata/_floe_indexes/by_user/<uuid>.puffin",
                     "file-size-in-bytes": 4096, "covered-file-count": 12, "entry-count": 1000,
                     "snapshot-id": 17, "sequence-number": 4}]}]}

Unknown fields are ignored; a newer ``format-version`` is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from floe.errors import IndexFileError
from floe.inspect._paths import local_path

INDEXES_PROPERTY = "floe.indexes"
FORMAT_VERSION = 1
INDEX_TYPES = ("inverted", "btree")
MAINTENANCE = "maintenance"
DEFERRED = "deferred"


@dataclass(frozen=True)
class IndexSegment:
    """One segment as the index list records it."""

    path: str
    file_size_in_bytes: int
    covered_file_count: int
    entry_count: int
    snapshot_id: int
    sequence_number: int


@dataclass(frozen=True)
class IndexDefinition:
    """One index of the list: its name, type, indexed field ids, properties and segments."""

    name: str
    type: str
    source_field_ids: tuple[int, ...]
    properties: Mapping[str, str]
    segments: tuple[IndexSegment, ...]

    @property
    def source_field_id(self) -> int:
        return self.source_field_ids[0]

    @property
    def deferred(self) -> bool:
        """True when commits leave new files uncovered until ``rewrite_index``."""
        return self.properties.get(MAINTENANCE, "").lower() == DEFERRED


def index_list_location(metadata: Mapping[str, Any]) -> str | None:
    """The current index list file of a table (its metadata dict), or None without indexes."""
    location = metadata.get("properties", {}).get(INDEXES_PROPERTY)
    if not isinstance(location, str) or not location.strip():
        return None
    return location.strip()


def read_index_list(metadata: Mapping[str, Any]) -> tuple[IndexDefinition, ...]:
    """The indexes of a table (its metadata dict); none when the table has no index list.

    Raises ``IndexFileError`` naming the table and the file when the list is missing or invalid.
    """
    location = index_list_location(metadata)
    if location is None:
        return ()
    table = str(metadata.get("location"))
    try:
        raw = local_path(location).read_bytes()
    except OSError as e:
        raise _unreadable(table, location, f"the file cannot be read ({e})") from e
    try:
        document = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        raise _unreadable(table, location, f"not JSON ({e})") from e
    try:
        return _parse(document)
    except ValueError as e:
        raise _unreadable(table, location, str(e)) from e


def _unreadable(table: str, location: str, problem: str) -> IndexFileError:
    return IndexFileError(
        f"Cannot read the index list {location} of table {table}: {problem}. Queries scan "
        "without indexes; drop and re-create the indexes to repair it",
        table=table,
        index=None,
        path=location,
    )


def _parse(document: Any) -> tuple[IndexDefinition, ...]:
    node = _object(document, "index list")
    version = _int(node, "format-version")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"format-version {version} is newer than this Floe supports ({FORMAT_VERSION})"
        )
    indexes = tuple(_index(item) for item in _list(node, "indexes"))
    names = [i.name for i in indexes]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f"index {name} is listed twice")
    return indexes


def _index(item: Any) -> IndexDefinition:
    node = _object(item, "index")
    name = _str(node, "name")
    if not name:
        raise ValueError("an index has an empty name")
    kind = _str(node, "type").lower()
    if kind not in INDEX_TYPES:
        raise ValueError(f"Cannot parse type of index {name}: expected inverted or btree, {kind!r}")
    field_ids = _list(node, "source-field-ids")
    if len(field_ids) != 1 or not all(_is_int(f) for f in field_ids):
        raise ValueError(f"index {name} must name exactly one source field id, not {field_ids}")
    properties = node.get("properties", {})
    if not isinstance(properties, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in properties.items()
    ):
        raise ValueError(f"properties of index {name} must be a map of strings")
    segments = tuple(_segment(s) for s in _list(node, "segments"))
    return IndexDefinition(name, kind, tuple(field_ids), dict(properties), segments)


def _segment(item: Any) -> IndexSegment:
    node = _object(item, "segment")
    segment = IndexSegment(
        path=_str(node, "path"),
        file_size_in_bytes=_int(node, "file-size-in-bytes"),
        covered_file_count=_int(node, "covered-file-count"),
        entry_count=_int(node, "entry-count"),
        snapshot_id=_int(node, "snapshot-id"),
        sequence_number=_int(node, "sequence-number"),
    )
    if segment.file_size_in_bytes <= 0 or segment.covered_file_count < 0 or segment.entry_count < 0:
        raise ValueError(f"invalid segment {segment}")
    return segment


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object for the {what}, found {type(value).__name__}")
    return value


def _get(node: Mapping[str, Any], key: str) -> Any:
    if key not in node:
        raise ValueError(f"Cannot parse missing field: {key}")
    return node[key]


def _list(node: Mapping[str, Any], key: str) -> list[Any]:
    value = _get(node, key)
    if not isinstance(value, list):
        raise ValueError(f"Cannot parse {key} to a list: {value!r}")
    return value


def _str(node: Mapping[str, Any], key: str) -> str:
    value = _get(node, key)
    if not isinstance(value, str):
        raise ValueError(f"Cannot parse {key} to a string: {value!r}")
    return value


def _int(node: Mapping[str, Any], key: str) -> int:
    value = _get(node, key)
    if not _is_int(value):
        raise ValueError(f"Cannot parse {key} to an integer: {value!r}")
    return int(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
