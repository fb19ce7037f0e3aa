"""Interop with Apache Iceberg's own Spark runtime (1.11, catalog ``iceberg``, hadoop type) on the
same warehouse, in the shared session.

Iceberg reads Floe's tables and their metadata tables; Floe reads Iceberg's tables; appends from
both catalogs, one after the other as in any shared-warehouse setup, stay visible to both with one
consistent snapshot history; Iceberg's maintenance procedures run on a Floe table. Every test
skips, saying why, when the Iceberg runtime jar cannot be downloaded (see conftest.py).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import scan_report
from interop_tables import (
    BATCHES,
    create_all_types_table,
    insert_batch,
    spark_rows,
    table_location,
)

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType

#: Filters whose results depend on the per-file metrics (bounds, null and NaN counts) and partition
#: values Floe writes, when a reader prunes with them.
FILTERS = (
    "i > 0",
    "l < 0",
    "f > 1.0 AND NOT isnan(f)",
    "isnan(d)",
    "dec_big > 1",
    "dt < DATE'1970-01-01'",
    "ts < TIMESTAMP'1970-01-01 00:00:00'",
    "ts_ntz >= TIMESTAMP_NTZ'2024-01-01 00:00:00'",
    "s = ''",
    "s > 'héllo wörld ✓ and a string longer'",
    "bin = X'0102'",
    "b IS NULL",
    "st.x = -1",
    "p = 'c/d é=%'",
    "pd IS NULL",
    "p = 'a' AND pd = DATE'2024-01-02'",
)
#: Spark orders NaN above +Infinity, so NaN > 1.0 holds. Iceberg's Java evaluators treat NaN as
#: matching no comparison and prune files that hold only NaN here (on its own tables too), so
#: these filters are checked through Floe alone.
FLOE_ONLY_FILTERS = ("f > 1.0", "d > 1.0", "st.inner.z > 0")


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


def _ids(spark: SparkSession, table: str) -> list[int]:
    return sorted(int(row[0]) for row in spark.sql(f"SELECT id FROM {table}").collect())


def assert_same_table(spark: SparkSession, iceberg_name: str, floe_name: str) -> None:
    """Both catalogs read the same rows, value by value, with the same Spark schema."""
    assert _without_metadata(spark.table(iceberg_name).schema) == _without_metadata(
        spark.table(floe_name).schema
    )
    assert spark_rows(spark, iceberg_name) == spark_rows(spark, floe_name)


def assert_same_filtered_rows(spark: SparkSession, iceberg_name: str, floe_name: str) -> None:
    """Filtered reads through both catalogs return what filtering all rows returns, so neither
    reader prunes a file it needed with the other engine's metrics or partition values."""
    df = spark.table(floe_name)
    reference = spark.createDataFrame(df.collect(), df.schema)  # no metrics: nothing to prune
    view = f"reference_{re.sub(r'[^a-z0-9]', '_', floe_name.lower())}"
    reference.createOrReplaceTempView(view)
    for where in FILTERS:
        expected = spark_rows(spark, f"SELECT * FROM {view} WHERE {where}")
        assert spark_rows(spark, f"SELECT * FROM {iceberg_name} WHERE {where}") == expected, where
        assert spark_rows(spark, f"SELECT * FROM {floe_name} WHERE {where}") == expected, where
    for where in FLOE_ONLY_FILTERS:
        expected = spark_rows(spark, f"SELECT * FROM {view} WHERE {where}")
        assert spark_rows(spark, f"SELECT * FROM {floe_name} WHERE {where}") == expected, where
    spark.catalog.dropTempView(view)


def _hint_through_hadoop(spark: SparkSession, location: str) -> str:
    """version-hint.text read the way Iceberg's HadoopTableOperations reads it: one line, through
    Hadoop's LocalFileSystem, which verifies the ``.version-hint.text.crc`` sidecar if present."""
    jvm: Any = spark._jvm
    jsc: Any = spark._jsc
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(jsc.hadoopConfiguration())
    path = jvm.org.apache.hadoop.fs.Path(f"{location}/metadata/version-hint.text")
    reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(fs.open(path), "UTF-8"))
    try:
        return str(reader.readLine())
    finally:
        reader.close()


