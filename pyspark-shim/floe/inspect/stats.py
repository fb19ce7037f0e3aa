"""A table's column statistics from its Puffin statistics files (``ANALYZE TABLE``,
``compute_table_stats``), read without a JVM.

The table metadata's ``statistics`` list names at most one Puffin file per snapshot. Each
``apache-datasketches-theta-v1`` blob in it holds a compact theta sketch of one column's values
(field id in the blob's ``fields``) and, by convention, its estimate in the ``ndv`` property.
Both are reported: ``ndv`` is the estimate of the decoded sketch, ``ndv_property`` the writer's
figure. Other blob types are ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from floe.errors import FloeError
from floe.inspect._paths import local_path
from floe.inspect.metadata import find_snapshot, load_table_metadata
from floe.inspect.puffin import read_puffin, read_puffin_blob

THETA_BLOB = "apache-datasketches-theta-v1"
#: Standard deviations of the bounds reported with each estimate (about 95% confidence).
BOUNDS_STDDEVS = 2


@dataclass(frozen=True)
class ColumnNdv:
    """The distinct-count statistics of one column, from one theta-sketch blob."""

    field_id: int
    #: Dotted name in the table schema (the snapshot's), None when the field no longer exists.
    name: str | None
    #: Estimate of the decoded sketch.
    ndv: float
    #: The blob's ``ndv`` property (the writer's figure), None when absent.
    ndv_property: int | None
    lower_bound: float
    upper_bound: float
    #: Values retained by the sketch; the estimate is exact when ``estimation_mode`` is False.
    retained: int
    estimation_mode: bool
    offset: int
    length: int
    codec: str


@dataclass(frozen=True)
class TableStatistics:
    """The theta-sketch statistics registered for one snapshot of a table."""

    snapshot_id: int
    path: str
    file_size: int
    properties: Mapping[str, str]
    columns: tuple[ColumnNdv, ...]

    def by_name(self) -> dict[str, ColumnNdv]:
        """Columns by dotted name (columns dropped from the schema are left out)."""
        return {c.name: c for c in self.columns if c.name is not None}

    def by_field_id(self) -> dict[int, ColumnNdv]:
        return {c.field_id: c for c in self.columns}

    def __iter__(self) -> Iterator[ColumnNdv]:
        return iter(self.columns)


def statistics_files(table: str) -> list[dict[str, Any]]:
    """Return the ``statistics`` entries of the table at ``table`` (location or metadata file)."""
    return [dict(entry) for entry in load_table_metadata(table).get("statistics", [])]


def table_statistics(table: str, snapshot_id: int | None = None) -> TableStatistics:
    """Return the theta-sketch statistics of ``snapshot_id`` (default: the current snapshot) of
    the table at ``table`` (a location or a ``*.metadata.json`` file).

    Raises FloeError naming the table and the snapshot when none are registered for it, and
    naming the file and the offset when the Puffin file is corrupt.
    """
    metadata = load_table_metadata(table)
    location = metadata.get("location", table)
    snapshot = find_snapshot(metadata, snapshot_id)
    if snapshot is None:
        raise FloeError(f"Table {location} has no snapshot, hence no statistics")
    wanted = int(snapshot["snapshot-id"])
    entries = [e for e in metadata.get("statistics", []) if e.get("snapshot-id") == wanted]
    if not entries:
        analyzed = sorted(int(e.get("snapshot-id", -1)) for e in metadata.get("statistics", []))
        raise FloeError(
            f"Table {location} has no statistics file for snapshot {wanted} (statistics exist for "
            f"snapshots {analyzed or 'none'}); run ANALYZE TABLE or compute_table_stats"
        )
    entry = entries[-1]
    path = str(entry["statistics-path"])
    footer = read_puffin(path)
    columns = _theta_columns(path, footer, field_names(metadata, snapshot.get("schema-id")))
    _check_entry(path, entry, wanted)
    return TableStatistics(
        snapshot_id=wanted,
        path=path,
        file_size=int(entry["file-size-in-bytes"]),
        properties={str(k): str(v) for k, v in footer["properties"].items()},
        columns=columns,
    )


def read_theta_blobs(path: str, names: Mapping[int, str] | None = None) -> tuple[ColumnNdv, ...]:
    """Decode every ``apache-datasketches-theta-v1`` blob of the Puffin file at ``path``;
    ``names`` maps field ids to column names."""
    return _theta_columns(path, read_puffin(path), names)


def _theta_columns(
    path: str, footer: Mapping[str, Any], names: Mapping[int, str] | None
) -> tuple[ColumnNdv, ...]:
    from datasketches import compact_theta_sketch

    columns = []
    for blob in footer["blobs"]:
        if blob["type"] != THETA_BLOB:
            continue
        offset = int(blob["offset"])
        if len(blob["fields"]) != 1:
            raise FloeError(
                f"Invalid Puffin file {path}: the {THETA_BLOB} blob at offset {offset} must "
                f"name exactly one field, not {blob['fields']}"
            )
        field_id = int(blob["fields"][0])
        data = read_puffin_blob(path, blob)
        try:
            sketch = compact_theta_sketch.deserialize(data)
        except (RuntimeError, ValueError, IndexError) as e:
            raise FloeError(
                f"Invalid Puffin file {path}: the {THETA_BLOB} blob at offset {offset} "
                f"(field {field_id}) is not a compact theta sketch: {e}"
            ) from e
        columns.append(
            ColumnNdv(
                field_id=field_id,
                name=None if names is None else names.get(field_id),
                ndv=float(sketch.get_estimate()),
                ndv_property=_ndv_property(path, blob, offset),
                lower_bound=float(sketch.get_lower_bound(BOUNDS_STDDEVS)),
                upper_bound=float(sketch.get_upper_bound(BOUNDS_STDDEVS)),
                retained=int(sketch.num_retained),
                estimation_mode=bool(sketch.is_estimation_mode()),
                offset=offset,
                length=int(blob["length"]),
                codec=str(blob.get("compression-codec") or "none"),
            )
        )
    return tuple(columns)


def field_names(metadata: Mapping[str, Any], schema_id: int | None = None) -> dict[int, str]:
    """Map every field id of the schema ``schema_id`` (default: current) to its dotted name
    (``a.b`` in structs, ``a.element``, ``m.key``, ``m.value`` as Iceberg names them)."""
    wanted = metadata.get("current-schema-id") if schema_id is None else schema_id
    schemas = list(metadata.get("schemas", []))
    chosen = next((s for s in schemas if s.get("schema-id") == wanted), None)
    if chosen is None:
        chosen = metadata.get("schema") or (schemas[-1] if schemas else {"fields": []})
    names: dict[int, str] = {}
    _walk(chosen, "", names)
    return names


def _walk(node: Any, prefix: str, names: dict[int, str]) -> None:
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "struct" or "fields" in node:
        for field in node.get("fields", []):
            name = f"{prefix}{field['name']}"
            names[int(field["id"])] = name
            _walk(field.get("type"), f"{name}.", names)
    elif kind == "list":
        names[int(node["element-id"])] = f"{prefix}element"
        _walk(node.get("element"), f"{prefix}element.", names)
    elif kind == "map":
        names[int(node["key-id"])] = f"{prefix}key"
        names[int(node["value-id"])] = f"{prefix}value"
        _walk(node.get("key"), f"{prefix}key.", names)
        _walk(node.get("value"), f"{prefix}value.", names)


def _ndv_property(path: str, blob: Mapping[str, Any], offset: int) -> int | None:
    value = blob.get("properties", {}).get("ndv")
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as e:
        raise FloeError(
            f"Invalid Puffin file {path}: the blob at offset {offset} has a non-integer ndv "
            f"property {value!r}"
        ) from e


def _check_entry(path: str, entry: Mapping[str, Any], snapshot_id: int) -> None:
    size = local_path(path).stat().st_size
    expected = entry.get("file-size-in-bytes")
    if expected is not None and int(expected) != size:
        raise FloeError(
            f"Invalid statistics file {path} of snapshot {snapshot_id}: it has {size} bytes, "
            f"the table metadata says {expected} (file-size-in-bytes)"
        )
