"""The ``batch-size`` read option (rows per columnar batch) is checked: a value that is not a
positive integer is a classed FLOE_OPTION_INVALID error naming the option, the value and the table,
for batch and streaming reads; a valid value reads every live row."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    name = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {name} (id INT, name STRING) "
        "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')"
    )
    spark.sql(f"INSERT INTO {name} SELECT id, CAST(id AS STRING) FROM range(10)")
    spark.sql(f"DELETE FROM {name} WHERE id IN (3, 7)")
    return name


@pytest.mark.parametrize("value", ["0", "-4", "many", "4096.5", "99999999999"])
def test_invalid_batch_size_is_a_classed_error(spark: SparkSession, table: str, value: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as raised:
        spark.read.option("batch-size", value).table(table).collect()
    error = raised.value
    assert (error.getCondition(), error.getSqlState()) == ("FLOE_OPTION_INVALID", "22023")
    message = str(error)
    assert "read option batch-size" in message and f"'{value}'" in message, message
    assert table.split(".", 1)[1] in message and "positive number of rows" in message, message


def test_valid_batch_size_reads_every_live_row(spark: SparkSession, table: str) -> None:
    rows = spark.read.option("batch-size", "3").table(table).collect()
    assert sorted(r.id for r in rows) == [0, 1, 2, 4, 5, 6, 8, 9]


def test_streaming_read_checks_batch_size(spark: SparkSession, table: str) -> None:
    from pyspark.errors import StreamingQueryException

    query = (
        spark.readStream.option("batch-size", "none")
        .table(table)
        .writeStream.format("memory")
        .queryName(f"batch_size_{table.split('.')[1]}")
        .start()
    )
    try:
        with pytest.raises(StreamingQueryException) as raised:
            query.processAllAvailable()
    finally:
        query.stop()
    message = str(raised.value)
    assert "FLOE_OPTION_INVALID" in message and "read option batch-size" in message, message
    assert "'none'" in message, message
