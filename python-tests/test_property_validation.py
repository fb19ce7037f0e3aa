"""Values of known table properties are checked by the statement that sets them.

Checked here: CREATE TABLE ... TBLPROPERTIES, CREATE TABLE AS SELECT, ALTER TABLE ... SET
TBLPROPERTIES and the DataFrame writer's ``tableProperty`` refuse a value of the wrong type or out
of range with an error naming the table, the key, the value and the values accepted, and commit
nothing (no table is created, the properties and snapshot stay as they were); valid values of every
kind (booleans, numbers, modes, codecs, metrics modes, per-column keys) and keys of the user's own
are accepted; a bad value stored before this check fails a write up front, naming the property.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from jvm_tables import table_ops
from pyspark.errors import AnalysisException

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _exists(warehouse: Path, namespace: str, table: str) -> bool:
    return (warehouse / namespace / table).exists()


BAD_VALUES = [
    ("write.target-file-size-bytes", "abc", "a whole number >= 1"),
    ("write.target-file-size-bytes", "-5", "a whole number >= 1"),
    (
        "write.parquet.compression-codec",
        "brotli",
        "one of zstd, snappy, gzip, lz4, uncompressed, none",
    ),
    ("write.delete.mode", "merge_on_read", "one of copy-on-write, merge-on-read"),
    ("write.merge.isolation-level", "read-committed", "one of serializable, snapshot"),
    ("write.distribution-mode", "sort", "one of none, hash, range"),
    (
        "write.metadata.metrics.default",
        "truncate(0)",
        "none, counts, truncate(N) with N > 0, or full",
    ),
    ("write.metadata.metrics.column.id", "bounds", "none, counts, truncate(N) with N > 0, or full"),
    ("gc.enabled", "yes", "true or false"),
    ("commit.retry.num-retries", "-1", "a whole number >= 0"),
    ("history.expire.min-snapshots-to-keep", "0", "a whole number >= 1"),
    ("write.parquet.compression-level", "99", "a whole number from -131072 to 22"),
    ("write.format.default", "orc", "one of parquet"),
]


@pytest.mark.parametrize(("key", "value", "accepted"), BAD_VALUES)
def test_create_table_refuses_a_bad_value_and_creates_nothing(
    spark: SparkSession, warehouse: Path, namespace: str, key: str, value: str, accepted: str
) -> None:
    with pytest.raises(AnalysisException) as e:
        spark.sql(
            f"CREATE TABLE floe.{namespace}.t (id BIGINT) TBLPROPERTIES ('{key}' = '{value}')"
        )
    message = str(e.value)
    assert (
        f"Invalid value '{value}' for table property {key} of table floe.{namespace}.t" in message
    )
    assert f"expected {accepted}" in message
    assert not _exists(warehouse, namespace, "t")
    assert spark.sql(f"SHOW TABLES IN floe.{namespace}").count() == 0


def test_ctas_refuses_a_bad_value_and_writes_nothing(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    with pytest.raises(AnalysisException, match=r"write\.target-file-size-bytes.*expected a whole"):
        spark.sql(
            f"CREATE TABLE floe.{namespace}.t TBLPROPERTIES ('write.target-file-size-bytes'='abc') "
            "AS SELECT id FROM range(10)"
        )
    assert not _exists(warehouse, namespace, "t")


def test_dataframe_writer_table_property_is_checked(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    df = spark.range(5)
    with pytest.raises(AnalysisException, match=r"'brotli' for table property write\.parquet"):
        df.writeTo(f"floe.{namespace}.t").tableProperty(
            "write.parquet.compression-codec", "brotli"
        ).create()
    assert not _exists(warehouse, namespace, "t")


def test_alter_refuses_a_bad_value_and_keeps_the_table_as_it_was(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT) TBLPROPERTIES ('write.target-file-size-bytes'='1048576')"
    )
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    before = inspect.load_table_metadata(_location(warehouse, namespace, "t"))
    for key, value, accepted in BAD_VALUES:
        with pytest.raises(AnalysisException) as e:
            spark.sql(
                f"ALTER TABLE {t} SET TBLPROPERTIES ('owner.team' = 'x', '{key}' = '{value}')"
            )
        assert f"Invalid value '{value}' for table property {key} of table {namespace}.t" in str(
            e.value
        )
        assert f"expected {accepted}" in str(e.value)
    after = inspect.load_table_metadata(_location(warehouse, namespace, "t"))
    assert after["properties"] == before["properties"]
    assert after["current-snapshot-id"] == before["current-snapshot-id"]
    assert after["last-updated-ms"] == before["last-updated-ms"]
    spark.sql(f"INSERT INTO {t} VALUES (2)")
    assert sorted(r.id for r in spark.table(t).collect()) == [1, 2]


def test_valid_values_of_every_kind_and_custom_keys_are_accepted(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"floe.{namespace}.t"
    props = {
        "write.target-file-size-bytes": "1048576",
        "write.parquet.compression-codec": "SNAPPY",
        "write.delete.mode": "merge-on-read",
        "write.update.isolation-level": "snapshot",
        "write.distribution-mode": "none",
        "write.metadata.metrics.default": "counts",
        "write.metadata.metrics.column.s": "truncate(8)",
        "gc.enabled": "FALSE",
        "commit.retry.num-retries": "0",
        "read.split.target-size": "64m",
        "owner.team": "sales",
        "my.own.size": "-5",
    }
    listed = ", ".join(f"'{k}' = '{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {t} (id BIGINT, s STRING) TBLPROPERTIES ({listed})")
    spark.sql(
        f"ALTER TABLE {t} SET TBLPROPERTIES "
        "('write.metadata.metrics.default' = 'full', 'x.y' = 'abc')"
    )
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a')")
    stored = inspect.load_table_metadata(_location(warehouse, namespace, "t"))["properties"]
    assert stored["my.own.size"] == "-5"
    assert stored["x.y"] == "abc"
    assert stored["write.metadata.metrics.default"] == "full"
    assert spark.table(t).count() == 1


def test_a_bad_value_stored_earlier_fails_the_write_up_front(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """A value stored before values were checked (or by another engine) fails the write on the
    driver, naming the property, instead of a NumberFormatException in a task."""
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT)")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    ops = table_ops(spark, warehouse, namespace, "t")
    base = ops.refresh()
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    props = jvm.java.util.HashMap()
    props.put("write.target-file-size-bytes", "abc")
    updated = jvm.io.floe.format.metadata.TableMetadata.buildFrom(base).setProperties(props).build()
    ops.commit(base, updated)
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"INSERT INTO {t} VALUES (2)")
    message = str(e.value)
    assert "write.target-file-size-bytes is 'abc'" in message
    assert "NumberFormatException" not in message
    spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('write.target-file-size-bytes')")
    spark.sql(f"INSERT INTO {t} VALUES (2)")
    assert spark.table(t).count() == 2


@pytest.mark.parametrize("codec", ["zstd", "snappy", "gzip", "lz4", "uncompressed", "none"])
def test_every_accepted_parquet_codec_writes(
    spark: SparkSession, namespace: str, codec: str
) -> None:
    """The codecs the check accepts are exactly ones the writer can use (brotli and lzo, which
    need codecs Spark does not ship, are refused)."""
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT) "
        f"TBLPROPERTIES ('write.parquet.compression-codec' = '{codec}')"
    )
    spark.sql(f"INSERT INTO {t} SELECT id FROM range(100)")
    assert spark.table(t).count() == 100
