"""Interop with pyiceberg, both directions, on the shared warehouse.

Floe -> pyiceberg: ``StaticTable.from_metadata(<table location>)`` reads every table Floe writes
(every type, nested, nulls, identity-partitioned or not, after append, static and dynamic insert
overwrite, CTAS and RTAS) with the rows and schema Spark reads through Floe, and pyiceberg's
``inspect`` tables agree with the metadata Floe wrote.

pyiceberg -> Floe: a table pyiceberg creates and appends to (identity, bucket and day partitions)
is published into the Hadoop layout (docs/format.md, 'Tables written by pyiceberg'); Floe reads it
with the same rows, prunes files by its partitions, appends to it, and pyiceberg then sees every
append.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
from conftest import region_folders, scan_report
from interop_tables import (
    BATCHES,
    create_all_types_table,
    insert_batch,
    normalize,
    sorted_rows,
    spark_rows,
    with_id,
)

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.table import StaticTable, Table
    from pyiceberg.types import IcebergType
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType

UTC = dt.UTC


# --- helpers -----------------------------------------------------------------------------------


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _static(location: str) -> StaticTable:
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(location)


@contextmanager
def _dynamic_overwrite(spark: SparkSession) -> Iterator[None]:
    key = "spark.sql.sources.partitionOverwriteMode"
    before = spark.conf.get(key)
    spark.conf.set(key, "dynamic")
    try:
        yield
    finally:
        spark.conf.set(key, before or "static")


def _ids(spark: SparkSession, table: str) -> set[int]:
    return {int(row[0]) for row in spark.sql(f"SELECT id FROM {table}").collect()}


def _spark_type(iceberg_type: IcebergType) -> DataType:
    """The Spark type Floe (like Iceberg's Spark runtime) maps an Iceberg type to."""
    from pyiceberg import types as it
    from pyspark.sql import types as st

    primitives: dict[type[Any], DataType] = {
        it.BooleanType: st.BooleanType(),
        it.IntegerType: st.IntegerType(),
        it.LongType: st.LongType(),
        it.FloatType: st.FloatType(),
        it.DoubleType: st.DoubleType(),
        it.DateType: st.DateType(),
        it.TimestamptzType: st.TimestampType(),
        it.TimestampType: st.TimestampNTZType(),
        it.StringType: st.StringType(),
        it.BinaryType: st.BinaryType(),
    }
    if type(iceberg_type) in primitives:
        return primitives[type(iceberg_type)]
    if isinstance(iceberg_type, it.DecimalType):
        return st.DecimalType(iceberg_type.precision, iceberg_type.scale)
    if isinstance(iceberg_type, it.StructType):
        return st.StructType(
            [
                st.StructField(f.name, _spark_type(f.field_type), not f.required)
                for f in iceberg_type.fields
            ]
        )
    if isinstance(iceberg_type, it.ListType):
        return st.ArrayType(
            _spark_type(iceberg_type.element_type), not iceberg_type.element_required
        )
    if isinstance(iceberg_type, it.MapType):
        return st.MapType(
            _spark_type(iceberg_type.key_type),
            _spark_type(iceberg_type.value_type),
            not iceberg_type.value_required,
        )
    raise AssertionError(f"No Spark type for Iceberg type {iceberg_type}")


def _without_metadata(data_type: DataType) -> DataType:
    from pyspark.sql import types as st

    if isinstance(data_type, st.StructType):
        return st.StructType(
            [
                st.StructField(f.name, _without_metadata(f.dataType), f.nullable)
                for f in data_type.fields
            ]
        )
    if isinstance(data_type, st.ArrayType):
        return st.ArrayType(_without_metadata(data_type.elementType), data_type.containsNull)
    if isinstance(data_type, st.MapType):
        return st.MapType(
            _without_metadata(data_type.keyType),
            _without_metadata(data_type.valueType),
            data_type.valueContainsNull,
        )
    return data_type


def _schema_tree(node: Any) -> Any:
    """Field ids, names, types and required flags of a schema in its JSON form (Appendix C)."""
    if isinstance(node, str):
        return re.sub(r"\s+", "", node)  # "decimal(9, 2)" and "decimal(9,2)" are one type
    kind = node["type"]
    if kind == "struct":
        return (
            "struct",
            tuple(
                (f["id"], f["name"], bool(f["required"]), _schema_tree(f["type"]))
                for f in node["fields"]
            ),
        )
    if kind == "list":
        return ("list", node["element-id"], node["element-required"], _schema_tree(node["element"]))
    if kind == "map":
        return (
            "map",
            node["key-id"],
            _schema_tree(node["key"]),
            node["value-id"],
            node["value-required"],
            _schema_tree(node["value"]),
        )
    raise AssertionError(f"Unknown schema node {node!r}")


def _current_schema_json(metadata: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])


