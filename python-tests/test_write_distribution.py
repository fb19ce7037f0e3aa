"""The distribution and ordering Floe's writes ask Spark for (``write.distribution-mode``).

``hash`` (the default) clusters rows by the partition transforms (``bucket(8, id)``, ``days(ts)``,
``truncate(3, s)``, evaluated by Floe's functions) and sorts each task's rows by them, so an INSERT
writes exactly one file per partition, however many tasks the source and the shuffle have.
``range`` range-partitions by the same values. ``none`` adds no shuffle: each task sorts its rows
by partition and writes one file per partition it holds. The shuffle runs with 4 partitions and
adaptive coalescing off, so several tasks really write.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

import pytest
from conftest import spark_settings

from floe import inspect

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from pyspark.sql import SparkSession

SPLITS = 6  # tasks of the source
ROWS = 3000
SOURCE = (
    f"SELECT id, TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 7 AS INT), 0, "
    f"CAST(id % 60 AS INT)) AS ts, concat(CAST(100 + id % 11 AS STRING), '-', CAST(id AS STRING)) "
    f"AS s, "
    f"IF(id % 3 = 0, 'a', 'b') AS category FROM range(0, {ROWS}, 1, {SPLITS})"
)
COLUMNS = "id BIGINT, ts TIMESTAMP, s STRING, category STRING"

# partitioning -> number of partition values of SOURCE's rows
PARTITIONINGS = {
    "bucket(8, id)": 8,
    "days(ts)": 7,
    "truncate(3, s)": 11,  # '100'..'110', the first 3 characters of s
    "category, bucket(4, id)": 8,
}


@pytest.fixture
def shuffle(spark: SparkSession) -> Iterator[None]:
    """Writes shuffle into 4 partitions that adaptive execution does not coalesce."""
    settings = {
        "spark.sql.shuffle.partitions": "4",
        "spark.sql.adaptive.coalescePartitions.enabled": "false",
    }
    with spark_settings(spark, settings):
        yield


def files_per_partition(warehouse: Path, namespace: str, table: str) -> Counter[str]:
    files = inspect.table_files(str(warehouse / namespace / table))
    return Counter(json.dumps(f["partition"], sort_keys=True, default=str) for f in files)


def create(spark: SparkSession, table: str, partitioning: str, mode: str | None) -> None:
    props = f" TBLPROPERTIES ('write.distribution-mode' = '{mode}')" if mode else ""
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe PARTITIONED BY ({partitioning}){props}")


def insert_plan(spark: SparkSession, table: str) -> str:
    rows = spark.sql(f"EXPLAIN INSERT INTO {table} {SOURCE}").collect()
    return str(rows[0][0])


@pytest.mark.usefixtures("shuffle")
@pytest.mark.parametrize("mode", [None, "range"])  # None: the default, hash
@pytest.mark.parametrize("partitioning", list(PARTITIONINGS))
def test_hash_and_range_write_one_file_per_partition(
    spark: SparkSession, warehouse: Path, namespace: str, partitioning: str, mode: str | None
) -> None:
    table = f"floe.{namespace}.t"
    create(spark, table, partitioning, mode)
    plan = insert_plan(spark, table)
    exchange = "rangepartitioning(" if mode == "range" else "hashpartitioning("
    assert exchange in plan, plan
    spark.sql(f"INSERT INTO {table} {SOURCE}")
    counts = files_per_partition(warehouse, namespace, "t")
    assert len(counts) == PARTITIONINGS[partitioning], counts
    assert set(counts.values()) == {1}, counts  # not one per task per partition
    assert spark.sql(f"SELECT count(*), sum(id) FROM {table}").collect()[0] == (
        ROWS,
        ROWS * (ROWS - 1) // 2,
    )


@pytest.mark.usefixtures("shuffle")
@pytest.mark.parametrize("partitioning", ["bucket(8, id)", "days(ts)"])
def test_none_writes_without_a_shuffle_one_file_per_partition_per_task(
    spark: SparkSession, warehouse: Path, namespace: str, partitioning: str
) -> None:
    table = f"floe.{namespace}.t"
    create(spark, table, partitioning, "none")
    plan = insert_plan(spark, table)
    assert "Exchange" not in plan, plan
    assert "Sort [" in plan, plan  # rows are still grouped by partition within each task
    spark.sql(f"INSERT INTO {table} {SOURCE}")
    counts = files_per_partition(warehouse, namespace, "t")
    # every source task (a range of 500 ids) holds rows of every partition, and writes one file each
    assert len(counts) == PARTITIONINGS[partitioning], counts
    assert set(counts.values()) == {SPLITS}, counts


@pytest.mark.usefixtures("shuffle")
def test_write_option_overrides_the_table_property(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    create(spark, table, "bucket(8, id)", "hash")
    spark.sql(SOURCE).writeTo(table).option("distribution-mode", "none").append()
    counts = files_per_partition(warehouse, namespace, "t")
    assert set(counts.values()) == {SPLITS}, counts


@pytest.mark.usefixtures("shuffle")
def test_create_table_as_select_clusters_by_partition(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {table} USING floe PARTITIONED BY (bucket(8, id), days(ts)) AS {SOURCE}"
    )
    counts = files_per_partition(warehouse, namespace, "t")
    assert len(counts) == 8 * 7, counts
    assert set(counts.values()) == {1}, counts


def test_unpartitioned_table_is_not_shuffled(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
    plan = insert_plan(spark, table)
    assert "Exchange" not in plan and "Sort [" not in plan, plan


def test_invalid_distribution_mode_is_refused(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    with pytest.raises(Exception, match=r"write\.distribution-mode") as raised:
        create(spark, table, "bucket(8, id)", "random")  # checked when set
    assert "none, hash, range" in str(raised.value)
    create(spark, table, "bucket(8, id)", "hash")
    with pytest.raises(Exception, match=r"write\.distribution-mode") as raised:
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.distribution-mode' = 'random')")
    assert "none, hash, range" in str(raised.value)
    spark.sql(f"INSERT INTO {table} {SOURCE}")
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] > 0


@pytest.fixture
def tiny_advisory_size(spark: SparkSession) -> Iterator[None]:
    """Spark's own advisory partition size set to 1 KB: adaptive execution splits larger shuffle
    partitions into several tasks unless the write asks for more."""
    key = "spark.sql.adaptive.advisoryPartitionSizeInBytes"
    before = spark.conf.get(key, None)
    spark.conf.set(key, "1024")
    yield
    if before is None:
        spark.conf.unset(key)
    else:
        spark.conf.set(key, before)


@pytest.mark.usefixtures("tiny_advisory_size")
def test_writes_ask_for_task_sizes_of_the_target_file_size(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """The write's advisory partition size is the target file size (or
    ``write.spark.advisory-partition-size-bytes``), not Spark's: a partition's rows stay in one
    task, so a day is one file."""
    table = f"floe.{namespace}.t"
    create(spark, table, "days(ts)", None)
    spark.sql(f"INSERT INTO {table} {SOURCE}")
    counts = files_per_partition(warehouse, namespace, "t")
    assert len(counts) == 7 and set(counts.values()) == {1}, counts

    small = f"floe.{namespace}.small"
    spark.sql(
        f"CREATE TABLE {small} ({COLUMNS}) USING floe PARTITIONED BY (days(ts)) "
        "TBLPROPERTIES ('write.spark.advisory-partition-size-bytes' = '1024')"
    )
    spark.sql(f"INSERT INTO {small} {SOURCE}")
    split = files_per_partition(warehouse, namespace, "small")
    assert len(split) == 7 and max(split.values()) > 1, split  # tasks of about 1 KB each
