"""CALL floe.system.add_files: existing Parquet files become a table's data files without being
rewritten (as Iceberg's add_files), metrics from their footers; mismatches fail and add nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession


def add_files(spark: SparkSession, table: str, directory: Path) -> tuple[int, int]:
    row = spark.sql(
        f"CALL floe.system.add_files(table => '{table}', source_table => '`parquet`.`{directory}`')"
    ).collect()[0]
    return row.added_files_count, row.changed_partition_count


def snapshots(spark: SparkSession, table: str) -> int:
    return spark.table(f"floe.{table}.snapshots").count()


def test_adds_files_in_place_with_footer_metrics(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    source = tmp_path / "src"
    rows = spark.range(1000).selectExpr(
        "id", "CAST(id * 1.5 AS DOUBLE) AS x", "CAST(id AS STRING) AS s"
    )
    rows.repartition(2).sortWithinPartitions("id").write.parquet(str(source))
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, x DOUBLE, s STRING)")

    assert add_files(spark, table, source) == (2, 1)

    assert spark.sql(f"SELECT count(*), sum(id), sum(x) FROM floe.{table}").collect()[0] == (
        1000, 499500, 749250.0,
    )  # fmt: skip
    files = spark.sql(
        f"SELECT file_path, record_count, lower_bounds, upper_bounds, nan_value_counts "
        f"FROM floe.{table}.files"
    ).collect()
    sources = sorted(str(p) for p in source.glob("*.parquet"))
    assert sorted(f.file_path.removeprefix("file:") for f in files) == sources  # not rewritten
    assert sum(f.record_count for f in files) == 1000
    for f in files:
        assert 1 in f.lower_bounds and 1 in f.upper_bounds  # id: bounds from the footer
        assert 2 not in f.lower_bounds and not (f.nan_value_counts or {})  # x: NaN unknown
    # the bounds prune: one file holds ids <= 5
    assert spark.sql(f"SELECT count(*) FROM floe.{table} WHERE id = 5").collect()[0][0] == 1


def test_hive_directories_give_identity_partition_values(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    source = tmp_path / "src"
    for p in (1, 2):
        spark.range(10).selectExpr("id", f"{p} AS p").write.parquet(str(source / f"p={p}"))
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, p INT) PARTITIONED BY (p)")

    added, partitions = add_files(spark, table, source)

    assert partitions == 2 and added >= 2
    assert spark.sql(f"SELECT p, count(*) FROM floe.{table} GROUP BY p ORDER BY p").collect() == [
        (1, 10), (2, 10),
    ]  # fmt: skip
    files = spark.sql(f"SELECT partition FROM floe.{table}.files").collect()
    values = {r.partition.p for r in files}
    assert values == {1, 2}


def test_missing_directory_is_an_error(spark: SparkSession, namespace: str, tmp_path: Path) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT)")
    with pytest.raises(AnalysisException, match="does not exist"):
        add_files(spark, table, tmp_path / "nope")
    with pytest.raises(AnalysisException, match="source_table must name a directory"):
        spark.sql(f"CALL floe.system.add_files(table => '{table}', source_table => 'db.other')")


def test_schema_mismatch_adds_nothing(spark: SparkSession, namespace: str, tmp_path: Path) -> None:
    table = f"{namespace}.t"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, p INT) PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO floe.{table} VALUES (1, 1)")
    before = snapshots(spark, table)
    extra = tmp_path / "extra"
    spark.range(3).selectExpr("id", "1 AS p", "id AS other").write.parquet(str(extra / "p=1"))
    with pytest.raises(AnalysisException, match="column other, which the table does not have"):
        add_files(spark, table, extra)
    hive = tmp_path / "hive"  # Spark's partitionBy leaves the partition column out of the files
    spark.range(3).selectExpr("id", "1 AS p").write.partitionBy("p").parquet(str(hive))
    with pytest.raises(AnalysisException, match="has no column p"):
        add_files(spark, table, hive)
    wrong_type = tmp_path / "wrong"
    spark.range(3).selectExpr("CAST(id AS STRING) AS id", "1 AS p").write.parquet(
        str(wrong_type / "p=1")
    )
    with pytest.raises(AnalysisException, match="does not match the table's"):
        add_files(spark, table, wrong_type)
    assert snapshots(spark, table) == before
    assert spark.table(f"floe.{table}").count() == 1
