"""The snapshot-management procedures, with Iceberg's names, arguments and output columns:
``rollback_to_snapshot``, ``rollback_to_timestamp``, ``set_current_snapshot``,
``cherrypick_snapshot``, ``ancestors_of`` and ``register_table``.

Checked here: named and positional arguments; the output rows; reads after a change see the old or
published rows; main's ref and the snapshot-log follow each change (read back from the metadata file
with ``floe.inspect``); errors name the table and the snapshot; cherry-picking a staged snapshot
(staged with Floe's format API, and by the Iceberg runtime's write-audit-publish) re-applies it once
and refuses it a second time; the procedures work on a table the Iceberg runtime wrote.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pytest
from jvm_tables import data_file, field, table_ops, write_parquet

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _metadata(warehouse: Path, namespace: str, name: str = "t") -> dict[str, Any]:
    return inspect.load_table_metadata(f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{name}")


def _snapshots(warehouse: Path, namespace: str, name: str = "t") -> list[dict[str, Any]]:
    """The table's snapshots, oldest first."""
    snapshots = _metadata(warehouse, namespace, name)["snapshots"]
    return sorted(snapshots, key=lambda s: s["timestamp-ms"])


def _snapshot_ids(warehouse: Path, namespace: str, name: str = "t") -> list[int]:
    """Snapshot ids, oldest first."""
    return [s["snapshot-id"] for s in _snapshots(warehouse, namespace, name)]


def _ids(spark: SparkSession, table: str) -> list[int]:
    return sorted(r[0] for r in spark.table(table).collect())


def _timestamp(millis: int) -> str:
    """A Spark TIMESTAMP literal (session time zone UTC) for epoch milliseconds."""
    text = dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return f"TIMESTAMP '{text}'"


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    """floe.<ns>.t with three appends: ids [1], then [2], then [3]."""
    name = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING floe")
    for i in (1, 2, 3):
        spark.sql(f"INSERT INTO {name} VALUES ({i})")
    return name


