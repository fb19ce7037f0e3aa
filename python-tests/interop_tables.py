"""Shared by the interop tests: a table with every type Floe supports, row comparison, and where
a table lives in the shared warehouse and what Floe's last scan of it read.

Rows are compared value by value after a normalization that makes the readers' Python values
comparable: time-zone-aware timestamps in UTC, NaN as a marker, maps as sorted entry tuples.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import floe

if TYPE_CHECKING:
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType

#: Every Spark type Floe writes (primitives, then nested), then the partition columns.
ALL_TYPES_COLUMNS = """
    id INT NOT NULL,
    b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE,
    dec_small DECIMAL(5, 2), dec DECIMAL(18, 4), dec_big DECIMAL(38, 10),
    dt DATE, ts TIMESTAMP, ts_ntz TIMESTAMP_NTZ, s STRING, bin BINARY,
    st STRUCT<x: INT, y: STRING NOT NULL, inner: STRUCT<z: DOUBLE>>,
    arr ARRAY<INT>, arr_st ARRAY<STRUCT<a: BIGINT>>,
    m MAP<STRING, INT>, m_arr MAP<INT, ARRAY<STRING>>,
    p STRING, pd DATE
"""
#: Identity partitioning of the partitioned variant (a string and a date column).
PARTITION_COLUMNS = "p, pd"

_NULLS = "NULL, " * 17 + "NULL"


def _row(id_: int, prim: str, nested: str, p: str = "'a'", pd: str = "DATE'2024-01-01'") -> str:
    return f"({id_}, {prim}, {nested}, {p}, {pd})"


#: Rows as SQL VALUES tuples, in batches (one per write). Extremes, NaN and infinities, signed
#: zero, pre-epoch dates and times, long and non-ASCII strings (truncated bounds), 0xFF bytes,
#: nulls at every level, empty collections; partition values include NULL and odd characters.
BATCHES: tuple[tuple[str, ...], ...] = (
    (
        _row(
            1,
            "true, 1, 10, CAST(1.5 AS FLOAT), 2.25, 1.25, 12345678901234.5678, "
            "1234567890123456789012345678.0123456789, DATE'2024-01-02', "
            "TIMESTAMP'2024-01-02 03:04:05.123456', TIMESTAMP_NTZ'2024-01-02 03:04:05.123456', "
            "'alpha', X'0102'",
            "named_struct('x', 1, 'y', 'q', 'inner', named_struct('z', 0.5)), array(1, 2, 3), "
            "array(named_struct('a', CAST(7 AS BIGINT))), map('k', 1, 'j', 2), "
            "map(1, array('u', 'v'))",
        ),
        _row(
            2,
            "false, -2147483648, -9223372036854775808, CAST('NaN' AS FLOAT), "
            "CAST('-Infinity' AS DOUBLE), -999.99, -0.0001, -0.0000000001, "
            "DATE'1969-12-31', TIMESTAMP'1969-12-31 23:59:59.999999', "
            "TIMESTAMP_NTZ'1900-01-01 00:00:00', 'héllo wörld ✓ and a string longer than 16', "
            "X'FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00'",
            "named_struct('x', CAST(NULL AS INT), 'y', '', "
            "'inner', CAST(NULL AS STRUCT<z: DOUBLE>)), "
            "array(CAST(NULL AS INT), 5), array(CAST(NULL AS STRUCT<a: BIGINT>)), "
            "map('n', CAST(NULL AS INT)), map(2, CAST(NULL AS ARRAY<STRING>))",
            p="'b'",
        ),
        f"(3, {_NULLS}, NULL, NULL)",
    ),
    (
        _row(
            4,
            "true, 2147483647, 9223372036854775807, CAST('Infinity' AS FLOAT), "
            "CAST('NaN' AS DOUBLE), 999.99, 99999999999999.9999, 0E-10, "
            "DATE'9999-12-31', TIMESTAMP'2262-04-11 23:47:16.854775', "
            "TIMESTAMP_NTZ'2024-02-29 12:00:00', '', X''",
            "named_struct('x', -1, 'y', 'zz', 'inner', named_struct('z', CAST('NaN' AS DOUBLE))), "
            "array(), array(), map(), map()",
            p="'c/d é=%'",
            pd="NULL",
        ),
        _row(
            5,
            "NULL, 0, 0, CAST(-0.0 AS FLOAT), -0.0, 0.00, 0.0000, 1.0000000001, "
            "DATE'0001-01-01', TIMESTAMP'1970-01-01 00:00:00', "
            "TIMESTAMP_NTZ'1970-01-01 00:00:00.000001', 'zeta', X'00'",
            "CAST(NULL AS STRUCT<x: INT, y: STRING, inner: STRUCT<z: DOUBLE>>), "
            "CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<STRUCT<a: BIGINT>>), "
            "CAST(NULL AS MAP<STRING, INT>), map(3, array(CAST(NULL AS STRING)))",
            p="'a'",
            pd="DATE'2024-01-02'",
        ),
    ),
)


def table_location(warehouse: Path, namespace: str, table: str) -> str:
    """The URI of ``namespace.table``'s directory in the warehouse (Floe's and Iceberg's layout)."""
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"

