"""Writes Floe refuses up front rather than committing something other than what was asked.

Checked here: with ``write.wap.enabled=true`` and no session ``spark.wap.id`` /
``spark.wap.branch``, every write path (INSERT, INSERT OVERWRITE, metadata-only and row-level
DELETE, UPDATE, MERGE, the DataFrame API) goes to main (with them, writes are staged or go to a
branch: test_branches_tags.py). ``format-version`` 1 is refused at CREATE (Floe cannot
write v1 manifests); a v1 table made by another engine refuses writes with an error saying how to
upgrade it, and takes writes after the upgrade.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from jvm_tables import create_v1_table
from pyspark.errors import AnalysisException

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _metadata(warehouse: Path, namespace: str, table: str = "t") -> dict[str, Any]:
    return inspect.load_table_metadata(f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}")


@pytest.fixture
def wap_table(spark: SparkSession, namespace: str) -> Iterator[str]:
    """floe.<ns>.t (id, p) partitioned by p, write.wap.enabled, two rows; the session's
    spark.wap.id / spark.wap.branch are unset again afterwards."""
    t = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p) "
        "TBLPROPERTIES ('write.wap.enabled' = 'true')"
    )
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW src AS "
        "SELECT * FROM VALUES (1L, 'z'), (3L, 'a') AS s(id, p)"
    )
    try:
        yield t
    finally:
        spark.conf.unset("spark.wap.id")
        spark.conf.unset("spark.wap.branch")


WRITES: dict[str, Callable[[SparkSession, str], object]] = {
    "insert": lambda s, t: s.sql(f"INSERT INTO {t} VALUES (3, 'a')"),
    "insert overwrite": lambda s, t: s.sql(f"INSERT OVERWRITE {t} VALUES (3, 'a')"),
    "dynamic overwrite": lambda s, t: s.sql(f"INSERT OVERWRITE {t} PARTITION (p) SELECT 3, 'a'"),
    "metadata delete": lambda s, t: s.sql(f"DELETE FROM {t} WHERE p = 'a'"),
    "row-level delete": lambda s, t: s.sql(f"DELETE FROM {t} WHERE id = 1"),
    "update": lambda s, t: s.sql(f"UPDATE {t} SET id = 10 WHERE id = 1"),
    "merge": lambda s, t: s.sql(
        f"MERGE INTO {t} x USING src s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    ),
    "merge insert only": lambda s, t: s.sql(
        f"MERGE INTO {t} x USING src s ON x.id = s.id WHEN NOT MATCHED THEN INSERT *"
    ),
    "dataframe append": lambda s, t: (
        s.createDataFrame([(3, "a")], "id BIGINT, p STRING").writeTo(t).append()
    ),
    "dataframe overwritePartitions": lambda s, t: (
        s.createDataFrame([(3, "a")], "id BIGINT, p STRING").writeTo(t).overwritePartitions()
    ),
    "truncate": lambda s, t: s.sql(f"TRUNCATE TABLE {t}"),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_without_a_wap_id_the_same_writes_go_to_main(
    spark: SparkSession, warehouse: Path, namespace: str, wap_table: str, write: str
) -> None:
    before = _metadata(warehouse, namespace)
    WRITES[write](spark, wap_table)
    assert _metadata(warehouse, namespace)["current-snapshot-id"] != before["current-snapshot-id"]


def test_format_version_1_is_refused_at_create(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    with pytest.raises(
        AnalysisException, match="format-version 1: Floe reads format v1 tables but"
    ):
        spark.sql(
            f"CREATE TABLE floe.{namespace}.t (id BIGINT) TBLPROPERTIES ('format-version' = '1')"
        )
    with pytest.raises(AnalysisException, match="format-version 1"):
        spark.sql(
            f"CREATE TABLE floe.{namespace}.t TBLPROPERTIES ('format-version' = '1') "
            "AS SELECT 1 AS id"
        )
    assert not (warehouse / namespace / "t").exists()


def test_a_v1_table_from_another_engine_refuses_writes_until_upgraded(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.model (id BIGINT)")
    create_v1_table(spark, warehouse, namespace, "model", "t")
    t = f"floe.{namespace}.t"
    assert _metadata(warehouse, namespace)["format-version"] == 1
    for statement in (f"INSERT INTO {t} VALUES (1)", f"DELETE FROM {t} WHERE id = 1"):
        with pytest.raises(AnalysisException) as e:
            spark.sql(statement)
        assert "format version 1, which Floe reads but does not write" in str(e.value)
        assert f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version' = '2')" in str(e.value)
    assert _metadata(warehouse, namespace).get("current-snapshot-id") in (None, -1)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('format-version' = '2')")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    assert [r.id for r in spark.table(t).collect()] == [1]
