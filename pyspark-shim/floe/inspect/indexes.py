"""A table's secondary indexes, read without a JVM (docs/indexes.md): what indexes it has and
how current they are (:func:`table_indexes`, like the ``t.indexes`` metadata table), and which
data files a lookup must read (:func:`files_for_value` and friends, like scan planning).

A lookup answers for the live data files of a snapshot (the current one by default), with the
table's current index list, as Floe's planning does:

- ``may_match``: covered files the index says may hold a match;
- ``uncovered``: files no segment covers (written by another engine, before the index, or left
  to ``rewrite_index``): they must be read anyway;
- ``skipped``: covered files that cannot hold a match.

``files`` holds ``may_match`` and ``uncovered`` in the snapshot's file order. Deleted rows are not
looked at: an entry for a deleted row only costs a file read, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from floe.errors import FloeError, IndexFileError, NoSuchIndexError
from floe.inspect._index_keys import SUPPORTED, KeyType
from floe.inspect._index_lookup import KeyRange, null_files, prefix_files, range_files
from floe.inspect.files import table_files
from floe.inspect.index_list import (
    IndexDefinition,
    IndexSegment,
    index_list_location,
    read_index_list,
)
from floe.inspect.index_segment import SegmentReader
from floe.inspect.metadata import find_snapshot, load_table_metadata


@dataclass(frozen=True)
class TableIndex:
    """One index of a table and how it stands at a snapshot (a row of ``t.indexes``)."""

    name: str
    #: ``inverted`` or ``btree``.
    type: str
    #: The indexed field ids (one today) and their current dotted names (None: field dropped).
    field_ids: tuple[int, ...]
    columns: tuple[str | None, ...]
    properties: Mapping[str, str]
    #: True with ``maintenance = deferred``: commits leave new files to ``rewrite_index``.
    deferred: bool
    segments: tuple[IndexSegment, ...]
    #: The index list file (named by the table property ``floe.indexes``).
    index_list: str
    #: The snapshot whose live data files are counted (None: the table has no snapshot).
    snapshot_id: int | None
    #: The newest snapshot a segment was built at.
    built_at_snapshot_id: int | None
    #: Live data files some segment covers (None when ``problem`` says why they cannot be read).
    covered_files: int | None
    live_files: int
    size_in_bytes: int
    #: Distinct keys summed over the segments (a key in two segments counts twice).
    entries: int
    #: Why planning cannot use the index (dropped column, unreadable segment), else None.
    problem: str | None

    @property
    def uncovered_files(self) -> int | None:
        """Live files no segment covers: every lookup reads them."""
        return None if self.covered_files is None else self.live_files - self.covered_files

    @property
    def stale(self) -> bool:
        """True when live files are uncovered (``rewrite_index`` covers them) or the index
        cannot be used at all (``problem``)."""
        return self.problem is not None or bool(self.uncovered_files)


@dataclass(frozen=True)
class IndexAnswer:
    """Which live data files a lookup through one index must read."""

    index: str
    column: str
    snapshot_id: int | None
    may_match: tuple[str, ...]
    uncovered: tuple[str, ...]
    skipped: tuple[str, ...]
    #: The files to read: those that may match and those no segment covers, in file order.
    files: tuple[str, ...]
    segments_read: int
    pages_read: int


def table_indexes(table: str, snapshot_id: int | None = None) -> list[TableIndex]:
    """The indexes of the table at ``table`` (a location or a ``*.metadata.json`` file), with
    their coverage of the live data files of ``snapshot_id`` (default: the current snapshot).

    Each segment's footer, file list and directory are read and checked (pages only by lookups);
    a segment that fails, or a dropped column, is reported in ``problem``, not raised. An index
    list that cannot be read raises ``IndexFileError`` naming the file.
    """
    metadata = load_table_metadata(table)
    definitions = read_index_list(metadata)
    if not definitions:
        return []
    location = str(metadata.get("location", table))
    snapshot = find_snapshot(metadata, snapshot_id)
    live = _live_data_files(table, snapshot)
    live_set = set(live)
    columns = _struct_columns(metadata)
    out = []
    for definition in definitions:
        column = columns.get(definition.source_field_id)
        problem = _column_problem(definition, column)
        covered: int | None = None
        if problem is None and column is not None:
            key_type = KeyType.of(column[1])
            assert key_type is not None
            try:
                paths: set[str] = set()
                for segment in definition.segments:
                    reader = SegmentReader(location, definition, segment, key_type)
                    paths.update(reader.covered_files().paths)
                    reader.directory()
                covered = len(paths & live_set)
            except IndexFileError as e:
                problem = str(e)
        built = [s.snapshot_id for s in definition.segments if s.snapshot_id >= 0]
        out.append(
            TableIndex(
                name=definition.name,
                type=definition.type,
                field_ids=definition.source_field_ids,
                columns=tuple(
                    None if (c := columns.get(i)) is None else c[0]
                    for i in definition.source_field_ids
                ),
                properties=dict(definition.properties),
                deferred=definition.deferred,
                segments=definition.segments,
                index_list=str(index_list_location(metadata)),
                snapshot_id=None if snapshot is None else int(snapshot["snapshot-id"]),
                built_at_snapshot_id=max(built, default=None),
                covered_files=covered,
                live_files=len(live),
                size_in_bytes=sum(s.file_size_in_bytes for s in definition.segments),
                entries=sum(s.entry_count for s in definition.segments),
                problem=problem,
            )
        )
    return out


def files_for_value(
    table: str, index: str, value: Any, snapshot_id: int | None = None
) -> IndexAnswer:
    """The files that may hold ``value`` in the column of index ``index`` (``column = value``);
    ``None`` asks for the files holding a null (``IS NULL``). Values: ``int``, ``str``,
    ``bytes``, ``bool``, ``decimal.Decimal``, ``datetime.date``, ``datetime.datetime`` (naive
    means UTC) as the column's type takes them."""
    return files_for_values(table, index, [value], snapshot_id)


