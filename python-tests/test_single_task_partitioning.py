"""A read that runs as one task reports its identity-partition key (docs/architecture.md, "One
task, one key"): Spark then needs no shuffle for an aggregate without GROUP BY over it, so the
query runs one job instead of two. Reads of several tasks, of non-identity partitions, and of
files whose column bounds do not pin the value report nothing. Every answer is compared with the
same query with the report switched off (``spark.sql.sources.v2.bucketing.enabled=false``, under
which Spark ignores reported partitionings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from conftest import spark_jobs, unique_name

# these tests look at the scan node of a Spark job (its metrics, partitioning, plan), which a
# small scan read on the driver (FloeLocalRead) does not have
pytestmark = pytest.mark.usefixtures("job_scans")

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pyspark.sql import SparkSession

GROUPING = "spark.sql.sources.v2.bucketing.enabled"


@pytest.fixture(scope="module")
def table(spark: SparkSession) -> Iterator[str]:
    """3 identity partitions (p = 0, 1, 2), one small file each; plus a days() partitioned twin."""
    ns = unique_name("stp")
    spark.sql(f"CREATE NAMESPACE floe.{ns}")
    name = f"floe.{ns}.t"
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, v INT, p INT, s STRING) USING floe PARTITIONED BY (p)"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT id, CAST(id % 7 AS INT), CAST(id % 3 AS INT), "
        "concat('s', CAST(id % 5 AS STRING)) FROM range(3000)"
    )
    spark.sql(
        f"CREATE TABLE floe.{ns}.by_day (id BIGINT, ts TIMESTAMP) USING floe "
        "PARTITIONED BY (days(ts))"
    )
    spark.sql(
        f"INSERT INTO floe.{ns}.by_day SELECT id, TIMESTAMP '2024-01-01 00:00:00' + "
        "make_interval(0, 0, 0, CAST(id % 10 AS INT)) FROM range(100)"
    )
    yield name
    spark.sql(f"DROP NAMESPACE floe.{ns} CASCADE")


def plan_of(spark: SparkSession, sql: str) -> str:
    return str(spark.sql(sql)._jdf.queryExecution().executedPlan().toString())


def rows(spark: SparkSession, sql: str) -> list[Any]:
    return sorted(tuple(r) for r in spark.sql(sql).collect())


def without_report(spark: SparkSession, sql: str) -> list[Any]:
    spark.conf.set(GROUPING, "false")
    try:
        assert "Exchange" in plan_of(spark, sql)  # the baseline really shuffles
        return rows(spark, sql)
    finally:
        spark.conf.unset(GROUPING)


def jobs_of(spark: SparkSession, sql: str) -> int:
    return len(spark_jobs(spark, lambda: spark.sql(sql).collect())[1])


@pytest.mark.parametrize(
    "where",
    ["p = 1", "p = 1 AND id < 500", "p = 2 AND s = 's3'", "p = 0 AND v > 3"],
)
def test_one_partition_aggregate_needs_no_shuffle(
    spark: SparkSession, table: str, where: str
) -> None:
    sql = f"SELECT count(*), sum(v), min(id), max(s) FROM {table} WHERE {where}"
    plan = plan_of(spark, sql)
    assert "Exchange" not in plan, plan
    assert rows(spark, sql) == without_report(spark, sql)


def test_one_job_instead_of_two(spark: SparkSession, table: str) -> None:
    sql = f"SELECT count(*), sum(v) FROM {table} WHERE p = 1"
    assert jobs_of(spark, sql) == 1
    spark.conf.set(GROUPING, "false")
    try:
        assert jobs_of(spark, sql) == 2
    finally:
        spark.conf.unset(GROUPING)


def test_grouped_by_the_partition_column(spark: SparkSession, table: str) -> None:
    sql = f"SELECT p, count(*), sum(v) FROM {table} WHERE p = 2 GROUP BY p"
    assert "Exchange" not in plan_of(spark, sql)
    assert rows(spark, sql) == without_report(spark, sql) == [(2, 1000, 2997)]


def test_the_key_column_stays_out_of_the_result(spark: SparkSession, table: str) -> None:
    df = spark.sql(f"SELECT id, v FROM {table} WHERE p = 1 AND id < 10")
    assert df.columns == ["id", "v"]
    assert sorted(tuple(r) for r in df.collect()) == [(1, 1), (4, 4), (7, 0)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*), sum(v) FROM {t}",  # three files in three partitions
        "SELECT count(*), sum(v) FROM {t} WHERE p IN (0, 1)",
        "SELECT count(*) FROM {t}.files",  # a metadata table
    ],
)
def test_reads_of_several_partitions_report_nothing(
    spark: SparkSession, table: str, sql: str
) -> None:
    query = sql.format(t=table)
    assert "Exchange" in plan_of(spark, query)


def test_a_partition_read_by_several_tasks_reports_nothing(spark: SparkSession, table: str) -> None:
    two = table + "_two_files"
    spark.sql(
        f"CREATE TABLE {two} USING floe PARTITIONED BY (p) AS SELECT * FROM {table} WHERE p = 1"
    )
    spark.sql(f"INSERT INTO {two} SELECT * FROM {table} WHERE p = 1")  # a second file in p = 1
    try:
        # each file weighs at least the open cost, so two files make two tasks on two cores
        sql = f"SELECT count(*), sum(v) FROM {two} WHERE p = 1"
        assert "Exchange" in plan_of(spark, sql)
        assert rows(spark, sql) == [(2000, 2 * 2998)]
    finally:
        spark.sql(f"DROP TABLE {two}")


def test_a_transform_other_than_identity_reports_nothing(spark: SparkSession, table: str) -> None:
    by_day = table.rsplit(".", 1)[0] + ".by_day"
    sql = (
        f"SELECT count(*), sum(id) FROM {by_day} "
        "WHERE ts >= TIMESTAMP '2024-01-03' AND ts < TIMESTAMP '2024-01-04'"
    )
    assert "Exchange" in plan_of(spark, sql)
    assert rows(spark, sql) == [(10, 470)]


def test_self_join_of_two_keyed_reads(spark: SparkSession, table: str) -> None:
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        sql = (
            f"SELECT count(*), sum(a.v + b.v) FROM {table} a JOIN {table} b "
            "ON a.p = b.p AND a.id = b.id + 3 WHERE a.p = 1 AND b.p = 1"
        )
        assert rows(spark, sql) == without_report(spark, sql)
        assert rows(spark, sql)[0][0] == 999
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


def test_runtime_filter_that_drops_the_one_file(spark: SparkSession, table: str) -> None:
    """Dynamic partition pruning removes the keyed read's only file: an empty answer, no error."""
    dim = unique_name("dim")
    dims = spark.createDataFrame([(1, "keep"), (2, "drop")], "p INT, tag STRING")
    dims.createOrReplaceTempView(dim)
    conf = {
        "spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly": "false",
        "spark.sql.optimizer.dynamicPartitionPruning.useStats": "false",
        "spark.sql.optimizer.dynamicPartitionPruning.fallbackFilterRatio": "100",
    }
    for key, value in conf.items():
        spark.conf.set(key, value)
    try:
        sql = (
            f"SELECT count(*), sum(t.v) FROM {table} t JOIN {dim} d ON t.p = d.p "
            "WHERE t.p = 1 AND d.tag = 'drop'"
        )
        assert rows(spark, sql) == without_report(spark, sql) == [(0, None)]
        kept = sql.replace("'drop'", "'keep'")
        assert rows(spark, kept) == without_report(spark, kept) == [(1000, 2998)]
    finally:
        for key in conf:
            spark.conf.unset(key)