def _list_of_struct_columns(static: StaticTable) -> list[int]:
    from pyiceberg.types import ListType, StructType

    return [
        i
        for i, f in enumerate(static.schema().fields)
        if isinstance(f.field_type, ListType) and isinstance(f.field_type.element_type, StructType)
    ]


def _as_pyiceberg_reads(rows: list[tuple[Any, ...]], columns: list[int]) -> list[tuple[Any, ...]]:
    """pyiceberg 0.12 reads a NULL list<struct> as an empty list (apache/iceberg-python#3833,
    open): expect that, and only that, deviation from what Spark reads. The Parquet files keep the
    null (Spark through Floe and Iceberg's Java reader both return it)."""
    empty = normalize([])
    out = [
        tuple(empty if i in columns and value is None else value for i, value in enumerate(row))
        for row in rows
    ]
    return sorted(out, key=repr)


def assert_pyiceberg_reads_like_floe(spark: SparkSession, table: str, location: str) -> None:
    """pyiceberg reads ``location`` with Floe's rows and schema, and its inspect tables agree with
    the metadata Floe wrote (read independently with floe.inspect)."""
    static = _static(location)
    metadata = inspect.load_table_metadata(location)

    # schema: ids, names, types, required flags as Floe wrote them; the same Spark schema
    assert _schema_tree(json.loads(static.schema().model_dump_json())) == _schema_tree(
        _current_schema_json(metadata)
    )
    assert _spark_type(static.schema().as_struct()) == _without_metadata(spark.table(table).schema)

    # rows, value by value
    expected = spark_rows(spark, table)
    got = sorted_rows(static.scan().to_arrow())
    assert got == _as_pyiceberg_reads(expected, _list_of_struct_columns(static))

    # inspect tables
    snapshots = static.inspect.snapshots().to_pylist()
    assert [(s["snapshot_id"], s["parent_id"], s["operation"]) for s in snapshots] == [
        (s["snapshot-id"], s.get("parent-snapshot-id"), s["summary"]["operation"])
        for s in metadata["snapshots"]
    ]
    current = inspect.find_snapshot(metadata)
    if current is None:
        assert expected == []
        assert static.inspect.files().num_rows == 0
        return
    live = inspect.table_files(location)
    files = static.inspect.files().to_pylist()
    assert sorted((f["file_path"], f["record_count"]) for f in files) == sorted(
        (f["file_path"], f["record_count"]) for f in live
    )
    assert sum(f["record_count"] for f in files) == len(expected)

    listed = inspect.read_manifest_list(current["manifest-list"])
    manifests = static.inspect.manifests().to_pylist()
    assert sorted((m["path"], m["added_snapshot_id"]) for m in manifests) == sorted(
        (m["manifest_path"], m["added_snapshot_id"]) for m in listed
    )
    entries = static.inspect.entries().to_pylist()
    expected_entries = [
        (e["data_file"]["file_path"], e["status"], e["snapshot_id"], e["sequence_number"])
        for m in listed
        for e in inspect.read_manifest(m["manifest_path"], m)
    ]
    assert sorted(
        (e["data_file"]["file_path"], e["status"], e["snapshot_id"], e["sequence_number"])
        for e in entries
    ) == sorted(expected_entries)

    partitions = static.inspect.partitions().to_pylist()
    assert sum(p["record_count"] for p in partitions) == len(expected)
    assert sum(p["file_count"] for p in partitions) == len(live)
    spec = static.spec()
    if spec.fields:
        names = [f.name for f in spec.fields]
        by_spark = spark.sql(
            f"SELECT {', '.join(names)}, count(*) FROM {table} GROUP BY {', '.join(names)}"
        ).collect()
        assert sorted(
            (repr(tuple(normalize(p["partition"][n]) for n in names)), p["record_count"])
            for p in partitions
        ) == sorted((repr(tuple(normalize(v) for v in row[:-1])), row[-1]) for row in by_spark)


