"""Checks shared by the warehouse suites (S3 and HDFS): the same SQL against a catalog whose
warehouse lives on another file system, with the same expected answers."""

from __future__ import annotations

from typing import Any

from pyspark.sql import SparkSession


def rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def check_row_level_dml(spark: SparkSession, catalog: str, mode: str) -> None:
    """DELETE, UPDATE and MERGE in ``mode`` (copy-on-write or merge-on-read) on a new table of
    ``catalog``; merge-on-read must have written delete files, copy-on-write none."""
    ns = "dml_" + mode.replace("-", "_")
    table = f"{catalog}.{ns}.t"
    spark.sql(f"CREATE NAMESPACE {catalog}.{ns}")
    props = ", ".join(f"'write.{op}.mode'='{mode}'" for op in ("delete", "update", "merge"))
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, v STRING) USING floe "
        f"TBLPROPERTIES ('format-version'='2', {props})"
    )
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
    spark.sql(f"DELETE FROM {table} WHERE id = 2")
    spark.sql(f"UPDATE {table} SET v = 'C' WHERE id = 3")
    source = f"{ns}_src"
    spark.createDataFrame([(4, "D"), (5, "e")], "id BIGINT, v STRING").createOrReplaceTempView(
        source
    )
    spark.sql(
        f"MERGE INTO {table} t USING {source} s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *"
    )
    assert rows(spark, f"SELECT * FROM {table} ORDER BY id") == [
        (1, "a"),
        (3, "C"),
        (4, "D"),
        (5, "e"),
    ]
    deletes = spark.sql(f"SELECT count(*) FROM {table}.delete_files").collect()[0][0]
    assert (deletes > 0) == (mode == "merge-on-read")


def check_rewrite_and_expire(spark: SparkSession, catalog: str) -> str:
    """Five INSERTs into a new table ``procs.t`` of ``catalog``, compacted by rewrite_data_files
    into one file, then expire_snapshots deleting the five; returns the table's name."""
    table = f"{catalog}.procs.t"
    spark.sql(f"CREATE NAMESPACE {catalog}.procs")
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v STRING) USING floe")
    for i in range(5):  # rewrite_data_files' default min-input-files
        spark.sql(f"INSERT INTO {table} VALUES ({i}, 'v{i}')")
    rewritten = spark.sql(
        f"CALL {catalog}.system.rewrite_data_files(table => 'procs.t')"
    ).collect()[0]
    assert rewritten.rewritten_data_files_count == 5
    assert rewritten.added_data_files_count == 1
    expired = spark.sql(
        f"CALL {catalog}.system.expire_snapshots(table => 'procs.t', retain_last => 1, "
        "older_than => TIMESTAMP '2999-01-01 00:00:00')"
    ).collect()[0]
    assert expired.deleted_data_files_count == 5
    return table
