"""Iceberg's metadata tables on Floe tables: ``floe.db.t.snapshots``, ``.history``, ``.files``,
``.data_files``, ``.delete_files``, ``.manifests``, ``.partitions``, ``.entries``, ``.refs``,
``.metadata_log_entries``, ``.all_data_files`` and ``.all_manifests``.

Two shared tables (built once for the module): ``p``, format v2, partitioned by ``s`` and then also
by ``days(d)``, with appends, a merge-on-read DELETE (position delete file), an INSERT OVERWRITE
and, when the Iceberg runtime is available, a tag and a branch with its own commit written by
Iceberg; ``u``, format v3, unpartitioned, with a merge-on-read DELETE (deletion vector). Each
metadata table has the columns (names, types, nullability, order) and the rows of the Iceberg
runtime's metadata table on the same table; Floe-only checks compare values with ``floe.inspect``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import ICEBERG_CATALOG, unique_name

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from iceberg_runtime import IcebergRuntime
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType

#: Every metadata table Floe serves.
METADATA_TABLES = (
    "snapshots",
    "history",
    "files",
    "data_files",
    "delete_files",
    "manifests",
    "partitions",
    "entries",
    "refs",
    "metadata_log_entries",
    "all_data_files",
    "all_manifests",
)


@dataclass(frozen=True)
class Tables:
    namespace: str
    warehouse: Path
    with_iceberg_refs: bool

    def location(self, table: str) -> str:
        return f"{floe.warehouse_uri(str(self.warehouse))}/{self.namespace}/{table}"


@pytest.fixture(scope="module")
def tables(
    spark: SparkSession, warehouse: Path, iceberg_runtime: IcebergRuntime
) -> Iterator[Tables]:
    ns = unique_name("metadata_tables")
    spark.sql(f"CREATE NAMESPACE floe.{ns}")
    p, u = f"floe.{ns}.p", f"floe.{ns}.u"
    spark.sql(
        f"CREATE TABLE {p} (id BIGINT, s STRING, d DATE) USING floe PARTITIONED BY (s) "
        "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {p} VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02'), "
        "(3, 'a', DATE'2024-01-03')"
    )
    spark.sql(f"INSERT INTO {p} VALUES (4, 'b', DATE'2024-01-04'), (5, 'c', DATE'2024-01-05')")
    spark.sql(f"DELETE FROM {p} WHERE id = 1")
    spark.sql(f"ALTER TABLE {p} ADD PARTITION FIELD days(d)")
    spark.sql(f"INSERT INTO {p} VALUES (6, 'a', DATE'2024-01-06'), (7, 'a', CAST(NULL AS DATE))")
    spark.sql(f"INSERT OVERWRITE {p} PARTITION (s = 'c') SELECT 8, DATE'2024-01-08'")
    spark.sql(
        f"CREATE TABLE {u} (id BIGINT, name STRING, st STRUCT<x: INT, tags: ARRAY<STRING>>) "
        "USING floe TBLPROPERTIES ('format-version'='3', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(
        f"INSERT INTO {u} VALUES (1, 'x', named_struct('x', 1, 'tags', array('t'))), "
        "(2, 'y', NULL), (3, NULL, named_struct('x', NULL, 'tags', array()))"
    )
    spark.sql(f"INSERT INTO {u} VALUES (4, 'z', named_struct('x', 4, 'tags', NULL))")
    spark.sql(f"DELETE FROM {u} WHERE id = 2")
    with_refs = iceberg_runtime.jar is not None
    if with_refs:
        _iceberg_refs(spark, f"{ICEBERG_CATALOG}.{ns}.p")
    yield Tables(ns, warehouse, with_refs)


def _iceberg_refs(spark: SparkSession, iceberg_name: str) -> None:
    """Iceberg writes a tag at the current snapshot and a branch with one commit of its own."""
    jvm: Any = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
        spark._jsparkSession, iceberg_name
    )
    current = table.currentSnapshot().snapshotId()
    table.manageSnapshots().createTag("t1", current).createBranch("b1", current).commit()
    spark.sql(f"INSERT INTO {iceberg_name}.branch_b1 VALUES (9, 'b', DATE'2024-01-09')")


def _plain(data_type: DataType) -> DataType:
    """The type without field metadata (Iceberg attaches docs and ids)."""
    from pyspark.sql import types as st

    if isinstance(data_type, st.StructType):
        return st.StructType(
            [st.StructField(f.name, _plain(f.dataType), f.nullable) for f in data_type.fields]
        )
    if isinstance(data_type, st.ArrayType):
        return st.ArrayType(_plain(data_type.elementType), data_type.containsNull)
    if isinstance(data_type, st.MapType):
        return st.MapType(
            _plain(data_type.keyType), _plain(data_type.valueType), data_type.valueContainsNull
        )
    return data_type


def _norm(value: Any) -> Any:
    """A hashable, order-independent form of a collected value (maps as sorted item tuples).

    An empty map is None: Floe reads an empty metrics map (which Iceberg writes) back as absent.
    """
    from pyspark.sql import Row

    if isinstance(value, Row):
        return tuple((k, _norm(v)) for k, v in value.asDict().items())
    if isinstance(value, dict):
        return tuple(sorted((_norm(k), _norm(v)) for k, v in value.items())) or None
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def _rows(spark: SparkSession, name: str, columns: list[str]) -> list[Any]:
    from pyspark.sql.functions import regexp_replace

    table = spark.table(name)
    if name.endswith(".metadata_log_entries"):
        # the current metadata file shows as each engine loaded it: file:///x or file:/x
        table = table.withColumn("file", regexp_replace("file", "^file:///", "file:/"))
    collected = table.select(*columns).collect()
    return sorted((_norm(r) for r in collected), key=repr)


def _iceberg_columns(spark: SparkSession, iceberg_name: str) -> list[str]:
    return [f"`{f.name}`" for f in spark.table(iceberg_name).schema.fields]


@pytest.mark.parametrize("table", ["p", "u"])
@pytest.mark.parametrize("metadata_table", METADATA_TABLES)
def test_columns_and_rows_match_iceberg(
    spark: SparkSession, tables: Tables, iceberg: str, table: str, metadata_table: str
) -> None:
    floe_name = f"floe.{tables.namespace}.{table}.{metadata_table}"
    iceberg_name = f"{iceberg}.{tables.namespace}.{table}.{metadata_table}"
    columns = _iceberg_columns(spark, iceberg_name)
    assert _plain(spark.table(floe_name).schema) == _plain(spark.table(iceberg_name).schema)
    floe_rows = _rows(spark, floe_name, columns)
    assert floe_rows, f"{floe_name} is empty: the shared tables should fill every metadata table"
    assert floe_rows == _rows(spark, iceberg_name, columns)


def test_unpartitioned_tables_have_no_partition_columns(
    spark: SparkSession, tables: Tables
) -> None:
    u = f"floe.{tables.namespace}.u"
    assert "partition" not in spark.table(f"{u}.files").columns
    assert "partition" not in spark.table(f"{u}.entries").schema["data_file"].dataType.names  # type: ignore[attr-defined]
    partitions = spark.table(f"{u}.partitions")
    assert partitions.columns[:2] == ["record_count", "file_count"]
    rows = partitions.collect()
    live = inspect.table_files(tables.location("u"))
    data_files = sum(1 for f in live if f["content"] == 0)
    assert [(r.record_count, r.file_count, r.position_delete_file_count) for r in rows] == [
        (4, data_files, 1)
    ]


def test_snapshots_show_operations_and_summaries(spark: SparkSession, tables: Tables) -> None:
    metadata = inspect.load_table_metadata(tables.location("p"))
    rows = spark.sql(
        f"SELECT snapshot_id, parent_id, operation, summary, manifest_list, "
        f"CAST(committed_at AS TIMESTAMP) AS at FROM floe.{tables.namespace}.p.snapshots"
    ).collect()
    expected = {
        s["snapshot-id"]: (
            s.get("parent-snapshot-id"),
            s["summary"]["operation"],
            {k: v for k, v in s["summary"].items() if k != "operation"},
            s["manifest-list"],
            s["timestamp-ms"],
        )
        for s in metadata["snapshots"]
    }
    assert {
        r.snapshot_id: (
            r.parent_id,
            r.operation,
            r.summary,
            r.manifest_list,
            round(r.at.timestamp() * 1000),
        )
        for r in rows
    } == expected
    operations = [r.operation for r in rows]
    assert operations[:5] == ["append", "append", "delete", "append", "overwrite"]


def test_files_match_floe_inspect(spark: SparkSession, tables: Tables) -> None:
    for table in ("p", "u"):
        name = f"floe.{tables.namespace}.{table}"
        live = inspect.table_files(tables.location(table))
        files = spark.sql(f"SELECT file_path, content, record_count FROM {name}.files").collect()
        assert sorted((r.file_path, r.content, r.record_count) for r in files) == sorted(
            (f["file_path"], f["content"], f["record_count"]) for f in live
        )
        data = spark.table(f"{name}.data_files").count()
        deletes = spark.table(f"{name}.delete_files").count()
        assert (data, deletes) == (
            sum(1 for f in live if f["content"] == 0),
            sum(1 for f in live if f["content"] != 0),
        )
        assert deletes == 1
    dv = spark.sql(
        f"SELECT file_format, referenced_data_file, content_offset, content_size_in_bytes "
        f"FROM floe.{tables.namespace}.u.delete_files"
    ).collect()
    assert dv[0].file_format == "PUFFIN"
    assert dv[0].referenced_data_file is not None and dv[0].content_size_in_bytes > 0


def test_partitions_group_by_spec_and_unified_partition(
    spark: SparkSession, tables: Tables
) -> None:
    import datetime

    rows = spark.sql(
        f"SELECT partition.s, partition.d_day, spec_id, record_count, file_count, "
        f"position_delete_file_count FROM floe.{tables.namespace}.p.partitions"
    ).collect()
    got = sorted(((r[0], r[1], r[2], r[3], r[5]) for r in rows), key=repr)
    # ('a', NULL) under spec 0 and ('a', day NULL) under spec 1 stay two rows, as in Iceberg
    assert got == sorted(
        [
            ("a", None, 0, 2, 1),
            ("b", None, 0, 2, 0),
            ("a", datetime.date(2024, 1, 6), 1, 1, 0),
            ("a", None, 1, 1, 0),
            ("c", datetime.date(2024, 1, 8), 1, 1, 0),
        ],
        key=repr,
    )
    live = inspect.table_files(tables.location("p"))
    assert sum(r.file_count for r in rows) == sum(1 for f in live if f["content"] == 0)


def test_history_lists_only_main(spark: SparkSession, tables: Tables) -> None:
    metadata = inspect.load_table_metadata(tables.location("p"))
    history = spark.table(f"floe.{tables.namespace}.p.history").collect()
    assert [r.snapshot_id for r in history] == [e["snapshot-id"] for e in metadata["snapshot-log"]]
    assert all(r.is_current_ancestor for r in history)
    snapshots = spark.table(f"floe.{tables.namespace}.p.snapshots").count()
    assert snapshots == len(metadata["snapshots"])
    if tables.with_iceberg_refs:
        assert snapshots == len(history) + 1  # the branch's own commit


def test_refs_show_iceberg_branches_and_tags(
    spark: SparkSession, tables: Tables, iceberg: str
) -> None:
    metadata = inspect.load_table_metadata(tables.location("p"))
    refs = spark.table(f"floe.{tables.namespace}.p.refs").collect()
    assert {(r.name, r.type, r.snapshot_id) for r in refs} == {
        (name, ref["type"].upper(), ref["snapshot-id"]) for name, ref in metadata["refs"].items()
    }
    assert {r.name for r in refs} == {"main", "t1", "b1"}
    # the branch's own commit: in snapshots, not in history; its files through VERSION AS OF
    name = f"floe.{tables.namespace}.p"
    branch_head = metadata["refs"]["b1"]["snapshot-id"]
    assert branch_head != metadata["current-snapshot-id"]
    assert (
        spark.sql(f"SELECT * FROM {name}.snapshots WHERE snapshot_id = {branch_head}").count() == 1
    )
    assert spark.sql(f"SELECT * FROM {name}.history WHERE snapshot_id = {branch_head}").count() == 0
    on_branch = spark.sql(f"SELECT file_path FROM {name}.files VERSION AS OF 'b1'").collect()
    assert sorted(r.file_path for r in on_branch) == sorted(
        f["file_path"] for f in inspect.table_files(tables.location("p"), branch_head)
    )
    on_main = spark.table(f"{name}.files").count()
    assert len(on_branch) == on_main + 1


def test_time_travel_on_metadata_tables(spark: SparkSession, tables: Tables) -> None:
    metadata = inspect.load_table_metadata(tables.location("p"))
    first = metadata["snapshots"][0]["snapshot-id"]
    name = f"floe.{tables.namespace}.p"
    files = spark.sql(f"SELECT file_path FROM {name}.files VERSION AS OF {first}").collect()
    expected = inspect.table_files(tables.location("p"), first)
    assert sorted(r.file_path for r in files) == sorted(f["file_path"] for f in expected)
    assert len(files) == 2
    at = metadata["snapshot-log"][0]["timestamp-ms"]
    by_time = spark.sql(
        f"SELECT count(*) FROM {name}.manifests TIMESTAMP AS OF timestamp_millis({at})"
    ).collect()
    assert by_time[0][0] == 1
    with pytest.raises(Exception, match="snapshots: "):
        spark.sql(f"SELECT * FROM {name}.files VERSION AS OF 12345").collect()


def test_unknown_metadata_table_lists_the_known_ones(spark: SparkSession, tables: Tables) -> None:
    with pytest.raises(Exception, match="metadata tables are snapshots, history, files"):
        spark.table(f"floe.{tables.namespace}.p.nope").collect()
    with pytest.raises(Exception, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table(f"floe.{tables.namespace}.missing.snapshots").collect()


def test_partition_values_and_bounds_of_many_transforms_match_iceberg(
    spark: SparkSession, namespace: str, iceberg: str
) -> None:
    """Partition structs, manifest summaries (human forms) and readable metrics of identity,
    bucket, truncate and time transforms over timestamps, binary and decimals."""
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, ts TIMESTAMP, tn TIMESTAMP_NTZ, b BINARY, "
        "dec DECIMAL(9,2), f DOUBLE) USING floe "
        "PARTITIONED BY (ts, tn, b, dec, bucket(4, id), hours(ts), truncate(2, dec))"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES (1, TIMESTAMP'2024-01-01 10:00:00.25', "
        "TIMESTAMP_NTZ'2024-01-01 10:00:00.5', X'0102', 1.50, double('NaN')), "
        "(2, TIMESTAMP'1969-12-31 23:59:59', TIMESTAMP_NTZ'2024-01-01 10:00:00', NULL, -3.00, 1.0)"
    )
    for metadata_table in ("manifests", "files", "partitions", "entries"):
        floe_name = f"{t}.{metadata_table}"
        iceberg_name = f"{iceberg}.{namespace}.t.{metadata_table}"
        columns = _iceberg_columns(spark, iceberg_name)
        assert _plain(spark.table(floe_name).schema) == _plain(spark.table(iceberg_name).schema)
        assert _rows(spark, floe_name, columns) == _rows(spark, iceberg_name, columns)