# --- Floe -> pyiceberg -------------------------------------------------------------------------


def test_pyiceberg_reads_a_load_written_without_a_shuffle_into_an_indexed_table(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    """A partitioned load from folders that already group its rows (README "Writing": no shuffle)
    into a table whose sync index gathers a dense integral column in a bitmap: pyiceberg reads the
    files, manifests and partitions as Floe wrote them, and ignores the index files."""
    source = region_folders(spark, tmp_path / "by-region", 30000)
    table = f"floe.{namespace}.loaded"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, region STRING) USING floe PARTITIONED BY (region)")
    spark.sql(
        f"CALL floe.system.create_index(table => '{namespace}.loaded', name => 'by_id', "
        "column => 'id')"
    )
    insert = f"INSERT INTO {table} SELECT id, region FROM parquet.`{source}`"
    assert "Exchange" not in str(spark.sql(f"EXPLAIN {insert}").collect()[0][0])
    spark.sql(insert)
    covered = spark.sql(f"SELECT covered_files, live_files FROM {table}.indexes").collect()
    assert [tuple(r) for r in covered] == [(3, 3)]
    assert_pyiceberg_reads_like_floe(spark, table, _location(warehouse, namespace, "loaded"))


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_pyiceberg_reads_floe_appends_and_overwrites(
    spark: SparkSession, namespace: str, warehouse: Path, partitioned: bool
) -> None:
    table = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    create_all_types_table(spark, table, partitioned=partitioned)
    assert_pyiceberg_reads_like_floe(spark, table, location)  # no snapshot yet: empty

    for batch in BATCHES:
        insert_batch(spark, table, batch)
        assert_pyiceberg_reads_like_floe(spark, table, location)
    assert _ids(spark, table) == {1, 2, 3, 4, 5}
    # the one value pyiceberg reads differently is stored right: a null list<struct> (row 3)
    raw = {row["id"]: row["arr_st"] for row in inspect.read_table(location).to_pylist()}
    assert raw[3] is None
    assert raw[4] == []

    # new rows: copies of rows 1 (p 'a'), 2 (p 'b') and 5 (p 'a', another pd)
    staging = f"floe.{namespace}.staging"
    create_all_types_table(spark, staging, partitioned=False)
    first, second = BATCHES
    insert_batch(spark, staging, [with_id(first[0], 11), with_id(first[1], 12)])
    insert_batch(spark, staging, [with_id(second[1], 13)])
    columns = [c for c in spark.table(table).columns if c != "p"]

    if partitioned:
        spark.sql(
            f"INSERT OVERWRITE {table} PARTITION (p = 'a') "
            f"SELECT {', '.join(columns)} FROM {staging} WHERE p = 'a'"
        )
        assert _ids(spark, table) == {2, 3, 4, 11, 13}
    else:
        spark.sql(f"INSERT OVERWRITE {table} SELECT * FROM {staging} WHERE p = 'a'")
        assert _ids(spark, table) == {11, 13}
    assert_pyiceberg_reads_like_floe(spark, table, location)

    with _dynamic_overwrite(spark):
        spark.sql(f"INSERT OVERWRITE {table} SELECT * FROM {staging} WHERE p = 'b'")
    assert _ids(spark, table) == ({3, 4, 11, 12, 13} if partitioned else {12})
    assert_pyiceberg_reads_like_floe(spark, table, location)
    operations = [
        s["summary"]["operation"] for s in inspect.load_table_metadata(location)["snapshots"]
    ]
    assert operations == ["append", "append", "overwrite", "overwrite"]