def _version_files(location: str) -> list[int]:
    names = (local_path(location) / "metadata").iterdir()
    return sorted(
        int(m.group(1)) for p in names if (m := re.fullmatch(r"v(\d+)\.metadata\.json", p.name))
    )


# --- Iceberg reads Floe ------------------------------------------------------------------------


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_iceberg_reads_floe_table(
    spark: SparkSession, iceberg: str, namespace: str, partitioned: bool
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    create_all_types_table(spark, floe_name, partitioned=partitioned)
    assert spark_rows(spark, iceberg_name) == []
    for batch in BATCHES:
        insert_batch(spark, floe_name, batch)
    assert _ids(spark, iceberg_name) == [1, 2, 3, 4, 5]
    assert_same_table(spark, iceberg_name, floe_name)
    if partitioned:  # more, smaller files: more to prune
        assert_same_filtered_rows(spark, iceberg_name, floe_name)

    # after an overwrite (deleted manifest entries, a new manifest)
    if partitioned:
        columns = [c for c in spark.table(floe_name).columns if c != "p"]
        spark.sql(
            f"INSERT OVERWRITE {floe_name} PARTITION (p = 'a') "
            f"SELECT {', '.join(columns)} FROM {floe_name} WHERE id = 1"
        )
        assert _ids(spark, floe_name) == [1, 2, 3, 4]
    else:
        spark.sql(f"INSERT OVERWRITE {floe_name} SELECT * FROM {floe_name} WHERE id <> 2")
        assert _ids(spark, floe_name) == [1, 3, 4, 5]
    assert_same_table(spark, iceberg_name, floe_name)


def test_iceberg_metadata_tables_on_floe_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    create_all_types_table(spark, floe_name, partitioned=True)
    for batch in BATCHES:
        insert_batch(spark, floe_name, batch)
    columns = [c for c in spark.table(floe_name).columns if c != "p"]
    spark.sql(
        f"INSERT OVERWRITE {floe_name} PARTITION (p = 'a') "
        f"SELECT {', '.join(columns)} FROM {floe_name} WHERE p = 'a' AND id = 1"
    )
    metadata = inspect.load_table_metadata(location)
    current = inspect.find_snapshot(metadata)
    assert current is not None
    assert len(metadata["snapshots"]) == 3

    snapshots = spark.sql(
        f"SELECT snapshot_id, parent_id, operation, summary FROM {iceberg_name}.snapshots "
        "ORDER BY committed_at"
    ).collect()
    assert [(r.snapshot_id, r.parent_id, r.operation) for r in snapshots] == [
        (s["snapshot-id"], s.get("parent-snapshot-id"), s["summary"]["operation"])
        for s in metadata["snapshots"]
    ]
    assert [r.operation for r in snapshots] == ["append", "append", "overwrite"]
    assert snapshots[-1].summary["total-records"] == str(len(_ids(spark, floe_name)))

    live = inspect.table_files(location)
    files = spark.sql(
        f"SELECT file_path, record_count, partition, spec_id FROM {iceberg_name}.files"
    ).collect()
    assert sorted((r.file_path, r.record_count, r.spec_id) for r in files) == sorted(
        (f["file_path"], f["record_count"], f["spec_id"]) for f in live
    )
    assert sorted(((r.partition.p, r.partition.pd) for r in files), key=repr) == sorted(
        ((f["partition"]["p"], _date(f["partition"]["pd"])) for f in live), key=repr
    )
    assert sum(r.record_count for r in files) == len(_ids(spark, floe_name))

    listed = inspect.read_manifest_list(current["manifest-list"])
    manifests = spark.sql(
        f"SELECT path, added_snapshot_id, added_data_files_count, existing_data_files_count, "
        f"deleted_data_files_count FROM {iceberg_name}.manifests"
    ).collect()
    assert sorted(tuple(r) for r in manifests) == sorted(
        (
            m["manifest_path"],
            m["added_snapshot_id"],
            m["added_files_count"],
            m["existing_files_count"],
            m["deleted_files_count"],
        )
        for m in listed
    )
    assert any(r.deleted_data_files_count > 0 for r in manifests)

    entries = spark.sql(
        f"SELECT status, snapshot_id, sequence_number, file_sequence_number, data_file.file_path "
        f"FROM {iceberg_name}.entries"
    ).collect()
    assert sorted(tuple(r) for r in entries) == sorted(
        (
            e["status"],
            e["snapshot_id"],
            e["sequence_number"],
            e["file_sequence_number"],
            e["data_file"]["file_path"],
        )
        for m in listed
        for e in inspect.read_manifest(m["manifest_path"], m)
    )
    history = spark.sql(f"SELECT snapshot_id, is_current_ancestor FROM {iceberg_name}.history")
    assert sorted(r.snapshot_id for r in history.collect()) == sorted(
        s["snapshot-id"] for s in metadata["snapshots"]
    )
    partitions = spark.sql(f"SELECT partition, record_count FROM {iceberg_name}.partitions")
    assert sum(r.record_count for r in partitions.collect()) == len(_ids(spark, floe_name))
    refs = spark.sql(f"SELECT name, snapshot_id FROM {iceberg_name}.refs").collect()
    assert [(r.name, r.snapshot_id) for r in refs] == [("main", current["snapshot-id"])]


def _date(days_or_date: Any) -> Any:
    import datetime as dt

    if isinstance(days_or_date, int):
        return dt.date(1970, 1, 1) + dt.timedelta(days=days_or_date)
    return days_or_date


# --- Floe reads Iceberg ------------------------------------------------------------------------


def test_floe_reads_table_iceberg_wrote(spark: SparkSession, iceberg: str, namespace: str) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    create_all_types_table(spark, iceberg_name, partitioned=True, using="USING iceberg")
    for batch in BATCHES:
        insert_batch(spark, iceberg_name, batch)
    assert _ids(spark, floe_name) == [1, 2, 3, 4, 5]
    assert_same_table(spark, iceberg_name, floe_name)
    assert_same_filtered_rows(spark, iceberg_name, floe_name)

    # Floe prunes Iceberg's files by Iceberg's partition values
    files = spark.sql(f"SELECT partition FROM {iceberg_name}.files").collect()
    in_a = sum(r.partition.p == "a" for r in files)
    assert 0 < in_a < len(files)
    spark.sql(f"SELECT * FROM {floe_name} WHERE p = 'a'").collect()
    assert scan_report(spark, floe_name)["result-data-files"] == in_a


# --- both write --------------------------------------------------------------------------------


@pytest.mark.parametrize("creator", ["floe", "iceberg"])
def test_alternating_appends_stay_visible_to_both(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    warehouse: Path,
    tmp_path: Path,
    creator: str,
) -> None:
    names = {"floe": f"floe.{namespace}.t", "iceberg": f"{iceberg}.{namespace}.t"}
    location = table_location(warehouse, namespace, "t")
    using = "USING iceberg" if creator == "iceberg" else ""
    spark.sql(
        f"CREATE TABLE {names[creator]} (id BIGINT, who STRING, p STRING) {using} "
        "PARTITIONED BY (p)"
    )
    writers = ["iceberg", "floe"] if creator == "floe" else ["floe", "iceberg"]
    appends = 6
    for k in range(1, appends + 1):
        writer = writers[(k - 1) % 2]
        spark.sql(f"INSERT INTO {names[writer]} VALUES ({k}, '{writer}', 'p{k % 2}')")
        for reader in names.values():
            assert _ids(spark, reader) == list(range(1, k + 1)), (writer, reader)
        # each commit publishes the next version; Iceberg's reader gets the hint intact
        versions = _version_files(location)
        assert versions == list(range(1, k + 2))
        hint = local_path(location) / "metadata" / "version-hint.text"
        assert hint.read_bytes() == str(k + 1).encode()  # bare number, no newline
        assert _hint_through_hadoop(spark, location) == str(k + 1)

    assert_same_table(spark, names["iceberg"], names["floe"])
    who = spark.sql(f"SELECT who, count(*) FROM {names['floe']} GROUP BY who").collect()
    assert dict((r[0], r[1]) for r in who) == {"floe": 3, "iceberg": 3}

    # one line of history, in commit order, with sequence numbers 1..6
    metadata = inspect.load_table_metadata(location)
    snapshots = metadata["snapshots"]
    assert [s["sequence-number"] for s in snapshots] == list(range(1, appends + 1))
    assert metadata["last-sequence-number"] == appends
    assert [s.get("parent-snapshot-id") for s in snapshots] == [None] + [
        s["snapshot-id"] for s in snapshots[:-1]
    ]
    assert metadata["current-snapshot-id"] == snapshots[-1]["snapshot-id"]
    assert [s["summary"]["operation"] for s in snapshots] == ["append"] * appends
    engines = [s["summary"].get("engine-name") for s in snapshots]
    assert engines == [("spark" if w == "iceberg" else "floe") for w in writers * 3]
    ancestry = spark.sql(
        f"SELECT snapshot_id, parent_id FROM {names['iceberg']}.snapshots ORDER BY committed_at"
    ).collect()
    assert [(r.snapshot_id, r.parent_id) for r in ancestry] == [
        (s["snapshot-id"], s.get("parent-snapshot-id")) for s in snapshots
    ]
    history = spark.sql(
        f"SELECT snapshot_id FROM {names['iceberg']}.history WHERE is_current_ancestor"
    ).collect()
    assert len(history) == appends
    # every file carries the sequence number of the commit that added it
    sequence_of = {s["snapshot-id"]: s["sequence-number"] for s in snapshots}
    entries = spark.sql(
        f"SELECT snapshot_id, sequence_number, file_sequence_number FROM {names['iceberg']}.entries"
    ).collect()
    assert len(entries) == appends
    assert all(
        r.sequence_number == r.file_sequence_number == sequence_of[r.snapshot_id] for r in entries
    )

    # pyiceberg, a third reader, agrees
    from pyiceberg.table import StaticTable

    static = StaticTable.from_metadata(location)
    assert sorted(static.scan().to_arrow().column("id").to_pylist()) == list(range(1, 7))

    # the control: had Floe left Java's checksum of an older hint behind, Hadoop would refuse it
    crc = local_path(location) / "metadata" / ".version-hint.text.crc"
    if crc.exists():  # the last commit was Iceberg's
        copy = tmp_path / "metadata"
        copy.mkdir()
        shutil.copy(crc, copy / crc.name)
        (copy / "version-hint.text").write_text(str(appends + 2))  # as if rewritten, crc kept
        with pytest.raises(Exception, match="Checksum"):
            _hint_through_hadoop(spark, f"file://{tmp_path}")


def test_iceberg_maintenance_on_floe_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = table_location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {floe_name} (id BIGINT, s STRING, p STRING) PARTITIONED BY (p)")
    for k in range(4):
        spark.sql(f"INSERT INTO {floe_name} VALUES ({2 * k}, 's{k}', 'a'), ({2 * k + 1}, 'x', 'b')")
    before = spark_rows(spark, floe_name)
    assert len(inspect.table_files(location)) == 8

    rewritten = spark.sql(
        f"CALL {iceberg}.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('min-input-files', '2'))"
    ).collect()[0]
    assert rewritten.rewritten_data_files_count == 8
    assert rewritten.added_data_files_count == 2
    assert spark_rows(spark, floe_name) == before
    spark.sql(f"SELECT * FROM {floe_name} WHERE p = 'a'").collect()
    assert scan_report(spark, floe_name)["result-data-files"] == 1
    metadata = inspect.load_table_metadata(location)
    assert metadata["snapshots"][-1]["summary"]["operation"] == "replace"

    expired = spark.sql(
        f"CALL {iceberg}.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => TIMESTAMP '9999-01-01 00:00:00', retain_last => 1)"
    ).collect()[0]
    assert expired.deleted_data_files_count == 8
    assert spark_rows(spark, floe_name) == before
    metadata = inspect.load_table_metadata(location)
    assert len(metadata["snapshots"]) == 1

    # Floe appends on top of a snapshot whose parent Iceberg expired; both see everything
    spark.sql(f"INSERT INTO {floe_name} VALUES (100, 'after', 'a')")
    assert _ids(spark, iceberg_name) == [*range(8), 100]
    assert_same_table(spark, iceberg_name, floe_name)
    final = inspect.load_table_metadata(location)
    assert final["snapshots"][-1]["parent-snapshot-id"] == metadata["current-snapshot-id"]
    assert final["snapshots"][-1]["sequence-number"] == final["last-sequence-number"]
