"""The readable summary that ``floe inspect PATH`` prints (``--json`` prints the machine form).

Sections, each from the table metadata and the manifests of one snapshot (the current one by
default): the table, its schema, partition spec and sort order, the current and recent snapshots,
live data files per partition, delete files by kind (position, equality, deletion vectors), the
statistics files registered for the snapshot (which columns they cover) and the indexes.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from floe.errors import FloeError
from floe.inspect.files import table_files
from floe.inspect.indexes import table_indexes
from floe.inspect.metadata import find_snapshot, load_table_metadata, metadata_file
from floe.inspect.stats import field_names

#: How many snapshots "Recent snapshots" lists, newest first.
RECENT_SNAPSHOTS = 5
#: How many partitions "Data files" lists, largest first; the rest are summed in one line.
PARTITION_ROWS = 20

_DATA, _POSITION_DELETES, _EQUALITY_DELETES = 0, 1, 2


def table_report(path: str, snapshot_id: int | None = None) -> str:
    """Return the readable summary of the table at ``path`` at ``snapshot_id`` (default current)."""
    metadata = load_table_metadata(path)
    snapshot = find_snapshot(metadata, snapshot_id)
    names = field_names(metadata)
    files = table_files(path, int(snapshot["snapshot-id"])) if snapshot else []
    lines = _table(path, metadata)
    lines += _schema(metadata)
    lines += _partition_spec(metadata, names)
    lines += _sort_order(metadata, names)
    lines += _snapshots(metadata, snapshot)
    lines += _data_files(files, snapshot)
    lines += _delete_files(files)
    lines += _statistics(metadata, snapshot, names)
    lines += _indexes(path, snapshot)
    return "\n".join(lines)


def _table(path: str, metadata: Mapping[str, Any]) -> list[str]:
    return [
        f"Table            {metadata.get('location')}",
        f"Metadata file    {metadata_file(path)}",
        f"Format version   {metadata.get('format-version')}",
        f"Table UUID       {metadata.get('table-uuid')}",
    ]


def _schema(metadata: Mapping[str, Any]) -> list[str]:
    current = metadata.get("current-schema-id")
    schema = next(
        (s for s in metadata.get("schemas", []) if s.get("schema-id") == current),
        metadata.get("schema", {"fields": []}),
    )
    fields = list(schema.get("fields", []))
    out = ["", f"Schema (id {schema.get('schema-id', 0)}, {len(fields)} columns)"]
    width = max((len(str(f["name"])) for f in fields), default=0)
    for field in fields:
        required = "required" if field.get("required") else "optional"
        out.append(
            f"  {field['id']:>4}  {field['name']:<{width}}  {_type(field['type'])}  {required}"
        )
    return out


def _type(node: Any) -> str:
    if not isinstance(node, dict):
        return str(node)
    kind = node.get("type")
    if kind == "list":
        return f"list<{_type(node['element'])}>"
    if kind == "map":
        return f"map<{_type(node['key'])}, {_type(node['value'])}>"
    inner = ", ".join(f"{f['name']}: {_type(f['type'])}" for f in node.get("fields", []))
    return f"struct<{inner}>"


def _partition_spec(metadata: Mapping[str, Any], names: Mapping[int, str]) -> list[str]:
    default = metadata.get("default-spec-id", 0)
    spec = next(
        (s for s in metadata.get("partition-specs", []) if s.get("spec-id") == default),
        {"spec-id": default, "fields": metadata.get("partition-spec", [])},
    )
    fields = [
        f"{f['name']} = {f['transform']}({names.get(int(f['source-id']), f['source-id'])})"
        for f in spec.get("fields", [])
    ]
    others = len(metadata.get("partition-specs", [])) - 1
    older = f" ({others} older specs)" if others > 0 else ""
    return ["", f"Partition spec   id {spec.get('spec-id')}: {', '.join(fields) or 'unpartitioned'}"
            f"{older}"]  # fmt: skip


def _sort_order(metadata: Mapping[str, Any], names: Mapping[int, str]) -> list[str]:
    default = metadata.get("default-sort-order-id", 0)
    order = next(
        (o for o in metadata.get("sort-orders", []) if o.get("order-id") == default),
        {"order-id": default, "fields": []},
    )
    fields = []
    for f in order.get("fields", []):
        column = names.get(int(f["source-id"]), str(f["source-id"]))
        transform = f.get("transform", "identity")
        term = column if transform == "identity" else f"{transform}({column})"
        nulls = str(f.get("null-order", "")).replace("nulls-", "nulls ")
        fields.append(f"{term} {str(f.get('direction', 'asc')).upper()} {nulls.upper()}".strip())
    return [f"Sort order       id {order.get('order-id')}: {', '.join(fields) or 'unsorted'}"]


def _snapshots(metadata: Mapping[str, Any], snapshot: Mapping[str, Any] | None) -> list[str]:
    snapshots = sorted(
        metadata.get("snapshots", []), key=lambda s: int(s.get("timestamp-ms", 0)), reverse=True
    )
    if snapshot is None:
        return ["", "Current snapshot none (the table has no snapshots)"]
    refs = _refs_by_snapshot(metadata)
    out = ["", f"Current snapshot {_snapshot_line(snapshot, refs)}"]
    if metadata.get("current-snapshot-id") != snapshot.get("snapshot-id"):
        out[-1] = f"Snapshot shown   {_snapshot_line(snapshot, refs)}"
    shown = snapshots[:RECENT_SNAPSHOTS]
    out.append(f"Recent snapshots {len(shown)} of {len(snapshots)}, newest first")
    out += [f"  {_snapshot_line(s, refs)}" for s in shown]
    return out


def _refs_by_snapshot(metadata: Mapping[str, Any]) -> dict[int, list[str]]:
    refs: dict[int, list[str]] = {}
    for name, ref in sorted(metadata.get("refs", {}).items()):
        refs.setdefault(int(ref["snapshot-id"]), []).append(f"{ref.get('type', 'branch')} {name}")
    return refs


def _snapshot_line(snapshot: Mapping[str, Any], refs: Mapping[int, Sequence[str]]) -> str:
    summary = snapshot.get("summary", {})
    when = datetime.datetime.fromtimestamp(
        int(snapshot.get("timestamp-ms", 0)) / 1000, tz=datetime.UTC
    ).strftime("%Y-%m-%d %H:%M:%S UTC")
    counts = ", ".join(
        f"{label} {summary[key]}"
        for key, label in (
            ("added-data-files", "+files"),
            ("deleted-data-files", "-files"),
            ("added-records", "+rows"),
            ("deleted-records", "-rows"),
            ("total-records", "rows"),
        )
        if key in summary
    )
    tags = refs.get(int(snapshot["snapshot-id"]), [])
    named = f" [{', '.join(tags)}]" if tags else ""
    return (f"{snapshot['snapshot-id']}{named}  {when}  {summary.get('operation', '?')}"
            f"{'  ' + counts if counts else ''}")  # fmt: skip


def _data_files(
    files: Sequence[Mapping[str, Any]], snapshot: Mapping[str, Any] | None
) -> list[str]:
    data = [f for f in files if f.get("content", 0) == _DATA]
    if snapshot is None:
        return []
    by_partition: dict[str, list[int]] = {}
    for f in data:
        counts = by_partition.setdefault(_partition(f.get("partition")), [0, 0, 0])
        counts[0] += 1
        counts[1] += int(f.get("record_count", 0))
        counts[2] += int(f.get("file_size_in_bytes", 0))
    out = ["", f"Data files       {len(data)} files, {sum(c[1] for c in by_partition.values())} "
               f"rows, {_size(sum(c[2] for c in by_partition.values()))} in "
               f"{len(by_partition)} partitions"]  # fmt: skip
    if not by_partition:
        return out
    rows = sorted(by_partition.items(), key=lambda kv: (-kv[1][2], kv[0]))
    width = max(len("partition"), *(len(k) for k, _ in rows[:PARTITION_ROWS]))
    out.append(f"  {'partition':<{width}}  {'files':>6}  {'rows':>12}  {'size':>10}")
    for key, (count, records, size) in rows[:PARTITION_ROWS]:
        out.append(f"  {key:<{width}}  {count:>6}  {records:>12}  {_size(size):>10}")
    if len(rows) > PARTITION_ROWS:
        rest = [c for _, c in rows[PARTITION_ROWS:]]
        out.append(f"  ... {len(rest)} more partitions: {sum(c[0] for c in rest)} files, "
                   f"{sum(c[1] for c in rest)} rows, {_size(sum(c[2] for c in rest))}")  # fmt: skip
    return out


def _partition(value: Any) -> str:
    if not value:
        return "(unpartitioned)"
    if isinstance(value, Mapping):
        return "/".join(f"{k}={_value(v)}" for k, v in value.items())
    return str(value)


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def _delete_files(files: Iterable[Mapping[str, Any]]) -> list[str]:
    kinds = {"position delete files": [0, 0, 0], "deletion vectors": [0, 0, 0],
             "equality delete files": [0, 0, 0]}  # fmt: skip
    for f in files:
        content = f.get("content", 0)
        if content == _DATA:
            continue
        if content == _EQUALITY_DELETES:
            kind = "equality delete files"
        elif str(f.get("file_format", "")).upper() == "PUFFIN":
            kind = "deletion vectors"
        else:
            kind = "position delete files"
        kinds[kind][0] += 1
        kinds[kind][1] += int(f.get("record_count", 0))
        kinds[kind][2] += int(f.get("content_size_in_bytes") or f.get("file_size_in_bytes", 0))
    out = ["", "Delete files"]
    for kind, (count, records, size) in kinds.items():
        out.append(f"  {kind:<22} {count:>6}  {records:>12} deleted rows  {_size(size):>10}")
    return out


def _statistics(
    metadata: Mapping[str, Any], snapshot: Mapping[str, Any] | None, names: Mapping[int, str]
) -> list[str]:
    entries = list(metadata.get("statistics", []))
    partition_stats = list(metadata.get("partition-statistics", []))
    wanted = None if snapshot is None else int(snapshot["snapshot-id"])
    mine = [e for e in entries if e.get("snapshot-id") == wanted]
    others = len(entries) - len(mine)
    partitions = f", {len(partition_stats)} partition statistics files" if partition_stats else ""
    out = ["", f"Statistics files {len(mine)} for this snapshot, {others} for other snapshots"
               f"{partitions}"]  # fmt: skip
    for entry in mine:
        by_type: dict[str, list[str]] = {}
        for blob in entry.get("blob-metadata", []):
            columns = by_type.setdefault(str(blob.get("type")), [])
            columns += [names.get(int(i), f"field {i}") for i in blob.get("fields", [])]
        out.append(
            f"  {entry.get('statistics-path')} ({_size(int(entry.get('file-size-in-bytes', 0)))})"
        )
        for blob_type, columns in by_type.items():
            out.append(f"    {blob_type}: {', '.join(columns) or '(no columns)'}")
    if not mine:
        out.append("  none: ANALYZE TABLE or CALL ...compute_table_stats computes them")
    return out


def _indexes(path: str, snapshot: Mapping[str, Any] | None) -> list[str]:
    snapshot_id = None if snapshot is None else int(snapshot["snapshot-id"])
    try:
        indexes = table_indexes(path, snapshot_id)
    except FloeError as e:
        return ["", f"Indexes          cannot be read: {e}"]
    out = ["", f"Indexes          {len(indexes)}"]
    for index in indexes:
        columns = ", ".join(c or "(dropped column)" for c in index.columns)
        coverage = (
            "coverage unknown" if index.covered_files is None
            else f"{index.covered_files} of {index.live_files} live data files covered"
        )  # fmt: skip
        mode = ", deferred" if index.deferred else ""
        out.append(
            f"  {index.name} ({index.type} on {columns}{mode}): {len(index.segments)} segments, "
            f"{index.entries} keys, {_size(index.size_in_bytes)}, {coverage}"
        )
        if index.problem:
            out.append(f"    problem: {index.problem}")
    return out


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")
