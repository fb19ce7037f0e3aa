"""A large data file is read by several tasks, each a range of its row groups, as Spark splits a
plain Parquet file: one file must not leave all but one core idle. Rows, row positions (``_pos``)
and deletes are the same as in a whole-file read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS = 60_000
#: small ranges and open cost so that the one test file (~2 MB, row groups of ~64 KB) is split
SPLIT = {"split-size": "256k", "file-open-cost": "64k"}


def _one_file_table(spark: SparkSession, namespace: str) -> str:
    table = f"floe.{namespace}.big"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe "
        "TBLPROPERTIES ('write.parquet.row-group-size-bytes' = '65536')"
    )
    spark.sql(
        f"INSERT INTO {table} SELECT id, sha2(CAST(id AS STRING), 256) FROM range(0, {ROWS}, 1, 1)"
    )
    files = spark.sql(f"SELECT file_path FROM {table}.files").collect()
    assert len(files) == 1, files
    return table


def _split_read(spark: SparkSession, table: str) -> DataFrame:
    return spark.read.options(**SPLIT).table(table)


def test_one_large_file_is_read_by_several_tasks(spark: SparkSession, namespace: str) -> None:
    table = _one_file_table(spark, namespace)
    df = _split_read(spark, table).select("id", "s", "_pos")
    per_task = df.rdd.glom().map(len).collect()
    assert len(per_task) > 2, per_task
    # ranges start at row groups: no task reads nothing, none reads a row twice
    assert min(per_task) > 0 and sum(per_task) == ROWS, per_task
    rows = df.collect()
    assert sorted(r.id for r in rows) == list(range(ROWS))
    # rows were written in id order, so a row's position in the file is its id
    assert all(r["_pos"] == r.id for r in rows)
    assert spark.table(table).rdd.getNumPartitions() == 1  # 2 MB: below the open cost, one task


def test_deletes_apply_to_every_range_of_a_split_file(spark: SparkSession, namespace: str) -> None:
    table = _one_file_table(spark, namespace)
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read')")
    spark.sql(f"DELETE FROM {table} WHERE id % 7 = 0 OR id >= {ROWS - 100}")
    df = _split_read(spark, table)
    assert df.rdd.getNumPartitions() > 2
    expected = [i for i in range(ROWS - 100) if i % 7 != 0]
    assert sorted(r.id for r in df.select("id").collect()) == expected
    assert df.selectExpr("count(*)", "sum(id)").first() == (len(expected), sum(expected))