def test_pyiceberg_reads_floe_ctas_and_rtas(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    source = f"floe.{namespace}.source"
    create_all_types_table(spark, source, partitioned=True)
    for batch in BATCHES:
        insert_batch(spark, source, batch)

    table = f"floe.{namespace}.copy"
    location = _location(warehouse, namespace, "copy")
    spark.sql(f"CREATE TABLE {table} AS SELECT * FROM {source}")
    assert _ids(spark, table) == {1, 2, 3, 4, 5}
    assert_pyiceberg_reads_like_floe(spark, table, location)

    # replace with another schema (fewer columns, a computed one) and a partitioning
    spark.sql(
        f"REPLACE TABLE {table} PARTITIONED BY (pd) AS "
        f"SELECT id, st, m, s || '!' AS s2, pd FROM {source} WHERE id <> 2"
    )
    assert _ids(spark, table) == {1, 3, 4, 5}
    assert_pyiceberg_reads_like_floe(spark, table, location)
    static = _static(location)
    assert [f.name for f in static.schema().fields] == ["id", "st", "m", "s2", "pd"]
    assert [f.name for f in static.spec().fields] == ["pd"]
    assert len(static.metadata.snapshots) == 2  # RTAS keeps the history of the table it replaced


def test_pyiceberg_reads_partitioned_ctas_of_nested_data(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.{namespace}.ctas"
    spark.sql(
        f"CREATE TABLE {table} PARTITIONED BY (part) AS SELECT id, "
        "CAST(named_struct('k', id, 'v', array(id, NULL)) AS STRUCT<k: BIGINT, v: ARRAY<BIGINT>>) "
        "AS nested, map(CAST(id AS STRING), id * 1.5D) AS m, CAST(id % 3 AS INT) AS part "
        "FROM range(0, 40)"
    )
    assert_pyiceberg_reads_like_floe(spark, table, _location(warehouse, namespace, "ctas"))


def test_pyiceberg_inspects_rtas_of_partitioned_table(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id INT, p STRING) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a')")
    spark.sql(f"REPLACE TABLE {table} PARTITIONED BY (p) AS SELECT 2 AS id, 'b' AS p")
    # REPLACE keeps the field ids of same-named columns (as Iceberg does), so the old spec's
    # source column still exists and pyiceberg can bind every spec.
    assert_pyiceberg_reads_like_floe(spark, table, _location(warehouse, namespace, "t"))


# --- pyiceberg -> Floe -------------------------------------------------------------------------


def _publish(metadata_location: str) -> int:
    """Publish a pyiceberg commit into the Hadoop layout (docs/format.md, 'Tables written by
    pyiceberg'): hard-link its ``NNNNN-<uuid>.metadata.json`` to the next ``v<N>.metadata.json``
    (fails if that exists), then
    point ``version-hint.text`` at N (bare number, written atomically, stale .crc removed)."""
    source = local_path(metadata_location)
    metadata_dir = source.parent
    versions = [
        int(m.group(1))
        for path in metadata_dir.iterdir()
        if (m := re.fullmatch(r"v(\d+)\.metadata\.json", path.name))
    ]
    version = max(versions, default=0) + 1
    os.link(source, metadata_dir / f"v{version}.metadata.json")
    temp = metadata_dir / f".hint-{uuid.uuid4()}.tmp"
    temp.write_text(str(version), encoding="ascii")
    (metadata_dir / ".version-hint.text.crc").unlink(missing_ok=True)
    temp.replace(metadata_dir / "version-hint.text")
    return version


def _sql_catalog(tmp_path: Path, warehouse: Path) -> SqlCatalog:
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(
        "pyiceberg",
        uri=f"sqlite:///{tmp_path}/catalog.db",
        warehouse=floe.warehouse_uri(str(warehouse)),
    )


def _py_schema() -> Any:
    from pyiceberg.schema import Schema
    from pyiceberg.types import (
        BooleanType,
        DateType,
        DecimalType,
        DoubleType,
        ListType,
        LongType,
        NestedField,
        StringType,
        StructType,
        TimestamptzType,
    )

    return Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "region", StringType(), required=False),
        NestedField(3, "ts", TimestamptzType(), required=False),
        NestedField(4, "amount", DecimalType(9, 2), required=False),
        NestedField(5, "flag", BooleanType(), required=False),
        NestedField(6, "day", DateType(), required=False),
        NestedField(7, "x", DoubleType(), required=False),
        NestedField(8, "tags", ListType(20, StringType(), element_required=False), required=False),
        NestedField(
            9,
            "point",
            StructType(
                NestedField(21, "lat", DoubleType(), required=False),
                NestedField(22, "lon", DoubleType(), required=True),
            ),
            required=False,
        ),
    )


