"""The data source ``floe``: DataFrame reads and writes of a Floe catalog's tables by name.

``df.write.format("floe").saveAsTable(...)`` and ``.save(...)`` (create, append, overwrite),
``spark.read.format("floe").load(...)``, ``saveAsTable`` without a format (Spark passes its default
source, parquet: the table is a Floe table of Parquet files, as in Iceberg's catalog), and the
errors for names that are not a Floe table. ``iceberg`` names Floe's source only when Iceberg's
runtime is absent (JUnit TestFloeIcebergAlias); here, with it loaded, ``iceberg`` stays Iceberg's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _ids(spark: SparkSession, table: str) -> list[int]:
    return sorted(r.id for r in spark.read.format("floe").load(table).collect())


def _is_floe_table(warehouse: Path, namespace: str, name: str) -> bool:
    metadata = inspect.load_table_metadata(str(warehouse / namespace / name))
    return metadata["format-version"] in (1, 2, 3)


def test_save_as_table_create_append_overwrite_and_read(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    spark.range(3).write.format("floe").saveAsTable(table)
    assert _is_floe_table(warehouse, namespace, "t")
    assert _ids(spark, table) == [0, 1, 2]

    spark.range(3, 5).write.format("floe").mode("append").save(table)
    spark.range(5, 6).write.format("floe").mode("append").saveAsTable(table)
    assert _ids(spark, table) == [0, 1, 2, 3, 4, 5]

    spark.range(10, 12).write.format("floe").mode("overwrite").save(table)
    assert _ids(spark, table) == [10, 11]

    spark.range(20, 21).write.format("floe").save(f"floe.{namespace}.created_by_save")
    assert _ids(spark, f"floe.{namespace}.created_by_save") == [20]
    with pytest.raises(Exception, match="already exists"):
        spark.range(1).write.format("floe").save(f"floe.{namespace}.created_by_save")


def test_names_relative_to_the_current_floe_catalog(spark: SparkSession, namespace: str) -> None:
    spark.range(2).write.format("floe").saveAsTable(f"floe.{namespace}.t")
    current = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    spark.sql(f"USE floe.{namespace}")
    try:
        assert _ids(spark, "t") == [0, 1]
        assert _ids(spark, f"{namespace}.t") == [0, 1]
    finally:
        spark.sql(f"USE {current[0]}.{current[1]}")


def test_save_as_table_without_a_format_creates_a_floe_table(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    assert spark.conf.get("spark.sql.sources.default") == "parquet"
    table = f"floe.{namespace}.plain"
    spark.range(4).write.saveAsTable(table)
    assert _is_floe_table(warehouse, namespace, "plain")
    assert _ids(spark, table) == [0, 1, 2, 3]
    spark.sql(f"CREATE TABLE floe.{namespace}.using_parquet (id BIGINT) USING parquet")
    assert _is_floe_table(warehouse, namespace, "using_parquet")


def test_create_table_using_floe(spark: SparkSession, warehouse: Path, namespace: str) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.u (id BIGINT) USING floe")
    spark.range(2).write.format("floe").mode("append").save(f"floe.{namespace}.u")
    assert _is_floe_table(warehouse, namespace, "u")
    assert _ids(spark, f"floe.{namespace}.u") == [0, 1]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("/tmp/some/path", "it is not a table name"),
        ("default.t", "the current catalog, spark_catalog, is not one"),
    ],
)
def test_names_that_are_not_floe_tables_are_refused(
    spark: SparkSession, name: str, expected: str
) -> None:
    with pytest.raises(Exception) as raised:
        spark.read.format("floe").load(name)
    message = str(raised.value)
    assert expected in message, message
    assert "Floe catalogs: floe" in message and "not read or write tables by path" in message


def test_missing_table_name_and_missing_table(spark: SparkSession, namespace: str) -> None:
    with pytest.raises(Exception, match="Missing table name for data source floe"):
        spark.read.format("floe").load()
    with pytest.raises(Exception, match="cannot be found"):
        spark.read.format("floe").load(f"floe.{namespace}.nosuch")


def test_iceberg_short_name_stays_icebergs_with_its_runtime(
    spark: SparkSession, namespace: str, iceberg: str
) -> None:
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    conf = spark._jsparkSession.sessionState().conf()
    lookup = jvm.org.apache.spark.sql.execution.datasources.DataSource.lookupDataSource
    assert lookup("floe", conf).getName() == "io.floe.spark.FloeSource"
    assert lookup("iceberg", conf).getName() == "org.apache.iceberg.spark.source.IcebergSource"
    spark.range(3).write.format("floe").saveAsTable(f"floe.{namespace}.t")
    # Iceberg's own source reads the table through its catalog name
    rows = spark.read.format("iceberg").load(f"{iceberg}.{namespace}.t").collect()
    assert sorted(r.id for r in rows) == [0, 1, 2]