def _stage_append(spark: SparkSession, warehouse: Path, namespace: str, ids: list[int]) -> int:
    """Commits an append of ``ids`` as a snapshot main does not point at (as WAP stages one)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, namespace, "t")
    base = ops.refresh()
    rows = pa.table(
        {"id": pa.array(ids, pa.int64())}, schema=pa.schema([field("id", pa.int64(), 1)])
    )
    path = write_parquet(warehouse / namespace / "t" / "data", rows)
    producer = jvm.io.floe.format.commit.AppendFiles(ops).appendFile(
        data_file(spark, base, path, len(ids))
    )
    staged = producer.apply(base).snapshot(producer.snapshotId())
    ops.commit(
        base, jvm.io.floe.format.metadata.TableMetadata.buildFrom(base).addSnapshot(staged).build()
    )
    return int(staged.snapshotId())


# --- rollback_to_snapshot, set_current_snapshot -------------------------------------------------


def test_rollback_to_snapshot_named_and_positional(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    first, second, third = _snapshot_ids(warehouse, namespace)
    out = spark.sql(
        f"CALL floe.system.rollback_to_snapshot(table => '{namespace}.t', snapshot_id => {second})"
    )
    assert out.columns == ["previous_snapshot_id", "current_snapshot_id"]
    assert [tuple(r) for r in out.collect()] == [(third, second)]
    assert _ids(spark, table) == [1, 2]
    metadata = _metadata(warehouse, namespace)
    assert metadata["current-snapshot-id"] == second
    assert metadata["refs"]["main"]["snapshot-id"] == second
    assert metadata["snapshot-log"][-1]["snapshot-id"] == second

    rows = spark.sql(f"CALL floe.system.rollback_to_snapshot('{table}', {first})").collect()
    assert [tuple(r) for r in rows] == [(second, first)]
    assert _ids(spark, table) == [1]


def test_rollback_refuses_a_non_ancestor_and_an_unknown_snapshot(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    from pyspark.errors import AnalysisException

    first, _, third = _snapshot_ids(warehouse, namespace)
    spark.sql(f"CALL floe.system.rollback_to_snapshot('{namespace}.t', {first})").collect()
    with pytest.raises(AnalysisException, match="not an ancestor") as error:
        spark.sql(f"CALL floe.system.rollback_to_snapshot('{namespace}.t', {third})").collect()
    assert table in str(error.value) and str(third) in str(error.value)
    with pytest.raises(AnalysisException, match="snapshot 777 does not exist") as unknown:
        spark.sql(f"CALL floe.system.rollback_to_snapshot('{namespace}.t', 777)").collect()
    assert table in str(unknown.value) and str(third) in str(unknown.value)
    assert _ids(spark, table) == [1]


def test_set_current_snapshot_undoes_a_rollback_and_follows_a_ref(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    from pyspark.errors import AnalysisException

    first, second, third = _snapshot_ids(warehouse, namespace)
    spark.sql(f"CALL floe.system.rollback_to_snapshot('{namespace}.t', {first})").collect()
    out = spark.sql(
        f"CALL floe.system.set_current_snapshot(table => '{table}', snapshot_id => {third})"
    )
    assert out.columns == ["previous_snapshot_id", "current_snapshot_id"]
    assert [tuple(r) for r in out.collect()] == [(first, third)]
    assert _ids(spark, table) == [1, 2, 3]

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, namespace, "t")
    base = ops.refresh()
    tag = jvm.io.floe.format.metadata.SnapshotRef.tag(second)
    ops.commit(
        base, jvm.io.floe.format.metadata.TableMetadata.buildFrom(base).setRef("v2", tag).build()
    )
    rows = spark.sql(
        f"CALL floe.system.set_current_snapshot('{namespace}.t', NULL, 'v2')"
    ).collect()
    assert [tuple(r) for r in rows] == [(third, second)]
    assert _metadata(warehouse, namespace)["refs"]["main"]["snapshot-id"] == second

    with pytest.raises(AnalysisException, match="exactly one of the arguments snapshot_id and ref"):
        spark.sql(
            f"CALL floe.system.set_current_snapshot('{namespace}.t', {first}, 'v2')"
        ).collect()
    with pytest.raises(AnalysisException, match="no branch or tag has that name") as error:
        spark.sql(
            f"CALL floe.system.set_current_snapshot(table => '{namespace}.t', ref => 'nope')"
        ).collect()
    assert table in str(error.value)


# --- rollback_to_timestamp --------------------------------------------------------------------


def test_rollback_to_timestamp(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    from pyspark.errors import AnalysisException

    first, second, third = _snapshots(warehouse, namespace)
    # strictly older than the third snapshot's time: the second one
    out = spark.sql(
        f"CALL floe.system.rollback_to_timestamp(table => '{namespace}.t', "
        f"timestamp => {_timestamp(third['timestamp-ms'])})"
    )
    assert out.columns == ["previous_snapshot_id", "current_snapshot_id"]
    expected = second if second["timestamp-ms"] < third["timestamp-ms"] else first
    assert [tuple(r) for r in out.collect()] == [(third["snapshot-id"], expected["snapshot-id"])]
    with pytest.raises(
        AnalysisException, match="no ancestor of the current snapshot is older"
    ) as error:
        before_first = _timestamp(first["timestamp-ms"])
        spark.sql(
            f"CALL floe.system.rollback_to_timestamp('{namespace}.t', {before_first})"
        ).collect()
    assert table in str(error.value) and str(first["snapshot-id"]) in str(error.value)


# --- ancestors_of -------------------------------------------------------------------------------


def test_ancestors_of(spark: SparkSession, warehouse: Path, namespace: str, table: str) -> None:
    from pyspark.errors import AnalysisException

    snapshots = _snapshots(warehouse, namespace)
    out = spark.sql(f"CALL floe.system.ancestors_of('{table}')")
    assert out.columns == ["snapshot_id", "timestamp"]
    assert [tuple(r) for r in out.collect()] == [
        (s["snapshot-id"], s["timestamp-ms"]) for s in reversed(snapshots)
    ]
    second = snapshots[1]["snapshot-id"]
    rows = spark.sql(
        f"CALL floe.system.ancestors_of(table => '{namespace}.t', snapshot_id => {second})"
    ).collect()
    assert [r.snapshot_id for r in rows] == [second, snapshots[0]["snapshot-id"]]
    with pytest.raises(AnalysisException, match="snapshot 5 does not exist") as error:
        spark.sql(f"CALL floe.system.ancestors_of('{namespace}.t', 5)").collect()
    assert table in str(error.value)


# --- cherrypick_snapshot ------------------------------------------------------------------------


def test_cherrypick_reapplies_a_staged_append_once(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    from pyspark.errors import AnalysisException

    staged = _stage_append(spark, warehouse, namespace, [10, 11])
    assert _ids(spark, table) == [1, 2, 3]
    spark.sql(f"INSERT INTO {table} VALUES (4)")  # main moves on: no fast-forward possible
    out = spark.sql(
        f"CALL floe.system.cherrypick_snapshot(table => '{namespace}.t', snapshot_id => {staged})"
    )
    assert out.columns == ["source_snapshot_id", "current_snapshot_id"]
    ((source, current),) = [tuple(r) for r in out.collect()]
    assert source == staged and current != staged
    assert _ids(spark, table) == [1, 2, 3, 4, 10, 11]
    metadata = _metadata(warehouse, namespace)
    published = next(s for s in metadata["snapshots"] if s["snapshot-id"] == current)
    assert published["summary"]["source-snapshot-id"] == str(staged)
    assert metadata["refs"]["main"]["snapshot-id"] == current

    with pytest.raises(AnalysisException, match="already published") as error:
        spark.sql(f"CALL floe.system.cherrypick_snapshot('{namespace}.t', {staged})").collect()
    assert table in str(error.value) and str(staged) in str(error.value)
    first = _snapshot_ids(warehouse, namespace)[0]
    with pytest.raises(AnalysisException, match="already an ancestor"):
        spark.sql(f"CALL floe.system.cherrypick_snapshot('{namespace}.t', {first})").collect()


def test_cherrypick_fast_forwards_a_child_of_the_current_snapshot(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    staged = _stage_append(spark, warehouse, namespace, [7])
    rows = spark.sql(f"CALL floe.system.cherrypick_snapshot('{table}', {staged})").collect()
    assert [tuple(r) for r in rows] == [(staged, staged)]
    assert _ids(spark, table) == [1, 2, 3, 7]


def test_procedures_on_a_table_iceberg_wrote_with_write_audit_publish(
    spark: SparkSession, warehouse: Path, namespace: str, iceberg: str
) -> None:
    iceberg_name, floe_name = f"{iceberg}.{namespace}.w", f"floe.{namespace}.w"
    spark.sql(
        f"CREATE TABLE {iceberg_name} (id BIGINT) USING iceberg "
        "TBLPROPERTIES ('write.wap.enabled' = 'true', 'format-version' = '2')"
    )
    spark.sql(f"INSERT INTO {iceberg_name} VALUES (1)")
    spark.conf.set("spark.wap.id", "audit-1")
    try:
        spark.sql(f"INSERT INTO {iceberg_name} VALUES (2)")
    finally:
        spark.conf.unset("spark.wap.id")
    spark.sql(f"INSERT INTO {iceberg_name} VALUES (3)")
    metadata = _metadata(warehouse, namespace, "w")
    staged = next(
        s["snapshot-id"] for s in metadata["snapshots"] if s["summary"].get("wap.id") == "audit-1"
    )
    assert _ids(spark, floe_name) == [1, 3]

    rows = spark.sql(f"CALL floe.system.cherrypick_snapshot('{namespace}.w', {staged})").collect()
    ((source, current),) = [tuple(r) for r in rows]
    assert source == staged
    assert _ids(spark, floe_name) == [1, 2, 3]
    assert sorted(r[0] for r in spark.table(iceberg_name).collect()) == [1, 2, 3]
    published = next(
        s for s in _metadata(warehouse, namespace, "w")["snapshots"] if s["snapshot-id"] == current
    )
    assert published["summary"]["published-wap-id"] == "audit-1"

    ancestors = [
        r.snapshot_id
        for r in spark.sql(f"CALL floe.system.ancestors_of('{namespace}.w')").collect()
    ]
    assert ancestors[0] == current and len(ancestors) == 3
    spark.sql(f"CALL floe.system.rollback_to_snapshot('{namespace}.w', {ancestors[-1]})").collect()
    assert sorted(r[0] for r in spark.table(iceberg_name).collect()) == [1]


# --- register_table -----------------------------------------------------------------------------


def test_register_table(spark: SparkSession, warehouse: Path, namespace: str, table: str) -> None:
    from pyspark.errors import AnalysisException

    metadata_file = _metadata(warehouse, namespace)["metadata-log"][-1]["metadata-file"]
    # the metadata file of the second-to-last commit: ids [1, 2]
    out = spark.sql(
        f"CALL floe.system.register_table(table => '{namespace}.copy', "
        f"metadata_file => '{metadata_file}')"
    )
    assert out.columns == ["current_snapshot_id", "total_records_count", "total_data_files_count"]
    second = _snapshot_ids(warehouse, namespace)[1]
    assert [tuple(r) for r in out.collect()] == [(second, 2, 2)]
    assert _ids(spark, f"floe.{namespace}.copy") == [1, 2]
    spark.sql(f"INSERT INTO floe.{namespace}.copy VALUES (5)")
    assert _ids(spark, f"floe.{namespace}.copy") == [1, 2, 5]
    assert _ids(spark, table) == [1, 2, 3]

    with pytest.raises(AnalysisException, match="already exists") as exists:
        spark.sql(
            f"CALL floe.system.register_table('{namespace}.copy', '{metadata_file}')"
        ).collect()
    assert f"floe.{namespace}.copy" in str(exists.value)
    missing = metadata_file.replace(".metadata.json", "-missing.metadata.json")
    with pytest.raises(
        AnalysisException, match=r"the file does not exist or cannot be read"
    ) as unreadable:
        spark.sql(f"CALL floe.system.register_table('{namespace}.other', '{missing}')").collect()
    assert f"floe.{namespace}.other" in str(unreadable.value) and missing in str(unreadable.value)