def _py_rows(
    ids: list[int], regions: list[str | None], days: list[int | None], table: Table
) -> pa.Table:
    n = len(ids)
    ts = [
        None if d is None else dt.datetime(2024, 1, 1, 6, tzinfo=UTC) + dt.timedelta(days=d)
        for d in days
    ]
    data = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "region": pa.array(regions, pa.string()),
            "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
            "amount": pa.array(
                [None if i % 4 == 0 else Decimal(i * 101) / 100 - 5 for i in ids],
                pa.decimal128(9, 2),
            ),
            "flag": pa.array([None if i % 5 == 0 else i % 2 == 0 for i in ids], pa.bool_()),
            "day": pa.array(
                [dt.date(1969, 12, 25) + dt.timedelta(days=i * 3) for i in ids], pa.date32()
            ),
            "x": pa.array([float("nan") if i == 3 else i / 7 for i in ids], pa.float64()),
            "tags": pa.array(
                [None if i % 3 == 0 else [f"t{i}", None, "ü"][: 1 + i % 3] for i in ids],
                pa.list_(pa.string()),
            ),
            "point": pa.array(
                [None if i == 2 else {"lat": None if i % 2 else i * 0.5, "lon": -i} for i in ids],
                pa.struct([("lat", pa.float64()), ("lon", pa.float64())]),
            ),
        }
    )
    assert data.num_rows == n
    return data.cast(table.schema().as_arrow())


def _create_pyiceberg_table(catalog: SqlCatalog, namespace: str) -> Table:
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform

    catalog.create_namespace(namespace)
    spec = PartitionSpec(
        PartitionField(2, 1000, IdentityTransform(), "region"),
        PartitionField(1, 1001, BucketTransform(4), "id_bucket"),
        PartitionField(3, 1002, DayTransform(), "ts_day"),
    )
    return catalog.create_table(f"{namespace}.events", schema=_py_schema(), partition_spec=spec)


@pytest.fixture
def pyiceberg_table(
    spark: SparkSession, tmp_path: Path, warehouse: Path, new_namespace: Any
) -> tuple[SqlCatalog, Table, str]:
    """A pyiceberg table in a fresh namespace of the Floe warehouse, created and appended to by
    pyiceberg (two appends), every commit published into the Hadoop layout as v1, v2, v3."""
    namespace: str = new_namespace()  # created through Floe: the directory exists
    catalog = _sql_catalog(tmp_path, warehouse)
    table = _create_pyiceberg_table(catalog, namespace)
    assert table.location() == _location(warehouse, namespace, "events")
    _publish(table.metadata_location)
    # ids 3 and 5 share a bucket other than 4's, in one file whose id bounds [3, 5] contain 4
    first = _py_rows([1, 2, 3, 5, 6], ["eu", "us", "eu", "eu", None], [0, 1, 2, 2, None], table)
    table.append(first)
    _publish(table.metadata_location)
    table.append(_py_rows([7, 8, 9, 10], ["us", "eu", "ap", "eu"], [3, 3, 0, None], table))
    assert _publish(table.metadata_location) == 3
    return catalog, table, namespace


def test_floe_reads_table_written_by_pyiceberg(
    spark: SparkSession, pyiceberg_table: tuple[SqlCatalog, Table, str], warehouse: Path
) -> None:
    _, table, namespace = pyiceberg_table
    name = f"floe.{namespace}.events"
    expected = sorted_rows(_static(table.location()).scan().to_arrow())
    assert len(expected) == 9
    assert spark_rows(spark, name) == expected
    assert spark_rows(spark, f"SELECT * FROM {name} WHERE region = 'eu' AND id > 2") == [
        r for r in expected if r[1] == "eu" and r[0] > 2
    ]
    # the same schema through Spark as pyiceberg's (names, types, nullability)
    assert _spark_type(table.schema().as_struct()) == _without_metadata(spark.table(name).schema)
    assert [r[0] for r in spark.sql(f"SELECT count(*) FROM {name}").collect()] == [9]