def files_for_values(
    table: str, index: str, values: Iterable[Any], snapshot_id: int | None = None
) -> IndexAnswer:
    """The files that may hold any of ``values`` (``column IN (...)``; None stands for null)."""
    wanted = list(values)

    def ask(key_type: KeyType, what: str) -> Callable[[SegmentReader], set[int]]:
        keys = [None if v is None else key_type.coerce(v, what) for v in wanted]

        def lookup(reader: SegmentReader) -> set[int]:
            files: set[int] = set()
            for key in keys:
                found = (
                    null_files(reader)
                    if key is None
                    else range_files(reader, KeyRange.exactly(key))
                )
                files |= found
            return files

        return lookup

    return _answer(table, index, snapshot_id, ask)


def files_in_range(
    table: str,
    index: str,
    lower: Any = None,
    upper: Any = None,
    *,
    lower_inclusive: bool = True,
    upper_inclusive: bool = True,
    snapshot_id: int | None = None,
) -> IndexAnswer:
    """The files that may hold a value between ``lower`` and ``upper`` (None: unbounded; each
    end inclusive unless told otherwise), as ``>``, ``>=``, ``<``, ``<=`` and ``BETWEEN``."""

    def ask(key_type: KeyType, what: str) -> Callable[[SegmentReader], set[int]]:
        keys = KeyRange(
            None if lower is None else key_type.coerce(lower, what),
            lower_inclusive,
            None if upper is None else key_type.coerce(upper, what),
            upper_inclusive,
        )
        return lambda reader: range_files(reader, keys)

    return _answer(table, index, snapshot_id, ask)


def files_with_prefix(
    table: str, index: str, prefix: str, snapshot_id: int | None = None
) -> IndexAnswer:
    """The files that may hold a string starting with ``prefix`` (``LIKE 'prefix%'``)."""

    def ask(key_type: KeyType, what: str) -> Callable[[SegmentReader], set[int]]:
        if key_type.name != "string" or not isinstance(prefix, str):
            raise FloeError(
                f"Cannot look up prefix {prefix!r} in {what}: prefixes need a string column "
                f"and a str prefix (the column's type is {key_type})"
            )
        return lambda reader: prefix_files(reader, prefix)

    return _answer(table, index, snapshot_id, ask)


