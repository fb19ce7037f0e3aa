"""Readers get the session's Hadoop configuration of the query that runs them. Floe broadcasts it
once and reuses the broadcast while it is unchanged (``SharedConf``); a setting changed between two
queries must reach the readers of the second."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Not a class: a local file system made from it fails, naming it.
MISSING_CLASS = "io.floe.test.NoSuchFileSystem"


def test_a_changed_hadoop_setting_reaches_the_next_readers(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.conf_t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {table} SELECT id FROM range(10)")
    query = f"SELECT sum(id) FROM {table}"
    assert spark.sql(query).collect()[0][0] == 45
    assert spark.sql(query).collect()[0][0] == 45  # the same configuration: the kept broadcast
    # uncached local file systems of a class that does not exist: a reader that gets this
    # configuration cannot open the data file
    spark.conf.set("fs.file.impl.disable.cache", "true")
    spark.conf.set("fs.file.impl", MISSING_CLASS)
    try:
        with pytest.raises(Exception) as raised:
            spark.sql(query).collect()
        assert MISSING_CLASS in str(raised.value), str(raised.value)[:2000]
    finally:
        spark.conf.unset("fs.file.impl")
        spark.conf.unset("fs.file.impl.disable.cache")
    assert spark.sql(query).collect()[0][0] == 45
