"""Reading a snapshot's rows with pyarrow."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from floe.errors import FloeError
from floe.inspect._paths import local_path
from floe.inspect.deletes import DeleteIndex, apply_equality_deletes
from floe.inspect.files import table_files
from floe.inspect.metadata import find_snapshot, load_table_metadata

if TYPE_CHECKING:
    import pyarrow as pa

_FIELD_ID = b"PARQUET:field_id"
_DECIMAL = re.compile(r"^decimal\((\d+),\s*(\d+)\)$")
_FIXED = re.compile(r"^fixed\[(\d+)\]$")


def read_table(table_location: str, snapshot_id: int | None = None) -> pa.Table:
    """Return the rows of a snapshot (the current one by default) as one pyarrow Table.

    Columns follow the table's current schema, matched to data-file columns by field id (by name
    when a file has no field ids); columns a file lacks are null. Position deletes, deletion
    vectors and equality deletes are applied by the spec's sequence-number rules (see
    ``floe.inspect.deletes``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    metadata = load_table_metadata(table_location)
    schema = arrow_schema(_current_schema(metadata))
    snapshot = find_snapshot(metadata, snapshot_id)
    if snapshot is None:
        return schema.empty_table()
    files = table_files(table_location, snapshot["snapshot-id"])
    data_files = [f for f in files if f["content"] == 0]
    unpartitioned = {
        int(spec["spec-id"])
        for spec in metadata.get("partition-specs", [])
        if not spec.get("fields")
    }
    deletes = DeleteIndex([f for f in files if f["content"] != 0], unpartitioned)
    tables = []
    for data_file in data_files:
        fmt = str(data_file["file_format"]).upper()
        if fmt != "PARQUET":
            raise FloeError(f"Unsupported data file format {fmt}: {data_file['file_path']}")
        path = local_path(data_file["file_path"])
        table = _project(pq.ParquetFile(path).read(), schema, str(path))
        deleted = deletes.deleted_positions(data_file)
        if deleted:
            table = table.filter([i not in deleted for i in range(table.num_rows)])
        equality = deletes.equality_deletes(data_file)
        if equality:
            table = apply_equality_deletes(table, equality, schema)
        tables.append(table)
    if not tables:
        return schema.empty_table()
    return pa.concat_tables(tables)


def _current_schema(metadata: dict[str, Any]) -> dict[str, Any]:
    if "schemas" in metadata:
        current = metadata.get("current-schema-id")
        for schema in metadata["schemas"]:
            if schema.get("schema-id") == current:
                return dict(schema)
        raise FloeError(f"Cannot find current schema {current} in {metadata.get('location')}")
    return dict(metadata["schema"])  # format v1


def _project(table: pa.Table, schema: pa.Schema, path: str) -> pa.Table:
    import pyarrow as pa

    by_id = {
        int(field.metadata[_FIELD_ID]): i
        for i, field in enumerate(table.schema)
        if field.metadata and _FIELD_ID in field.metadata
    }
    columns = []
    for field in schema:
        field_id = int(field.metadata[_FIELD_ID])
        if by_id:
            index = by_id.get(field_id)
        else:
            index = table.schema.get_field_index(field.name)
            index = None if index < 0 else index
        if index is None:
            columns.append(pa.nulls(table.num_rows, field.type))
            continue
        column = table.column(index)
        if column.type != field.type:
            try:
                column = column.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise FloeError(f"Cannot read column {field.name} of {path}: {e}") from e
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)


def arrow_schema(schema: dict[str, Any]) -> pa.Schema:
    """Convert a table schema (its JSON form) into a pyarrow schema carrying the field ids."""
    import pyarrow as pa

    return pa.schema([_arrow_field(field) for field in schema["fields"]])


def _arrow_field(field: dict[str, Any]) -> pa.Field:
    import pyarrow as pa

    return pa.field(
        field["name"],
        _arrow_type(field["type"]),
        nullable=not field.get("required", False),
        metadata={_FIELD_ID: str(field["id"]).encode()},
    )


def _arrow_type(type_: Any) -> pa.DataType:
    import pyarrow as pa

    if isinstance(type_, dict):
        kind = type_.get("type")
        if kind == "struct":
            return pa.struct([_arrow_field(f) for f in type_["fields"]])
        if kind == "list":
            element = pa.field(
                "element",
                _arrow_type(type_["element"]),
                nullable=not type_.get("element-required", False),
                metadata={_FIELD_ID: str(type_["element-id"]).encode()},
            )
            return pa.list_(element)
        if kind == "map":
            key = pa.field(
                "key",
                _arrow_type(type_["key"]),
                nullable=False,
                metadata={_FIELD_ID: str(type_["key-id"]).encode()},
            )
            value = pa.field(
                "value",
                _arrow_type(type_["value"]),
                nullable=not type_.get("value-required", False),
                metadata={_FIELD_ID: str(type_["value-id"]).encode()},
            )
            return pa.map_(key, value)
        raise FloeError(f"Unsupported type {type_!r}")
    primitives = {
        "boolean": pa.bool_(),
        "int": pa.int32(),
        "long": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "date": pa.date32(),
        "time": pa.time64("us"),
        "timestamp": pa.timestamp("us"),
        "timestamptz": pa.timestamp("us", tz="UTC"),
        "timestamp_ns": pa.timestamp("ns"),
        "timestamptz_ns": pa.timestamp("ns", tz="UTC"),
        "string": pa.string(),
        "uuid": pa.binary(16),
        "binary": pa.binary(),
    }
    if type_ in primitives:
        return primitives[type_]
    if m := _DECIMAL.match(type_):
        return pa.decimal128(int(m.group(1)), int(m.group(2)))
    if m := _FIXED.match(type_):
        return pa.binary(int(m.group(1)))
    raise FloeError(f"Unsupported type {type_!r}")
