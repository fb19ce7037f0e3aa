"""Copy-on-write mechanics of DELETE, UPDATE and MERGE (the default ``write.<command>.mode``).

A copy-on-write operation rewrites exactly the data files that hold a row it changes: the scan
plans the files the condition may match (partition values, column bounds), Spark's runtime group
filter on ``_file`` keeps those that really hold a match, and one snapshot removes them and adds
the rewritten files (``overwrite``, or ``delete`` when nothing is written back). Untouched files
keep their paths; nothing changed means no snapshot; a failed operation leaves no files behind.
Rows whose partition columns change move to their new partition's files. DELETE asks for no
shuffle (each task rewrites the files it read); UPDATE clusters rows by the partition transforms.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pytest
from conftest import scan_report

import floe
from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

GROUP_FILTER = "spark.sql.optimizer.runtime.rowLevelOperationGroupFilter.enabled"


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def _metadata(location: str) -> dict[str, Any]:
    metadata: dict[str, Any] = inspect.load_table_metadata(location)
    return metadata


def _summary(location: str) -> dict[str, str]:
    metadata = _metadata(location)
    current = metadata["current-snapshot-id"]
    snapshot = next(s for s in metadata["snapshots"] if s["snapshot-id"] == current)
    summary: dict[str, str] = snapshot["summary"]
    return summary


def _snapshot_count(location: str) -> int:
    return len(_metadata(location).get("snapshots", []))


def _live_paths(location: str) -> set[str]:
    return {f["file_path"] for f in inspect.table_files(location) if f["content"] == 0}


def _local_path(location: str) -> Path:
    """The local path of a location as written in metadata (``file:/p``, ``file:///p``, ``/p``)."""
    return Path(urlparse(location).path if location.startswith("file:") else location)


def _files_on_disk(location: str) -> set[str]:
    """Every Parquet file under the table's data directory (absolute local paths)."""
    data = _local_path(location) / "data"
    return {str(p.resolve()) for p in data.rglob("*.parquet")}


def _local(paths: set[str]) -> set[str]:
    return {str(_local_path(p).resolve()) for p in paths}

def _file_of(spark: SparkSession, table: str, condition: str) -> set[str]:
    return {r[0] for r in spark.sql(f"SELECT _file FROM {table} WHERE {condition}").collect()}


def _interleaved_table(spark: SparkSession, name: str, files: int = 4, rows: int = 40) -> None:
    """An unpartitioned table of ``files`` files; file k holds the ids congruent to k modulo
    ``files``, so every file's id bounds span (almost) the whole range and cannot prune."""
    spark.sql(f"CREATE TABLE {name} (id BIGINT, v STRING) USING floe")
    for k in range(files):
        spark.range(k, rows, files, 1).selectExpr("id", "CAST(id AS STRING) AS v").writeTo(
            name
        ).append()


@pytest.fixture
def group_filter_off(spark: SparkSession) -> Iterator[None]:
    spark.conf.set(GROUP_FILTER, "false")
    try:
        yield
    finally:
        spark.conf.unset(GROUP_FILTER)


def test_delete_rewrites_only_the_file_holding_a_match(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _interleaved_table(spark, name)
    before = _live_paths(location)
    assert len(before) == 4
    holding = _file_of(spark, name, "id = 5")

    spark.sql(f"DELETE FROM {name} WHERE id = 5")

    # bounds could not prune (all 4 files planned), the runtime filter on _file kept one
    report = scan_report(spark, name)
    assert (report["total-data-files"], report["result-data-files"]) == (4, 1)
    assert _rows(spark, f"SELECT id FROM {name}") == [(i,) for i in range(40) if i != 5]
    summary = _summary(location)
    assert summary["operation"] == "overwrite"
    assert (summary["deleted-data-files"], summary["added-data-files"]) == ("1", "1")
    assert (summary["deleted-records"], summary["added-records"]) == ("10", "9")
    assert "spark.app.id" in summary
    after = _live_paths(location)
    assert before - after == holding  # only the file that held id 5 went
    assert len(after - before) == 1


def test_without_runtime_group_filter_every_planned_file_is_rewritten(
    spark: SparkSession, namespace: str, warehouse: Path, group_filter_off: None
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _interleaved_table(spark, name)

    spark.sql(f"DELETE FROM {name} WHERE id = 5")

    assert _rows(spark, f"SELECT id FROM {name}") == [(i,) for i in range(40) if i != 5]
    summary = _summary(location)
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("4", "40")
    assert summary["added-records"] == "39"


def test_delete_of_every_row_of_a_file_is_a_delete_snapshot(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _interleaved_table(spark, name)
    holding = _file_of(spark, name, "id % 4 = 2")
    assert len(holding) == 1

    # not provable from partition values or bounds, so row-level; the file holds only matches
    spark.sql(f"DELETE FROM {name} WHERE id % 4 = 2")

    summary = _summary(location)
    assert summary["operation"] == "delete"
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("1", "10")
    assert "added-data-files" not in summary
    assert holding.isdisjoint(_live_paths(location))
    assert _rows(spark, f"SELECT count(*) FROM {name}") == [(30,)]


def test_nothing_matched_commits_no_snapshot(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _interleaved_table(spark, name)
    snapshots = _snapshot_count(location)
    files = _live_paths(location)
    spark.createDataFrame([(1000, "x")], "id BIGINT, v STRING").createOrReplaceTempView("nomatch")

    # every file is planned (bounds cannot exclude id % 7 = 100), none holds a match
    spark.sql(f"DELETE FROM {name} WHERE id % 7 = 100")
    spark.sql(f"UPDATE {name} SET v = 'changed' WHERE id % 7 = 100")
    spark.sql(
        f"MERGE INTO {name} t USING nomatch s ON t.id = s.id "
        "WHEN MATCHED AND s.v = 'y' THEN DELETE WHEN MATCHED THEN UPDATE SET v = s.v"
    )

    assert _snapshot_count(location) == snapshots
    assert _live_paths(location) == files
    assert _files_on_disk(location) == _local(files)


def test_update_moves_rows_across_bucket_and_day_partitions(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, ts TIMESTAMP, v STRING) USING floe "
        "PARTITIONED BY (bucket(4, id), days(ts))"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, TIMESTAMP '2024-01-01 00:00:00' + "
        "make_interval(0, 0, 0, CAST(id % 3 AS INT)), CAST(id AS STRING) FROM range(0, 60)"
    )
    before = _live_paths(location)
    touched = _file_of(spark, name, "id IN (7, 8)")
    assert len(touched) == 2

    spark.sql(f"UPDATE {name} SET id = id + 1000, ts = ts + INTERVAL 10 DAYS WHERE id IN (7, 8)")

    expected = sorted(
        [(i, str(i)) for i in range(60) if i not in (7, 8)] + [(1007, "7"), (1008, "8")]
    )
    assert _rows(spark, f"SELECT id, v FROM {name}") == expected
    summary = _summary(location)
    assert summary["operation"] == "overwrite"
    assert summary["deleted-data-files"] == "2"
    after = _live_paths(location)
    assert before - after == touched  # files of untouched partitions keep their paths
    assert summary["deleted-records"] == summary["added-records"]  # rows moved, none lost
    # clustered by partition, written by the fanout writer: one new file per partition
    new_files = [f for f in inspect.table_files(location) if f["file_path"] in after - before]
    partitions = {tuple(sorted(f["partition"].items())) for f in new_files}
    assert len(new_files) == len(partitions) == int(summary["added-data-files"])
    # every row sits in a file of its own partition: bucket(4, id) and day(ts) of the new values
    mismatched = spark.sql(
        f"SELECT id FROM {name} WHERE _partition.id_bucket <> floe.system.bucket(4, id) "
        "OR _partition.ts_day <> CAST(ts AS DATE)"
    ).collect()
    assert mismatched == []
    moved = _rows(spark, f"SELECT id, CAST(ts AS DATE) FROM {name} WHERE id > 1000")
    assert [str(r[1]) for r in moved] == ["2024-01-12", "2024-01-13"]
    assert _files_on_disk(location) >= _local(after)


def test_update_identity_partition_column_moves_the_row(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'c')")
    a_files = _file_of(spark, name, "cat = 'a'")
    untouched = _file_of(spark, name, "cat <> 'a'")

    spark.sql(f"UPDATE {name} SET cat = 'z' WHERE id = 2")

    assert _rows(spark, f"SELECT id, cat FROM {name}") == [(1, "a"), (2, "z"), (3, "b"), (4, "c")]
    summary = _summary(location)
    assert (summary["operation"], summary["deleted-data-files"], summary["added-data-files"]) == (
        "overwrite",
        "1",
        "2",
    )
    assert summary["changed-partition-count"] == "2"
    after = _live_paths(location)
    assert a_files.isdisjoint(after)
    assert untouched <= after
    [moved] = _file_of(spark, name, "id = 2")
    assert "/cat=z/" in moved
    assert [
        f["partition"]["cat"] for f in inspect.table_files(location) if f["file_path"] == moved
    ] == ["z"]


def test_merge_rewrites_only_files_with_matched_rows(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING, v INT) USING floe PARTITIONED BY (cat)")
    spark.sql(
        f"INSERT INTO {name} VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'b', 4), "
        "(5, 'c', 5), (6, 'd', 6)"
    )
    untouched = _file_of(spark, name, "cat IN ('c', 'd')")
    spark.createDataFrame(
        [(1, "a", 100), (4, "b", -1), (9, "e", 9)], "id BIGINT, cat STRING, v INT"
    ).createOrReplaceTempView("merge_src")

    spark.sql(
        f"MERGE INTO {name} t USING merge_src s ON t.id = s.id "
        "WHEN MATCHED AND s.v < 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED THEN INSERT *"
    )

    assert _rows(spark, f"SELECT * FROM {name}") == [
        (1, "a", 100),
        (2, "a", 2),
        (3, "b", 3),
        (5, "c", 5),
        (6, "d", 6),
        (9, "e", 9),
    ]
    summary = _summary(location)
    assert summary["operation"] == "overwrite"
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("2", "4")
    assert summary["added-records"] == "4"  # a: 2 rows, b: 1 row, e: 1 inserted row
    assert untouched <= _live_paths(location)


def test_merge_not_matched_by_source_rewrites_and_moves(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING, v INT) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3), (4, 'd', 4)")
    spark.createDataFrame([(1, "a", 10)], "id BIGINT, cat STRING, v INT").createOrReplaceTempView(
        "nmbs_src"
    )

    spark.sql(
        f"MERGE INTO {name} t USING nmbs_src s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = s.v "
        "WHEN NOT MATCHED BY SOURCE AND t.cat = 'b' THEN DELETE "
        "WHEN NOT MATCHED BY SOURCE AND t.cat = 'c' THEN UPDATE SET cat = 'e'"
    )

    assert _rows(spark, f"SELECT * FROM {name}") == [(1, "a", 10), (3, "e", 3), (4, "d", 4)]
    summary = _summary(location)
    assert summary["operation"] == "overwrite"
    assert summary["total-records"] == "3"
    partitions = sorted(f["partition"]["cat"] for f in inspect.table_files(location))
    assert partitions == ["a", "d", "e"]


def test_dataframe_merge_into_with_partition_column_not_in_condition(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    from pyspark.sql.functions import expr

    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING, v INT) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3)")
    untouched = _file_of(spark, name, "cat = 'b'")
    source = spark.createDataFrame([(2, "a", 222), (8, "f", 8)], "id BIGINT, cat STRING, v INT")

    # the join reads the target without its partition column: dynamic pruning must cope
    (
        source.alias("s")
        .mergeInto(name, expr(f"{name}.id = s.id"))
        .whenMatched()
        .updateAll()
        .whenNotMatched()
        .insertAll()
        .merge()
    )

    assert _rows(spark, f"SELECT * FROM {name}") == [
        (1, "a", 1),
        (2, "a", 222),
        (3, "b", 3),
        (8, "f", 8),
    ]
    summary = _summary(location)
    assert (summary["operation"], summary["deleted-data-files"], summary["added-data-files"]) == (
        "overwrite",
        "1",
        "2",
    )
    assert untouched <= _live_paths(location)


def test_merge_cardinality_violation_leaves_nothing_behind(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, cat STRING, v INT) USING floe PARTITIONED BY (cat)")
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a', 1), (2, 'b', 2)")
    snapshots = _snapshot_count(location)
    files = _live_paths(location)
    spark.createDataFrame(
        [(1, "a", 10), (1, "a", 11), (2, "b", 20)], "id BIGINT, cat STRING, v INT"
    ).createOrReplaceTempView("dup_src")

    with pytest.raises(Exception, match="MERGE_CARDINALITY_VIOLATION"):
        spark.sql(
            f"MERGE INTO {name} t USING dup_src s ON t.id = s.id "
            "WHEN MATCHED THEN UPDATE SET v = s.v"
        )

    assert _snapshot_count(location) == snapshots
    assert _live_paths(location) == files
    assert _rows(spark, f"SELECT * FROM {name}") == [(1, "a", 1), (2, "b", 2)]
    assert _files_on_disk(location) == _local(files)  # the failed write's files are gone


def test_delete_needs_no_shuffle_update_clusters_by_partition(
    spark: SparkSession, namespace: str
) -> None:
    name = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, ts TIMESTAMP, v STRING) USING floe "
        "PARTITIONED BY (bucket(4, id), days(ts))"
    )
    # a file holding rows that match and rows that do not: the DELETE cannot be metadata-only
    spark.sql(
        f"INSERT INTO {name} VALUES (1, TIMESTAMP '2024-01-01 00:00:00', 'x'), "
        "(1, TIMESTAMP '2024-01-01 00:00:00', 'y')"
    )

    def main_plan(statement: str) -> str:
        plan = str(spark.sql(f"EXPLAIN {statement}").collect()[0][0])
        return plan.split("Subquery", 1)[0]  # the runtime group filter's subquery shuffles

    delete = main_plan(f"DELETE FROM {name} WHERE v = 'x'")
    assert "ReplaceData CopyOnWriteWrite" in delete
    assert re.search(r"RuntimeFilters: \[dynamicpruningexpression\(_file#\d+ IN subquery", delete)
    assert "Exchange" not in delete
    update = main_plan(f"UPDATE {name} SET id = id + 1 WHERE v = 'x'")
    assert "Exchange hashpartitioning" in update
    assert "BucketFunction" in update
    assert "DaysFunction" in update


