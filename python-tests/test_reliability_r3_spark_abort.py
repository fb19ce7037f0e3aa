"""R3 in Spark: an Error (an OutOfMemoryError) after a write's commit landed must not make Spark's
abort() delete the files of the snapshot that is now current (apache/iceberg#4666, #11575 class).

CommitErrorHook (a test hook, armed only with -Dfloe.test-hooks=true) throws the Error right after
the next commit landed; Spark then calls the write's abort(). The table must keep every row of
the landed commit and stay readable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = "'write.delete.mode'='merge-on-read', 'format-version'='3'"


def _arm(spark: SparkSession) -> None:
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    jvm.io.floe.spark.write.CommitErrorHook.arm()


def _ids(spark: SparkSession, name: str) -> list[int]:
    return sorted(int(r.id) for r in spark.sql(f"SELECT id FROM {name}").collect())


def test_error_after_a_landed_insert_keeps_its_files(spark: SparkSession, namespace: str) -> None:
    name = f"floe.{namespace}.landed_insert"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {name} VALUES (1)")
    _arm(spark)
    with pytest.raises(Exception, match="CommitErrorHook"):
        spark.sql(f"INSERT INTO {name} VALUES (2), (3)")
    assert _ids(spark, name) == [1, 2, 3]


def test_error_after_a_landed_delete_keeps_its_files(spark: SparkSession, namespace: str) -> None:
    name = f"floe.{namespace}.landed_delete"
    spark.sql(f"CREATE TABLE {name} (id BIGINT) USING floe TBLPROPERTIES ({MOR})")
    spark.sql(f"INSERT INTO {name} SELECT id FROM range(0, 10)")
    _arm(spark)
    with pytest.raises(Exception, match="CommitErrorHook"):
        spark.sql(f"DELETE FROM {name} WHERE id < 3")
    assert _ids(spark, name) == list(range(3, 10))
    spark.sql(f"INSERT INTO {name} VALUES (42)")
    assert _ids(spark, name) == [*range(3, 10), 42]