def create_all_types_table(
    spark: SparkSession, table: str, *, partitioned: bool, using: str = ""
) -> None:
    """Create ``table`` (fully qualified) with every type; ``using`` e.g. ``"USING iceberg"``."""
    partitioning = f"PARTITIONED BY ({PARTITION_COLUMNS})" if partitioned else ""
    spark.sql(f"CREATE TABLE {table} ({ALL_TYPES_COLUMNS}) {using} {partitioning}")


def insert_batch(spark: SparkSession, table: str, batch: Iterable[str]) -> None:
    spark.sql(f"INSERT INTO {table} VALUES {', '.join(batch)}")


def normalize(value: Any) -> Any:
    """A hashable, comparable, reader-independent form of one value read by any client."""
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else (value, math.copysign(1.0, value))
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return ("timestamptz", value.astimezone(dt.UTC).replace(tzinfo=None))
    if isinstance(value, dt.datetime):
        return ("timestamp", value)
    if isinstance(value, Decimal):
        # by value: PySpark may hand back 1E-10 as 100E-12 for a DECIMAL(38, 10)
        return ("decimal", value.normalize())
    if isinstance(value, Mapping):
        return ("struct", tuple((str(k), normalize(v)) for k, v in value.items()))
    if isinstance(value, list):
        if value and all(isinstance(item, tuple) and len(item) == 2 for item in value):
            # pyarrow's form of a map: a list of (key, value) tuples; order is not significant
            return ("map", tuple(sorted((normalize(k), normalize(v)) for k, v in value)))
        return ("list", tuple(normalize(item) for item in value))
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def sorted_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """The rows of a pyarrow Table, normalized, in a reader-independent order."""
    rows = [tuple(normalize(row[name]) for name in table.column_names) for row in table.to_pylist()]
    return sorted(rows, key=repr)


def spark_rows(spark: SparkSession, query_or_table: str) -> list[tuple[Any, ...]]:
    """The rows of a table name or a SELECT query, through Spark, normalized and sorted.

    Collected as Rows, not with ``DataFrame.toArrow()``: PySpark's toArrow fails on a null struct
    that has a NOT NULL field ("nulls in input cannot be viewed as non-nullable").
    """
    text = query_or_table.strip()
    df = spark.sql(text) if text.upper().startswith("SELECT") else spark.table(text)
    fields = df.schema.fields
    rows = [
        tuple(normalize(_python_value(row[i], field.dataType)) for i, field in enumerate(fields))
        for row in df.collect()
    ]
    return sorted(rows, key=repr)


def _python_value(value: Any, data_type: DataType) -> Any:
    """A collected Spark value in the form pyarrow's ``to_pylist`` gives for the same data."""
    from pyspark.sql.types import ArrayType, MapType, StructType, TimestampType

    if value is None:
        return None
    if isinstance(data_type, TimestampType):
        # PySpark returns a naive datetime in the local time zone of this Python process.
        return value.astimezone(dt.UTC)
    if isinstance(data_type, StructType):
        return {f.name: _python_value(value[f.name], f.dataType) for f in data_type.fields}
    if isinstance(data_type, ArrayType):
        return [_python_value(item, data_type.elementType) for item in value]
    if isinstance(data_type, MapType):
        return [
            (_python_value(k, data_type.keyType), _python_value(v, data_type.valueType))
            for k, v in value.items()
        ]
    return value


def with_id(row: str, new_id: int) -> str:
    """A row of BATCHES with its ``id`` (the first value) replaced."""
    return f"({new_id}, {row.split(', ', 1)[1]}"


def row_group_starts(meta: pq.FileMetaData) -> list[int]:
    """The file's row-group start offsets, ascending: what a data file's ``split_offsets`` holds
    (a row group starts at its first column's dictionary page, else at its first data page)."""
    starts = []
    for group in range(meta.num_row_groups):
        first = meta.row_group(group).column(0)
        pages = [first.data_page_offset]
        if first.has_dictionary_page:
            pages.append(first.dictionary_page_offset)
        starts.append(min(pages))
    return sorted(starts)