def test_floe_prunes_files_by_pyiceberg_partitions(
    spark: SparkSession, pyiceberg_table: tuple[SqlCatalog, Table, str]
) -> None:
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import LongType

    _, table, namespace = pyiceberg_table
    name = f"floe.{namespace}.events"
    files = _static(table.location()).inspect.files().to_pylist()
    assert len(files) >= 7

    def scanned(where: str) -> int:
        spark.sql(f"SELECT * FROM {name} WHERE {where}").collect()
        return int(scan_report(spark, name)["result-data-files"])

    # identity
    in_eu = sum(f["partition"]["region"] == "eu" for f in files)
    assert 0 < in_eu < len(files)
    assert scanned("region = 'eu'") == in_eu
    # day: every row of a file whose day is >= 2024-01-04 matches, so bounds prune nothing more
    first_day = dt.date(2024, 1, 4)
    by_day = sum(
        f["partition"]["ts_day"] is not None and f["partition"]["ts_day"] >= first_day
        for f in files
    )
    assert 0 < by_day < len(files)
    assert scanned("ts >= TIMESTAMP'2024-01-04 00:00:00'") == by_day

    # bucket: a file whose id bounds contain 4 but that lies in another bucket is skipped
    bucket_of_4 = BucketTransform(4).transform(LongType())(4)
    bounds = [
        (f["partition"]["id_bucket"], f["readable_metrics"]["id"]["lower_bound"],
         f["readable_metrics"]["id"]["upper_bound"])
        for f in files
    ]  # fmt: skip
    assert any(b != bucket_of_4 and lo <= 4 <= hi for b, lo, hi in bounds)
    assert scanned("id = 4") == sum(b == bucket_of_4 and lo <= 4 <= hi for b, lo, hi in bounds)


def test_pyiceberg_and_floe_append_in_turn(
    spark: SparkSession, pyiceberg_table: tuple[SqlCatalog, Table, str]
) -> None:
    catalog, table, namespace = pyiceberg_table
    name = f"floe.{namespace}.events"
    location = table.location()
    spark.sql(
        f"INSERT INTO {name} (id, region, ts, amount, flag, day, x, tags, point) VALUES "
        "(100, 'floe', TIMESTAMP'2024-03-01 00:00:00', 1.23, true, DATE'2024-03-01', 0.5, "
        "array('f'), named_struct('lat', 1.0D, 'lon', 2.0D)), "
        "(101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    static = _static(location)
    assert len(static.scan().to_arrow()) == 11
    assert sorted_rows(static.scan().to_arrow()) == spark_rows(spark, name)

    # pyiceberg appends on top of Floe's commit: register Floe's v4 and publish as v5
    metadata = inspect.load_table_metadata(location)
    floe_file = inspect.metadata_file(location)
    assert floe_file.name == "v4.metadata.json"
    catalog.drop_table(f"{namespace}.events")  # only the SQL catalog's row; files stay
    again = catalog.register_table(f"{namespace}.events", f"file://{floe_file}")
    assert again.metadata.table_uuid == uuid.UUID(metadata["table-uuid"])
    again.append(_py_rows([200, 201], ["eu", "py"], [5, 6], again))
    assert _publish(again.metadata_location) == 5

    rows = spark_rows(spark, name)
    assert len(rows) == 13
    assert sorted_rows(_static(location).scan().to_arrow()) == rows

    # one line of history: four appends, each the parent of the next, sequence numbers 1..4
    final = inspect.load_table_metadata(location)
    snapshots = final["snapshots"]
    assert [s["summary"]["operation"] for s in snapshots] == ["append"] * 4
    assert [s.get("parent-snapshot-id") for s in snapshots] == [None] + [
        s["snapshot-id"] for s in snapshots[:-1]
    ]
    assert [s["sequence-number"] for s in snapshots] == [1, 2, 3, 4]
    assert final["last-sequence-number"] == 4
    assert final["current-snapshot-id"] == snapshots[-1]["snapshot-id"]
    hint = local_path(location) / "metadata" / "version-hint.text"
    assert hint.read_bytes() == b"5"
