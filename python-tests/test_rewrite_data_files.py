"""CALL floe.system.rewrite_data_files: compaction (binpack and sort) with Iceberg 1.11's
arguments, options and output columns. Checks read the table's metadata and data files directly
(floe.inspect, pyarrow) and through pyiceberg and Iceberg's own runtime."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq
import pytest
from row_level_tables import (
    current_snapshot,
    location,
    orphan_files,
    pyiceberg_rows,
    snapshots,
)

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read'"
OUTPUT = (
    "rewritten_data_files_count",
    "added_data_files_count",
    "rewritten_bytes_count",
    "failed_data_files_count",
    "removed_delete_files_count",
)


def _create(spark: SparkSession, name: str, props: str, partitioned: bool = False) -> None:
    partitioning = "PARTITIONED BY (region)" if partitioned else ""
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, name STRING, region STRING) USING floe "
        f"{partitioning} TBLPROPERTIES ({props})"
    )


def _insert_batches(spark: SparkSession, name: str, batches: int, per_batch: int = 10) -> None:
    """One INSERT (one file per partition) per batch; batch b holds ids b*100 and up."""
    for b in range(batches):
        values = ", ".join(
            f"({b * 100 + i}, 'n{b}_{i}', '{'eu' if i % 2 else 'us'}')" for i in range(per_batch)
        )
        _insert(spark, name, values)


def _insert(spark: SparkSession, name: str, values: str) -> None:
    """One INSERT written by one task: one data file per partition."""
    spark.sql(
        f"INSERT INTO {name} SELECT /*+ REPARTITION(1) */ * "
        f"FROM VALUES {values} AS v(id, name, region)"
    )


def _rows(spark: SparkSession, name: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(f"SELECT id, name, region FROM {name}").collect())


def _call(spark: SparkSession, args: str) -> dict[str, int]:
    row = spark.sql(f"CALL floe.system.rewrite_data_files({args})").collect()[0]
    assert tuple(row.asDict()) == OUTPUT
    return {k: int(v) for k, v in row.asDict().items()}


def _partial_progress_args(namespace: str, partial_progress: bool) -> str:
    """Arguments that rewrite every group of two or more files, committing each group on its own
    when ``partial_progress``."""
    return (
        f"table => '{namespace}.t', options => map('min-input-files', '2', "
        f"'partial-progress.enabled', '{str(partial_progress).lower()}')"
    )


def _data_files(table_location: str) -> list[dict[str, Any]]:
    return [f for f in inspect.table_files(table_location) if f["content"] == 0]


def _delete_files(table_location: str) -> list[dict[str, Any]]:
    return [f for f in inspect.table_files(table_location) if f["content"] != 0]


def test_binpack_combines_small_files(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, "'format-version'='2'")
    _insert_batches(spark, name, 6)
    before = _rows(spark, name)
    files = _data_files(loc)
    assert len(files) == 6

    result = _call(spark, f"table => '{namespace}.t'")

    assert result == {
        "rewritten_data_files_count": 6,
        "added_data_files_count": 1,
        "rewritten_bytes_count": sum(f["file_size_in_bytes"] for f in files),
        "failed_data_files_count": 0,
        "removed_delete_files_count": 0,
    }
    assert len(_data_files(loc)) == 1
    assert _rows(spark, name) == before
    snap = current_snapshot(loc)
    assert snap is not None and snap["summary"]["operation"] == "replace"
    assert pyiceberg_rows(loc, ("id", "name", "region")) == sorted(before, key=repr)
    # one file left: below min-input-files, nothing to do, no new snapshot
    assert _call(spark, f"table => '{namespace}.t'")["rewritten_data_files_count"] == 0
    assert current_snapshot(loc) == snap


@pytest.mark.parametrize("version", [2, 3])
def test_deletes_are_applied_and_removed(
    spark: SparkSession, namespace: str, warehouse: Path, version: int
) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, f"'format-version'='{version}', {MOR}")
    _insert_batches(spark, name, 3)
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 2, 103, 205)")
    deletes = _delete_files(loc)
    assert len(deletes) == 3
    before = _rows(spark, name)
    assert len(before) == 26

    result = _call(
        spark, f"table => '{namespace}.t', options => map('min-input-files', '2')"
    )

    assert result["rewritten_data_files_count"] == 3
    assert result["added_data_files_count"] == 1
    assert result["removed_delete_files_count"] == 3
    assert _delete_files(loc) == []
    files = _data_files(loc)
    assert [f["record_count"] for f in files] == [26]
    assert _rows(spark, name) == before
    assert pyiceberg_rows(loc, ("id", "name", "region")) == sorted(before, key=repr)
    summary = current_snapshot(loc)["summary"]  # type: ignore[index]
    assert summary["operation"] == "replace"
    assert summary["total-delete-files"] == "0"
    assert summary["total-records"] == "26"


def test_where_limits_the_files(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, "'format-version'='2'")
    _insert_batches(spark, name, 5)
    before = _rows(spark, name)
    untouched = {f["file_path"] for f in _data_files(loc) if f["record_count"] and _min_id(f) < 200}
    assert len(untouched) == 2

    result = _call(
        spark,
        f"table => '{namespace}.t', where => 'id >= 200', options => map('min-input-files', '2')",
    )

    assert result["rewritten_data_files_count"] == 3
    assert result["added_data_files_count"] == 1
    paths = {f["file_path"] for f in _data_files(loc)}
    assert untouched < paths and len(paths) == 3
    assert _rows(spark, name) == before


def _min_id(data_file: dict[str, Any]) -> int:
    ids = pq.read_table(local_path(data_file["file_path"]), columns=["id"]).column("id")
    return int(min(ids.to_pylist()))


def test_sort_strategy_writes_files_with_disjoint_key_ranges(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, "'format-version'='2'")
    for b in range(4):  # every file spans the whole key range
        values = ", ".join(f"({i * 4 + b}, 'n{i}', 'eu')" for i in range(200))
        _insert(spark, name, values)
    before = _rows(spark, name)
    total = sum(f["file_size_in_bytes"] for f in _data_files(loc))

    result = _call(
        spark,
        f"table => '{namespace}.t', strategy => 'sort', sort_order => 'id DESC NULLS LAST', "
        f"options => map('target-file-size-bytes', '{total // 2}', 'min-input-files', '2')",
    )

    assert result["rewritten_data_files_count"] == 4
    assert result["added_data_files_count"] == 2
    assert _rows(spark, name) == before
    ranges = []
    for f in _data_files(loc):
        ids = pq.read_table(local_path(f["file_path"]), columns=["id"]).column("id").to_pylist()
        assert ids == sorted(ids, reverse=True), "each file is sorted by id DESC"
        ranges.append((min(ids), max(ids)))
    ranges.sort()
    assert ranges[0][1] < ranges[1][0], f"key ranges overlap: {ranges}"


def test_sort_without_a_sort_order_is_an_error(spark: SparkSession, namespace: str) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.t (id BIGINT) USING floe")
    with pytest.raises(Exception, match="needs a sort order"):
        spark.sql(
            f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', strategy => 'sort')"
        )
    with pytest.raises(Exception, match="unknown option 'no-such-option'"):
        spark.sql(
            f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
            "options => map('no-such-option', '1'))"
        )


@pytest.mark.parametrize("partial_progress", [False, True])
def test_partitioned_table_keeps_partitions(
    spark: SparkSession, namespace: str, warehouse: Path, partial_progress: bool
) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, "'format-version'='2'", partitioned=True)
    _insert_batches(spark, name, 3)
    assert len(_data_files(loc)) == 6
    before = _rows(spark, name)

    commits_before = len(snapshots(loc))
    result = _call(spark, _partial_progress_args(namespace, partial_progress))

    assert result["rewritten_data_files_count"] == 6
    assert result["added_data_files_count"] == 2
    commits = snapshots(loc)[commits_before:]
    expected_commits = 2 if partial_progress else 1  # one per group with partial progress
    assert [c["summary"]["operation"] for c in commits] == ["replace"] * expected_commits
    files = _data_files(loc)
    assert sorted(f["partition"]["region"] for f in files) == ["eu", "us"]
    for f in files:
        regions = pq.read_table(local_path(f["file_path"]), columns=["region"]).column("region")
        assert set(regions.to_pylist()) == {f["partition"]["region"]}
    assert _rows(spark, name) == before


@pytest.mark.parametrize("partial_progress", [False, True])
def test_concurrent_delete_does_not_resurrect_rows(
    spark: SparkSession, namespace: str, warehouse: Path, partial_progress: bool
) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, f"'format-version'='3', {MOR}")
    _insert_batches(spark, name, 3)
    gate = spark._jvm.io.floe.spark.util.CommitGate  # type: ignore[union-attr]
    gate.hold(name)
    outcome: list[Any] = []

    def rewrite() -> None:
        try:
            outcome.append(_call(spark, _partial_progress_args(namespace, partial_progress)))
        except Exception as e:
            outcome.append(e)

    thread = threading.Thread(target=rewrite, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while not gate.reached(name):
            assert thread.is_alive(), f"the rewrite finished before its commit: {outcome}"
            assert time.monotonic() < deadline, "the rewrite never reached its commit"
            time.sleep(0.05)
        spark.sql(f"DELETE FROM {name} WHERE id = 101")  # a deletion vector on a rewritten file
        deleted = current_snapshot(loc)
    finally:
        gate.release(name)
        thread.join(180)
    assert not thread.is_alive()

    if partial_progress:
        assert outcome[0]["failed_data_files_count"] == 3
        assert outcome[0]["rewritten_data_files_count"] == 0
    else:
        assert isinstance(outcome[0], Exception)
        message = str(outcome[0])
        assert "concurrent snapshot" in message and "Nothing was committed" in message
    assert current_snapshot(loc) == deleted, "a failed rewrite leaves the table as it was"
    ids = [r[0] for r in _rows(spark, name)]
    assert 101 not in ids and len(ids) == 29
    assert orphan_files(loc) == [], "the rewrite's new files are deleted"


def test_iceberg_runtime_reads_the_compacted_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    _create(spark, name, f"'format-version'='2', {MOR}", partitioned=True)
    _insert_batches(spark, name, 3)
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 104)")
    before = _rows(spark, name)

    result = _call(spark, f"table => '{namespace}.t', options => map('rewrite-all', 'true')")

    assert result["removed_delete_files_count"] == 2
    assert _rows(spark, name) == before
    assert _rows(spark, f"{iceberg}.{namespace}.t") == before
    assert pyiceberg_rows(loc, ("id", "name", "region")) == sorted(before, key=repr)