def parse_value(table: str, index: str, text: str) -> Any:
    """``text`` read as a value of the column of index ``index`` (for command lines): an
    integer, an ISO date or datetime, a decimal, ``true``/``false``, hex digits for binary."""
    _, key_type, _, what = _key_type(load_table_metadata(table), table, index)
    return key_type.parse(text, what)


Asker = Callable[[KeyType, str], Callable[[SegmentReader], set[int]]]


def _answer(table: str, name: str, snapshot_id: int | None, ask: Asker) -> IndexAnswer:
    metadata = load_table_metadata(table)
    location = str(metadata.get("location", table))
    definition, key_type, column, what = _key_type(metadata, table, name)
    lookup = ask(key_type, what)
    snapshot = find_snapshot(metadata, snapshot_id)
    live = _live_data_files(table, snapshot)
    covered: set[str] = set()
    excluded: set[str] = set()
    pages = 0
    for segment in definition.segments:
        reader = SegmentReader(location, definition, segment, key_type)
        paths = reader.covered_files().paths
        matching = lookup(reader)
        pages += reader.pages_read
        covered.update(paths)
        # a file is skipped when any segment that covers it says it cannot match
        excluded.update(p for i, p in enumerate(paths) if i not in matching)
    return IndexAnswer(
        index=name,
        column=column,
        snapshot_id=None if snapshot is None else int(snapshot["snapshot-id"]),
        may_match=tuple(p for p in live if p in covered and p not in excluded),
        uncovered=tuple(p for p in live if p not in covered),
        skipped=tuple(p for p in live if p in excluded),
        files=tuple(p for p in live if p not in excluded),
        segments_read=len(definition.segments),
        pages_read=pages,
    )


def _key_type(
    metadata: Mapping[str, Any], table: str, name: str
) -> tuple[IndexDefinition, KeyType, str, str]:
    """The index ``name``, its key type, its column's current name and how errors name it;
    fails when it cannot be used."""
    location = str(metadata.get("location", table))
    definitions = read_index_list(metadata)
    definition = next((d for d in definitions if d.name == name), None)
    if definition is None:
        known = ", ".join(d.name for d in definitions) or "none"
        raise NoSuchIndexError(
            f"Index {name} does not exist on table {location} (its indexes: {known})"
        )
    column = _struct_columns(metadata).get(definition.source_field_id)
    problem = _column_problem(definition, column)
    key_type = None if column is None else KeyType.of(column[1])
    if problem is not None or column is None or key_type is None:
        raise FloeError(
            f"Cannot look up values in index {name} on table {location}: {problem}. Every live "
            "file must be read; drop the index"
        )
    what = f"index {name} on column {column[0]} of table {location}"
    return definition, key_type, column[0], what


def _live_data_files(table: str, snapshot: Mapping[str, Any] | None) -> list[str]:
    if snapshot is None:
        return []
    files = table_files(table, int(snapshot["snapshot-id"]))
    return [str(f["file_path"]) for f in files if f["content"] == 0]


def _column_problem(definition: IndexDefinition, column: tuple[str, Any] | None) -> str | None:
    field_id = definition.source_field_id
    if column is None:
        return f"its column (field id {field_id}) no longer exists"
    if KeyType.of(column[1]) is None:
        return (
            f"its column {column[0]} (field id {field_id}) has type {column[1]}, which indexes "
            f"do not support (supported: {SUPPORTED})"
        )
    return None


def _struct_columns(metadata: Mapping[str, Any]) -> dict[int, tuple[str, Any]]:
    """Every field reachable through structs only in the current schema: id -> (dotted name,
    type); a field inside a list or map cannot be indexed, so it is left out."""
    current = metadata.get("current-schema-id")
    schemas = list(metadata.get("schemas", []))
    schema = next((s for s in schemas if s.get("schema-id") == current), None)
    if schema is None:
        schema = metadata.get("schema") or {"fields": []}
    out: dict[int, tuple[str, Any]] = {}

    def walk(fields: Iterable[Mapping[str, Any]], prefix: str) -> None:
        for field in fields:
            name = f"{prefix}{field['name']}"
            out[int(field["id"])] = (name, field["type"])
            kind = field["type"]
            if isinstance(kind, dict) and kind.get("type") == "struct":
                walk(kind.get("fields", []), f"{name}.")

    walk(schema.get("fields", []), "")
    return out