def test_delete_and_time_travel_of_a_keyed_partition(spark: SparkSession, table: str) -> None:
    clone = table + "_clone"
    spark.sql(f"CREATE TABLE {clone} USING floe PARTITIONED BY (p) AS SELECT * FROM {table}")
    try:
        before = spark.sql(f"SELECT snapshot_id FROM {clone}.snapshots").collect()[-1][0]
        spark.sql(f"DELETE FROM {clone} WHERE p = 1 AND id < 1500")
        sql = f"SELECT count(*), sum(v) FROM {clone} WHERE p = 1"
        assert rows(spark, sql) == without_report(spark, sql) == [(500, 1502)]
        old = f"SELECT count(*) FROM {clone} VERSION AS OF {before} WHERE p = 1"
        assert "Exchange" not in plan_of(spark, old)
        assert rows(spark, old) == [(1000,)]
    finally:
        spark.sql(f"DROP TABLE {clone}")


def test_the_key_must_be_pinned_by_the_file_bounds(spark: SparkSession, table: str) -> None:
    """String bounds are truncated to 16 characters: a longer partition value is not pinned by
    them, so that read reports nothing; a short one does."""
    by_name = table + "_by_name"
    long_value = "a-partition-value-longer-than-sixteen"
    spark.sql(f"CREATE TABLE {by_name} (id BIGINT, name STRING) USING floe PARTITIONED BY (name)")
    spark.sql(
        f"INSERT INTO {by_name} SELECT id, IF(id % 2 = 0, 'short', '{long_value}') FROM range(100)"
    )
    try:
        short = f"SELECT count(*), sum(id) FROM {by_name} WHERE name = 'short'"
        assert "Exchange" not in plan_of(spark, short)
        assert rows(spark, short) == [(50, 2450)]
        long = f"SELECT count(*), sum(id) FROM {by_name} WHERE name = '{long_value}'"
        assert "Exchange" in plan_of(spark, long)
        assert rows(spark, long) == [(50, 2500)]
    finally:
        spark.sql(f"DROP TABLE {by_name}")


# (a top-level name with a dot, "a.b", is left out: Floe does not push filters on such a column
# yet, so the read plans every partition and reports nothing; a known gap of filter push-down)
@pytest.mark.parametrize("column", ["région du pays", "`tick`", "日付"])
def test_odd_key_column_names(spark: SparkSession, table: str, column: str) -> None:
    """A key column whose name needs quoting (spaces, dots, backticks, Unicode) is reported and
    projected away like any other."""
    odd = table + "_odd"
    quoted = "`" + column.replace("`", "``") + "`"
    spark.sql(
        f"CREATE TABLE {odd} (id BIGINT, {quoted} STRING) USING floe PARTITIONED BY ({quoted})"
    )
    spark.sql(f"INSERT INTO {odd} SELECT id, IF(id % 2 = 0, 'x', 'y') FROM range(100)")
    try:
        sql = f"SELECT count(*), sum(id) FROM {odd} WHERE {quoted} = 'x'"
        assert "Exchange" not in plan_of(spark, sql)
        assert rows(spark, sql) == without_report(spark, sql) == [(50, 2450)]
        df = spark.sql(f"SELECT id FROM {odd} WHERE {quoted} = 'y' AND id < 5")
        assert df.columns == ["id"]
        assert sorted(r[0] for r in df.collect()) == [1, 3]
    finally:
        spark.sql(f"DROP TABLE {odd}")
