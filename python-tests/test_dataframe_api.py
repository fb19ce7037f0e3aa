"""Floe tables through the DataFrame API: ``df.writeTo(t)`` and ``spark.table(t)``.

Each write is checked three ways: the rows Spark reads back, the files and snapshot summary the
metadata holds (read with ``floe.inspect``, no JVM), and the snapshot's operation label.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

CATALOG = "floe"


def local(location: str) -> Path:
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return Path(location[len(prefix) :])
    return Path(location)


def rows(df: DataFrame) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in df.collect())


def current_snapshot(location: Path) -> dict[str, Any]:
    snapshot = inspect.find_snapshot(inspect.load_table_metadata(str(location)))
    assert snapshot is not None
    return snapshot


def operations(location: Path) -> list[str]:
    metadata = inspect.load_table_metadata(str(location))
    snapshots = sorted(metadata["snapshots"], key=lambda s: s["sequence-number"])
    return [s["summary"]["operation"] for s in snapshots]


def assert_summary_matches_files(spark: SparkSession, table: str, location: Path) -> None:
    """total-records, total-data-files and total-files-size equal the live files on disk."""
    summary = current_snapshot(location)["summary"]
    files = inspect.table_files(str(location))
    assert int(summary["total-data-files"]) == len(files)
    assert int(summary["total-records"]) == sum(f["record_count"] for f in files)
    assert int(summary["total-files-size"]) == sum(
        local(f["file_path"]).stat().st_size for f in files
    )
    assert int(summary["total-records"]) == spark.table(table).count()


def partitions(location: Path, column: str) -> list[Any]:
    return sorted({f["partition"][column] for f in inspect.table_files(str(location))})


@pytest.fixture
def sales(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(
        [(1, "eu", 10.0), (2, "eu", 20.0), (3, "us", 30.0), (4, "apac", 40.0)],
        "id BIGINT, region STRING, amount DOUBLE",
    )


def test_create_append_and_read(
    spark: SparkSession, warehouse: Path, namespace: str, sales: DataFrame
) -> None:
    from pyspark.sql.functions import col

    t = f"{CATALOG}.{namespace}.sales"
    location = warehouse / namespace / "sales"
    (
        sales.writeTo(t)
        .using("floe")
        .partitionedBy(col("region"))
        .tableProperty("owner.team", "sales")
        .create()
    )
    metadata = inspect.load_table_metadata(str(location))
    spec = metadata["partition-specs"][0]["fields"]
    assert [(f["name"], f["transform"]) for f in spec] == [("region", "identity")]
    assert metadata["properties"]["owner.team"] == "sales"
    assert rows(spark.table(t)) == rows(sales)
    assert partitions(location, "region") == ["apac", "eu", "us"]
    assert_summary_matches_files(spark, t, location)

    more = spark.createDataFrame([(5, "us", 50.0)], "id BIGINT, region STRING, amount DOUBLE")
    more.writeTo(t).append()
    # Columns are matched by name, not position.
    spark.createDataFrame([(60.0, "latam", 6)], "amount DOUBLE, region STRING, id BIGINT").writeTo(
        t
    ).append()
    assert spark.table(t).count() == 6
    assert rows(spark.table(t).where("region = 'us'")) == [(3, "us", 30.0), (5, "us", 50.0)]
    assert rows(spark.table(t).where("id = 6")) == [(6, "latam", 60.0)]
    assert_summary_matches_files(spark, t, location)
    assert operations(location) == ["append", "append", "append"]
    summary = current_snapshot(location)["summary"]
    assert (summary["added-records"], summary["added-data-files"]) == ("1", "1")


def test_overwrite_partitions_replaces_only_written_partitions(
    spark: SparkSession, warehouse: Path, namespace: str, sales: DataFrame
) -> None:
    from pyspark.sql.functions import col

    t = f"{CATALOG}.{namespace}.dyn"
    location = warehouse / namespace / "dyn"
    sales.writeTo(t).partitionedBy(col("region")).create()
    replacement = spark.createDataFrame(
        [(7, "eu", 70.0), (8, "latam", 80.0)], "id BIGINT, region STRING, amount DOUBLE"
    )
    replacement.writeTo(t).overwritePartitions()
    assert rows(spark.table(t)) == [
        (3, "us", 30.0),
        (4, "apac", 40.0),
        (7, "eu", 70.0),
        (8, "latam", 80.0),
    ]
    assert partitions(location, "region") == ["apac", "eu", "latam", "us"]
    summary = current_snapshot(location)["summary"]
    assert summary["operation"] == "overwrite"
    assert summary["replace-partitions"] == "true"
    assert (summary["deleted-data-files"], summary["deleted-records"]) == ("1", "2")
    assert (summary["added-data-files"], summary["added-records"]) == ("2", "2")
    assert_summary_matches_files(spark, t, location)


def test_overwrite_by_condition_replaces_matching_partitions(
    spark: SparkSession, warehouse: Path, namespace: str, sales: DataFrame
) -> None:
    from pyspark.sql.functions import col

    t = f"{CATALOG}.{namespace}.cond"
    location = warehouse / namespace / "cond"
    sales.writeTo(t).partitionedBy(col("region")).create()
    eu = spark.createDataFrame([(9, "eu", 90.0)], "id BIGINT, region STRING, amount DOUBLE")
    eu.writeTo(t).overwrite(col("region") == "eu")
    assert rows(spark.table(t)) == [(3, "us", 30.0), (4, "apac", 40.0), (9, "eu", 90.0)]
    assert current_snapshot(location)["summary"]["operation"] == "overwrite"
    assert_summary_matches_files(spark, t, location)

    # A condition on several partitions, with nothing new: a delete.
    spark.createDataFrame([], "id BIGINT, region STRING, amount DOUBLE").writeTo(t).overwrite(
        col("region").isin("us", "apac")
    )
    assert rows(spark.table(t)) == [(9, "eu", 90.0)]
    assert_summary_matches_files(spark, t, location)
    assert operations(location) == ["append", "overwrite", "delete"]

    # A condition that does not select whole partitions is refused and changes nothing.
    before = current_snapshot(location)["snapshot-id"]
    with pytest.raises(Exception, match="amount is not an identity partition column"):
        eu.writeTo(t).overwrite(col("amount") > 50)
    assert current_snapshot(location)["snapshot-id"] == before
    assert rows(spark.table(t)) == [(9, "eu", 90.0)]


def test_create_or_replace_keeps_history_and_changes_schema(
    spark: SparkSession, warehouse: Path, namespace: str, sales: DataFrame
) -> None:
    from pyspark.sql.functions import col

    t = f"{CATALOG}.{namespace}.cor"
    location = warehouse / namespace / "cor"
    sales.writeTo(t).createOrReplace()  # creates
    first = current_snapshot(location)["snapshot-id"]
    assert spark.table(t).count() == 4

    totals = sales.groupBy("region").count().withColumnRenamed("count", "n")
    totals.writeTo(t).partitionedBy(col("region")).createOrReplace()
    assert [f.name for f in spark.table(t).schema.fields] == ["region", "n"]
    assert rows(spark.table(t)) == [("apac", 1), ("eu", 2), ("us", 1)]
    metadata = inspect.load_table_metadata(str(location))
    assert [f["name"] for f in metadata["partition-specs"][-1]["fields"]] == ["region"]
    assert first in {s["snapshot-id"] for s in metadata["snapshots"]}
    assert_summary_matches_files(spark, t, location)
    # The replaced table's files are not part of the new snapshot.
    assert all(f["snapshot_id"] != first for f in inspect.table_files(str(location)))

    sales.writeTo(t).replace()
    assert rows(spark.table(t)) == rows(sales)
    assert [f.name for f in spark.table(t).schema.fields] == ["id", "region", "amount"]


def test_write_to_errors_name_the_table_and_change_nothing(
    spark: SparkSession, warehouse: Path, namespace: str, sales: DataFrame
) -> None:
    from pyspark.errors import AnalysisException

    t = f"{CATALOG}.{namespace}.errs"
    sales.writeTo(t).create()
    version = inspect.metadata_file(str(warehouse / namespace / "errs"))

    with pytest.raises(AnalysisException, match="errs"):
        sales.writeTo(t).create()
    with pytest.raises(AnalysisException, match="missing"):
        sales.writeTo(f"{CATALOG}.{namespace}.missing").append()
    with pytest.raises(AnalysisException, match="missing"):
        sales.writeTo(f"{CATALOG}.{namespace}.missing").replace()
    with pytest.raises(AnalysisException, match="nope"):
        sales.writeTo(f"{CATALOG}.nope.t").create()
    with pytest.raises(AnalysisException, match="extra"):
        sales.selectExpr("*", "1 AS extra").writeTo(t).append()
    with pytest.raises(AnalysisException, match="amount"):
        sales.selectExpr("id", "region", "array(amount) AS amount").writeTo(t).append()

    assert inspect.metadata_file(str(warehouse / namespace / "errs")) == version
    assert rows(spark.table(t)) == rows(sales)
    assert not spark.catalog.tableExists(f"{CATALOG}.{namespace}.missing")

    # Spark fills a missing nullable column with NULL (by-name resolution); a required one fails.
    sales.where("id = 1").drop("amount").writeTo(t).append()
    assert rows(spark.table(t).where("id = 1").fillna(-1.0)) == [(1, "eu", -1.0), (1, "eu", 10.0)]
    required = f"{CATALOG}.{namespace}.required"
    spark.sql(f"CREATE TABLE {required} (id BIGINT, amount DOUBLE NOT NULL)")
    with pytest.raises(AnalysisException, match="amount"):
        sales.select("id").writeTo(required).append()
    assert spark.table(required).count() == 0


def test_table_reads_follow_every_write(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    from pyspark.sql.functions import col, expr

    t = f"{CATALOG}.{namespace}.counted"
    location = warehouse / namespace / "counted"
    base = spark.range(0, 1000, 1, 4).withColumn("p", expr("CAST(id % 4 AS INT)"))
    base.writeTo(t).partitionedBy(col("p")).create()
    assert spark.table(t).count() == 1000
    spark.range(1000, 1100).withColumn("p", expr("4")).writeTo(t).append()
    assert spark.table(t).count() == 1100
    spark.range(0, 10).withColumn("p", expr("CAST(id % 2 AS INT)")).writeTo(t).overwritePartitions()
    assert spark.table(t).count() == 610  # p=0 and p=1 (250 rows each) became 5 rows each
    spark.range(0, 3).withColumn("p", expr("4")).writeTo(t).overwrite(col("p") == 4)
    assert spark.table(t).count() == 513
    assert spark.table(t).where("p = 4").count() == 3
    assert spark.table(t).where("p = 2").agg({"id": "sum"}).collect()[0][0] == sum(
        range(2, 1000, 4)
    )
    assert_summary_matches_files(spark, t, location)
    assert operations(location) == ["append", "append", "overwrite", "overwrite"]
