"""The Hadoop FileSystem code path (used for hdfs://, s3a://, ...) on a local warehouse.

A second catalog, ``floe_hadoop``, is configured with ``io-impl=hadoop`` so that every metadata
read, listing, temp-file write and no-overwrite publish goes through Hadoop's FileSystem and
FileContext APIs instead of the local hard-link implementation.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import floe

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "floe_hadoop"


@pytest.fixture(scope="module")
def hadoop_warehouse(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Path:
    warehouse = tmp_path_factory.mktemp("hadoop-warehouse").resolve()
    spark.conf.set(f"spark.sql.catalog.{CATALOG}", "io.floe.spark.FloeCatalog")
    spark.conf.set(f"spark.sql.catalog.{CATALOG}.warehouse", floe.warehouse_uri(str(warehouse)))
    spark.conf.set(f"spark.sql.catalog.{CATALOG}.io-impl", "hadoop")
    return warehouse


def test_statements_through_hadoop_file_io(spark: SparkSession, hadoop_warehouse: Path) -> None:
    spark.sql(f"CREATE NAMESPACE {CATALOG}.hns")
    spark.sql(f"CREATE TABLE {CATALOG}.hns.t (id BIGINT, region STRING) PARTITIONED BY (region)")
    spark.sql(f"INSERT INTO {CATALOG}.hns.t VALUES (1, 'eu'), (2, 'us')")
    spark.sql(f"INSERT INTO {CATALOG}.hns.t VALUES (3, 'eu')")
    spark.sql(f"INSERT OVERWRITE {CATALOG}.hns.t PARTITION (region = 'us') SELECT 20")
    rows = spark.sql(f"SELECT id, region FROM {CATALOG}.hns.t ORDER BY id").collect()
    assert [(r.id, r.region) for r in rows] == [(1, "eu"), (3, "eu"), (20, "us")]

    metadata_dir = hadoop_warehouse / "hns" / "t" / "metadata"
    versions = sorted(p.name for p in metadata_dir.glob("v*.metadata.json"))
    assert versions == [f"v{n}.metadata.json" for n in (1, 2, 3, 4)]
    assert (metadata_dir / "version-hint.text").read_text() == "4"
    assert not [p for p in metadata_dir.iterdir() if p.name.startswith(".floe-")]

    spark.sql(f"ALTER TABLE {CATALOG}.hns.t RENAME TO hns.t2")
    assert [r.id for r in spark.sql(f"SELECT id FROM {CATALOG}.hns.t2 ORDER BY id").collect()] == [
        1,
        3,
        20,
    ]
    spark.sql(f"DROP TABLE {CATALOG}.hns.t2")
    assert not (hadoop_warehouse / "hns" / "t2").exists()
    spark.sql(f"DROP NAMESPACE {CATALOG}.hns")


def test_lost_race_is_detected_through_hadoop_rename(
    spark: SparkSession, hadoop_warehouse: Path
) -> None:
    """Two commits from the same base: the no-overwrite rename lets exactly one win."""
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {CATALOG}.race")
    spark.sql(f"CREATE TABLE {CATALOG}.race.t (id BIGINT)")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    io = jvm.io.floe.spark.HadoopFileIO(conf)
    root = floe.warehouse_uri(str(hadoop_warehouse / "race" / "t"))
    first = jvm.io.floe.format.commit.FileSystemTableOperations(io, root, "race.t")
    second = jvm.io.floe.format.commit.FileSystemTableOperations(io, root, "race.t")
    base = first.refresh()
    second.refresh()
    metadata = jvm.io.floe.format.metadata.TableMetadata
    props = jvm.java.util.HashMap()
    props.put("winner", "first")
    first.commit(base, metadata.buildFrom(base).setProperties(props).build())
    props.put("winner", "second")
    with pytest.raises(Exception, match="CommitFailedException"):
        second.commit(
            base,
            metadata.buildFrom(base).setProperties(props).build(),
        )
    assert first.refresh().properties().get("winner") == "first"
