"""Floe reads row-level deletes that Apache Iceberg's Spark runtime writes (catalog ``iceberg``,
hadoop type, same warehouse): v2 position delete files and v3 deletion vectors, after DELETE,
UPDATE and MERGE in merge-on-read mode, over several rounds (so a data file collects several
deletes) and on partitioned and unpartitioned tables; copy-on-write tables too.

Each round checks Floe's rows against Iceberg's own reader and against a model of the rows kept in
Python; pyiceberg, a third reader, cross-checks the final state. Equality deletes (which Iceberg's
Spark writers never produce) are covered by test_equality_deletes.py. Every test skips, saying
why, when the Iceberg runtime jar is unavailable.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import scan_report
from interop_tables import spark_rows, table_location

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Rows = dict[int, tuple[str, int]]  # id -> (data, p)

ROWS_PER_INSERT = 300
INSERTS = 3
MERGE_ON_READ = {
    "write.delete.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.merge.mode": "merge-on-read",
}
COPY_ON_WRITE = {key: "copy-on-write" for key in MERGE_ON_READ}


def _create(
    spark: SparkSession, name: str, version: int, partitioned: bool, properties: dict[str, str]
) -> Rows:
    """An Iceberg table of ``INSERTS`` appends of ids [0, 900), p = id % 3; returns its rows."""
    props = {"format-version": str(version), **properties}
    tblproperties = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, data STRING, p INT) USING iceberg "
        f"{'PARTITIONED BY (p)' if partitioned else ''} TBLPROPERTIES ({tblproperties})"
    )
    for k in range(INSERTS):
        start = k * ROWS_PER_INSERT
        spark.range(start, start + ROWS_PER_INSERT).selectExpr(
            "id", "concat('d', CAST(id AS STRING)) AS data", "CAST(id % 3 AS INT) AS p"
        ).writeTo(name).append()
    return {i: (f"d{i}", i % 3) for i in range(INSERTS * ROWS_PER_INSERT)}


def _assert_reads(
    spark: SparkSession, iceberg_name: str, floe_name: str, model: Rows, *, queries: bool = False
) -> None:
    """Floe returns the rows Iceberg returns, which are the rows of the model; with ``queries``,
    also through a filter and a projection that reads no data column."""
    expected = sorted(((i, d, p) for i, (d, p) in model.items()), key=repr)
    assert spark_rows(spark, iceberg_name) == expected
    floe_rows = spark_rows(spark, floe_name)
    assert len(floe_rows) == len(expected)
    assert floe_rows == expected
    if queries:
        assert spark_rows(spark, f"SELECT id FROM {floe_name} WHERE p = 1") == sorted(
            ((i,) for i, (_, p) in model.items() if p == 1), key=repr
        )
        assert spark.sql(f"SELECT count(*) FROM {floe_name}").collect()[0][0] == len(model)


def _rounds(
    spark: SparkSession, iceberg_name: str, floe_name: str, model: Rows, location: str
) -> None:
    """DELETE, UPDATE, MERGE and another DELETE through Iceberg; Floe reads each result, and so
    does floe.inspect (pure Python, applying the same deletes independently)."""
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id % 10 = 3")
    model = {i: v for i, v in model.items() if i % 10 != 3}
    _assert_reads(spark, iceberg_name, floe_name, model)

    spark.sql(f"UPDATE {iceberg_name} SET data = concat(data, '+u') WHERE id % 10 = 5")
    model = {i: ((d + "+u") if i % 10 == 5 else d, p) for i, (d, p) in model.items()}
    _assert_reads(spark, iceberg_name, floe_name, model)

    spark.range(850, 950).selectExpr(
        "id", "concat('m', CAST(id AS STRING)) AS data", "CAST(id % 3 AS INT) AS p"
    ).createOrReplaceTempView("merge_source")
    spark.sql(
        f"MERGE INTO {iceberg_name} t USING merge_source s ON t.id = s.id "
        "WHEN MATCHED AND s.id % 4 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.data = s.data "
        "WHEN NOT MATCHED THEN INSERT *"
    )
    for i in range(850, 950):
        if i in model and i % 4 == 0:
            del model[i]
        else:
            model[i] = (f"m{i}", i % 3)
    _assert_reads(spark, iceberg_name, floe_name, model)

    # the same data files again: a second delete file (v2) or a merged vector (v3) for each
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id % 10 = 7 OR id BETWEEN 100 AND 160")
    model = {i: v for i, v in model.items() if i % 10 != 7 and not 100 <= i <= 160}
    _assert_reads(spark, iceberg_name, floe_name, model, queries=True)
    arrow = inspect.read_table(location)
    columns = [arrow.column(c).to_pylist() for c in ("id", "data", "p")]
    assert sorted(zip(*columns, strict=True), key=repr) == sorted(
        ((i, d, p) for i, (d, p) in model.items()), key=repr
    )


def _delete_files(location: str) -> list[dict[str, Any]]:
    return [f for f in inspect.table_files(location) if f["content"] != 0]


FILE_PATH_ID = 2147483546


def _referenced_data_file(delete: dict[str, Any]) -> str | None:
    """The one data file a position delete file covers: ``referenced_data_file``, or equal
    ``file_path`` bounds (Iceberg 1.11 sets only the bounds in v2); None when it covers several."""
    if delete["referenced_data_file"] is not None:
        return str(delete["referenced_data_file"])
    lower = (delete["lower_bounds"] or {}).get(FILE_PATH_ID)
    upper = (delete["upper_bounds"] or {}).get(FILE_PATH_ID)
    return lower.decode() if lower is not None and lower == upper else None


def _assert_pyiceberg_reads(location: str, floe_rows: list[tuple[Any, ...]]) -> None:
    from pyiceberg.table import StaticTable

    table = StaticTable.from_metadata(location).scan().to_arrow()
    columns = [table.column(c).to_pylist() for c in ("id", "data", "p")]
    rows = sorted(zip(*columns, strict=True), key=repr)
    assert rows == floe_rows


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_floe_reads_iceberg_v2_position_deletes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, partitioned: bool
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    model = _create(spark, iceberg_name, 2, partitioned, MERGE_ON_READ)
    _rounds(spark, iceberg_name, floe_name, model, location)

    deletes = _delete_files(location)
    assert deletes and all(f["content"] == 1 and f["file_format"] == "PARQUET" for f in deletes), (
        "merge-on-read v2 writes Parquet position delete files"
    )
    data_paths = {f["file_path"] for f in inspect.table_files(location) if f["content"] == 0}
    per_data_file = Counter(_referenced_data_file(f) for f in deletes)
    assert set(per_data_file) <= data_paths
    assert len(per_data_file) > 1, "deletes on several data files"
    # Iceberg merges a file's earlier file-scoped deletes into each new delete file it writes
    assert max(per_data_file.values()) == 1
    spark.sql(f"SELECT * FROM {floe_name}").collect()
    assert scan_report(spark, floe_name)["result-delete-files"] >= len(deletes)
    _assert_pyiceberg_reads(location, spark_rows(spark, floe_name))


def test_floe_reads_iceberg_partition_scoped_position_deletes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """One delete file lists rows of several data files: each data file takes only its own."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    properties = {**MERGE_ON_READ, "write.delete.granularity": "partition"}
    model = _create(spark, iceberg_name, 2, True, properties)
    _rounds(spark, iceberg_name, floe_name, model, location)

    shared = [f for f in _delete_files(location) if _referenced_data_file(f) is None]
    assert shared, "partition granularity writes delete files that reference several data files"
    paths = set(pq.read_table(local_path(shared[0]["file_path"])).column("file_path").to_pylist())
    assert len(paths) > 1
    # and they are never merged: a partition collects one per round, all applying to its files
    assert max(Counter(f["partition"]["p"] for f in shared).values()) > 1
    _assert_pyiceberg_reads(location, spark_rows(spark, floe_name))


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_floe_reads_iceberg_v3_deletion_vectors(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, partitioned: bool
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    # pages of 20 rows: a filter skips pages inside files that have deletion vectors
    pages = {**MERGE_ON_READ, "write.parquet.page-row-limit": "20"}
    model = _create(spark, iceberg_name, 3, partitioned, pages)
    _rounds(spark, iceberg_name, floe_name, model, location)
    # each row's _pos (its position in its data file) as Iceberg's reader gives it, also where
    # the ranges leave gaps between the pages read
    where = "WHERE id BETWEEN 95 AND 175 OR id BETWEEN 600 AND 620"
    for columns in ("id, _pos", "id, data, _pos, _file"):
        query = f"SELECT {columns} FROM {{}} {where}"
        expected = spark_rows(spark, query.format(iceberg_name))
        assert spark_rows(spark, query.format(floe_name)) == expected
        kept = [i for i in [*range(95, 176), *range(600, 621)] if i % 10 not in (3, 7)]
        assert len(expected) == len([i for i in kept if not 100 <= i <= 160])  # _rounds' deletes

    dvs = _delete_files(location)
    assert dvs and all(f["content"] == 1 and f["file_format"] == "PUFFIN" for f in dvs)
    per_data_file = Counter(f["referenced_data_file"] for f in dvs)
    assert len(per_data_file) > 1, "deletes on several data files"
    assert max(per_data_file.values()) == 1, "one vector per data file: later deletes merge into it"
    for dv in dvs:
        blobs = inspect.read_puffin(dv["file_path"])["blobs"]
        blob = next(b for b in blobs if b["offset"] == dv["content_offset"])
        assert blob["length"] == dv["content_size_in_bytes"]
        assert blob["properties"]["referenced-data-file"] == dv["referenced_data_file"]
        assert int(blob["properties"]["cardinality"]) == dv["record_count"]
    # Floe reads each vector at its manifest offset, also when one Puffin file holds several
    if partitioned:
        assert max(Counter(f["file_path"] for f in dvs).values()) > 1
    spark.sql(f"SELECT * FROM {floe_name}").collect()
    assert scan_report(spark, floe_name)["result-delete-files"] == len(dvs)
    _assert_pyiceberg_reads(location, spark_rows(spark, floe_name))


@pytest.mark.parametrize("version", [2, 3])
def test_floe_reads_iceberg_copy_on_write_changes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, version: int
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    model = _create(spark, iceberg_name, version, True, COPY_ON_WRITE)
    _rounds(spark, iceberg_name, floe_name, model, location)
    assert _delete_files(location) == []
    _assert_pyiceberg_reads(location, spark_rows(spark, floe_name))


def test_floe_reads_older_snapshots_without_later_deletes(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    """Time travel: a snapshot before a delete reads every row, the one after it does not."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    model = _create(spark, iceberg_name, 3, False, MERGE_ON_READ)
    before = spark.sql(f"SELECT snapshot_id FROM {iceberg_name}.snapshots").collect()[-1][0]
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id < 10")
    assert spark.sql(f"SELECT count(*) FROM {floe_name}").collect()[0][0] == len(model) - 10
    old = spark.sql(f"SELECT count(*) FROM {floe_name} VERSION AS OF {before}").collect()[0][0]
    assert old == len(model)


def test_floe_reads_position_deletes_without_field_ids_by_exact_path(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """A position delete file written by another tool, without Parquet field ids, that lists rows
    of two data files and no ``file_path`` bounds (so it applies to every file of the table):
    Floe matches its columns by name and applies each row only to the data file whose path is
    exactly its ``file_path``; another spelling of the same file (``file:///`` for ``file:/``)
    deletes nothing."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    model = _create(spark, iceberg_name, 2, False, MERGE_ON_READ)
    data_files = sorted(
        (f for f in inspect.table_files(location) if f["content"] == 0),
        key=lambda f: f["file_path"],
    )
    assert len(data_files) >= 2
    first, second = data_files[0]["file_path"], data_files[1]["file_path"]
    assert first.startswith("file:/") and not first.startswith("file:///")
    other_spelling = "file:///" + first[len("file:/") :]
    id_at = {
        (r[0], r[1]): r[2]
        for r in spark.sql(f"SELECT _file, _pos, id FROM {iceberg_name}").collect()
    }
    rows = [(first, 0), (first, 7), (second, 3), (other_spelling, 1)]
    delete_path = local_path(location) / "data" / "pos-deletes-no-ids.parquet"
    pq.write_table(
        pa.table({"file_path": [r[0] for r in rows], "pos": [r[1] for r in rows]}), delete_path
    )
    jvm: Any = spark._jvm
    jsc: Any = spark._jsc
    table = jvm.org.apache.iceberg.hadoop.HadoopTables(jsc.hadoopConfiguration()).load(location)
    delete = (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(table.spec())
        .ofPositionDeletes()
        .withPath(delete_path.as_uri())
        .withFormat("PARQUET")
        .withFileSizeInBytes(delete_path.stat().st_size)
        .withRecordCount(len(rows))
        .build()
    )
    table.newRowDelta().addDeletes(delete).commit()

    deleted = {id_at[(first, 0)], id_at[(first, 7)], id_at[(second, 3)]}
    expected = {i: v for i, v in model.items() if i not in deleted}
    got = spark_rows(spark, floe_name)
    assert got == sorted(((i, d, p) for i, (d, p) in expected.items()), key=repr)
    assert scan_report(spark, floe_name)["result-delete-files"] == len(data_files)