def test_time_travelled_table_refuses_row_level_operations(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    first = _metadata(location)["current-snapshot-id"]
    spark.sql(f"INSERT INTO {name} VALUES (2)")

    jvm = spark._jvm
    assert jvm is not None
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    catalog = spark._jsparkSession.sessionState().catalogManager().catalog("floe")
    ns = gateway.new_array(jvm.java.lang.String, 1)
    ns[0] = namespace
    ident = jvm.org.apache.spark.sql.connector.catalog.Identifier.of(ns, "t")
    pinned = catalog.loadTable(ident, str(first))
    commands = getattr(jvm.org.apache.spark.sql.connector.write, "RowLevelOperation$Command")
    options = jvm.org.apache.spark.sql.util.CaseInsensitiveStringMap.empty()
    for command in (commands.DELETE, commands.UPDATE, commands.MERGE):
        info = jvm.org.apache.spark.sql.connector.write.RowLevelOperationInfoImpl(command, options)
        with pytest.raises(Exception, match="time travel"):
            pinned.newRowLevelOperationBuilder(info).build()
    # the current table builds a copy-on-write operation
    current = catalog.loadTable(ident)
    info = jvm.org.apache.spark.sql.connector.write.RowLevelOperationInfoImpl(
        commands.DELETE, options
    )
    operation = current.newRowLevelOperationBuilder(info).build()
    assert operation.getClass().getSimpleName() == "CopyOnWriteOperation"


@pytest.mark.parametrize("command", ["delete", "update", "merge"])
def test_invalid_mode_and_isolation_level_are_clear_errors(
    spark: SparkSession, namespace: str, warehouse: Path, command: str
) -> None:
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(f"CREATE TABLE {name} (id BIGINT, v INT) USING floe")
    spark.sql(f"INSERT INTO {name} VALUES (1, 1), (2, 2)")
    spark.createDataFrame([(1, 5)], "id BIGINT, v INT").createOrReplaceTempView("props_src")
    statement = {
        "delete": f"DELETE FROM {name} WHERE v = 1",
        "update": f"UPDATE {name} SET v = 0 WHERE v = 1",
        "merge": f"MERGE INTO {name} t USING props_src s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = s.v",
    }[command]
    snapshots = _snapshot_count(location)
    for key, valid in (("mode", "copy-on-write"), ("isolation-level", "serializable")):
        prop = f"write.{command}.{key}"
        # refused by the ALTER itself (values are checked when set), so no statement meets it
        with pytest.raises(
            Exception, match=f"Invalid value 'bogus' for table property {prop}"
        ) as err:
            spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('{prop}' = 'bogus')")
        assert f"{namespace}.t" in str(err.value)
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('{prop}' = '{valid}')")
    assert _snapshot_count(location) == snapshots
    spark.sql(
        f"ALTER TABLE {name} SET TBLPROPERTIES ('write.{command}.isolation-level' = 'snapshot')"
    )
    spark.sql(statement)
    assert _summary(location)["operation"] in ("overwrite", "delete")


@pytest.mark.parametrize("isolation", ["serializable", "snapshot"])
def test_concurrent_append_under_each_isolation_level(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, isolation: str
) -> None:
    """A DELETE whose condition Floe cannot push down (a Python UDF) stalls in its first row until
    an INSERT has committed; serializable isolation then fails the DELETE (the appended file may
    hold matching rows) and deletes the files it wrote; snapshot isolation commits it."""
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    _interleaved_table(spark, name, files=2, rows=20)
    spark.sql(
        f"ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.isolation-level' = '{isolation}')"
    )
    claim, started, go = tmp_path / "claim", tmp_path / "started", tmp_path / "go"

    def gate(value: int) -> bool:
        import os as worker_os
        import time as worker_time

        try:
            worker_os.close(worker_os.open(claim, worker_os.O_CREAT | worker_os.O_EXCL))
        except FileExistsError:
            return value == 3
        started.touch()
        deadline = worker_time.monotonic() + 120
        while not go.exists() and worker_time.monotonic() < deadline:
            worker_time.sleep(0.05)
        return value == 3

    udf = f"gate_{namespace}"
    spark.udf.register(udf, gate, "boolean")
    errors: list[BaseException] = []

    def delete() -> None:
        try:
            spark.sql(f"DELETE FROM {name} WHERE {udf}(id)")
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    worker = threading.Thread(target=delete)
    worker.start()
    try:
        for _ in range(1200):
            if started.exists() or not worker.is_alive():
                break
            time.sleep(0.05)
        assert started.exists(), errors
        spark.sql(f"INSERT INTO {name} VALUES (100, '100')")
    finally:
        go.touch()
        worker.join(timeout=300)
    assert not worker.is_alive()

    appended = _live_paths(location)
    if isolation == "serializable":
        assert len(errors) == 1
        message = str(errors[0])
        assert "ValidationException" in message or "conflict" in message.lower(), message
        assert f"{namespace}.t" in message, message
        assert _summary(location)["operation"] == "append"  # the INSERT, not the DELETE
        assert _rows(spark, f"SELECT id FROM {name}") == [(i,) for i in [*range(20), 100]]
        assert _files_on_disk(location) == _local(appended)  # the DELETE's files are gone
    else:
        assert errors == []
        assert _summary(location)["operation"] == "overwrite"
        assert _rows(spark, f"SELECT id FROM {name}") == [(i,) for i in [*range(20), 100] if i != 3]


@pytest.mark.parametrize("format_version", [2, 3])
def test_rewriting_a_file_drops_its_merge_on_read_deletes(
    spark: SparkSession, namespace: str, warehouse: Path, format_version: int
) -> None:
    """A copy-on-write DELETE on a file that already has merge-on-read deletes (v2 position
    deletes, v3 deletion vector) writes its surviving rows back and removes its delete file; the
    other file and the rows deleted before stay as they were."""
    name = f"floe.{namespace}.t"
    location = _location(warehouse, namespace, "t")
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, v STRING) USING floe TBLPROPERTIES "
        f"('format-version' = '{format_version}', 'write.delete.mode' = 'merge-on-read')"
    )
    for start in (0, 20):
        spark.range(start, start + 20, 1, 1).selectExpr("id", "CAST(id AS STRING) AS v").writeTo(
            name
        ).append()
    spark.sql(f"DELETE FROM {name} WHERE id = 3")
    deletes = [f for f in inspect.table_files(location) if f["content"] == 1]
    assert len(deletes) == 1
    untouched = _file_of(spark, name, "id >= 20")

    spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('write.delete.mode' = 'copy-on-write')")
    spark.sql(f"DELETE FROM {name} WHERE id = 4")

    summary = _summary(location)
    assert summary["operation"] == "overwrite"
    assert (summary["deleted-data-files"], summary["added-data-files"]) == ("1", "1")
    assert (summary["deleted-records"], summary["added-records"]) == ("20", "18")
    assert (summary["removed-delete-files"], summary["total-delete-files"]) == ("1", "0")
    files = inspect.table_files(location)
    assert all(f["content"] == 0 for f in files)
    assert untouched <= {f["file_path"] for f in files}
    assert _rows(spark, f"SELECT id FROM {name}") == [(i,) for i in range(40) if i not in (3, 4)]
