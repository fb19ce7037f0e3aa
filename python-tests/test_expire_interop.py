"""Floe's expire_snapshots deletes the same files as Iceberg's on two identical copies of a table.

The copies are one table at one location, taken in turn: the table directory is saved, Floe's
``CALL floe.system.expire_snapshots`` runs and the files it removed are recorded, the directory is
restored byte for byte (the metadata's absolute paths stay valid), and the Iceberg runtime's
``CALL iceberg.system.expire_snapshots`` runs with the same arguments. After Floe's expire, the
Iceberg runtime and pyiceberg read the same rows as Floe.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from interop_tables import spark_rows
from row_level_tables import pyiceberg_rows

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from pyspark.sql import SparkSession

MOR = "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read'"
FUTURE = "TIMESTAMP '9999-01-01 00:00:00'"


def _files(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".") and not p.name.endswith(".metadata.json")
        and p.name != "version-hint.text"
    }


def _linear_v2(spark: SparkSession, name: str) -> str:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, p STRING) PARTITIONED BY (p) "
        f"TBLPROPERTIES ({MOR}, 'format-version'='2')"
    )
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'a'), (3, 'b')")
    spark.sql(f"INSERT INTO {name} VALUES (4, 'a'), (5, 'b')")
    spark.sql(f"DELETE FROM {name} WHERE id = 1")
    spark.sql(f"UPDATE {name} SET id = 50 WHERE id = 5")
    spark.sql(f"DELETE FROM {name} WHERE p = 'a'")
    spark.sql(f"INSERT INTO {name} VALUES (6, 'a')")
    return f"older_than => {FUTURE}, retain_last => 2"


def _dvs_v3(spark: SparkSession, name: str) -> str:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, p STRING) PARTITIONED BY (p) "
        f"TBLPROPERTIES ({MOR}, 'format-version'='3')"
    )
    spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b')")
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 3)")  # one Puffin file, DVs of two data files
    spark.sql(f"DELETE FROM {name} WHERE id = 2")  # replaces the DV of partition a's file
    spark.sql(f"INSERT INTO {name} VALUES (5, 'a')")
    spark.sql(f"UPDATE {name} SET id = 40 WHERE id = 4")
    return f"older_than => {FUTURE}, retain_last => 1"


def _tagged(spark: SparkSession, name: str) -> str:
    _linear_v2(spark, name)  # the test tags the second snapshot with the Iceberg runtime
    return f"older_than => {FUTURE}, retain_last => 1"


def _explicit_ids(spark: SparkSession, name: str) -> str:
    _linear_v2(spark, name)  # the test names the third snapshot in snapshot_ids
    return "older_than => TIMESTAMP '1970-01-02 00:00:00'"


SCENARIOS: dict[str, Callable[[SparkSession, str], str]] = {
    "linear_v2": _linear_v2,
    "dvs_v3": _dvs_v3,
    "tagged": _tagged,
    "explicit_ids": _explicit_ids,
}


def _tag_old_snapshot(spark: SparkSession, iceberg_table: str, snapshot_id: int) -> None:
    jvm: Any = spark._jvm
    spark3_util = jvm.org.apache.iceberg.spark.Spark3Util
    table = spark3_util.loadIcebergTable(spark._jsparkSession, iceberg_table)
    table.manageSnapshots().createTag("old", snapshot_id).commit()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_floe_and_iceberg_delete_the_same_files(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, tmp_path: Path,
    scenario: str,
) -> None:
    name = f"floe.{namespace}.t"
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"
    root = local_path(location)
    args = SCENARIOS[scenario](spark, name)
    snapshots = inspect.load_table_metadata(location)["snapshots"]
    if scenario == "tagged":
        _tag_old_snapshot(spark, f"{iceberg}.{namespace}.t", snapshots[1]["snapshot-id"])
    if scenario == "explicit_ids":
        args += f", snapshot_ids => array({snapshots[2]['snapshot-id']}L)"
    rows = spark_rows(spark, name)
    saved = tmp_path / "copy"
    shutil.copytree(root, saved)
    before = _files(root)

    floe_counts = spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', {args})"
    ).collect()[0].asDict()
    floe_deleted = before - _files(root)
    floe_kept = sorted(s["snapshot-id"] for s in inspect.load_table_metadata(location)["snapshots"])
    assert floe_deleted, "the scenario must expire something"
    assert spark_rows(spark, name) == rows
    assert spark_rows(spark, f"{iceberg}.{namespace}.t") == rows
    assert pyiceberg_rows(location, ("id", "p")) == sorted(
        ((r[0], r[1]) for r in rows), key=repr)

    shutil.rmtree(root)
    shutil.copytree(saved, root)
    assert _files(root) == before
    iceberg_counts = spark.sql(
        f"CALL {iceberg}.system.expire_snapshots(table => '{namespace}.t', {args})"
    ).collect()[0].asDict()
    iceberg_deleted = before - _files(root)
    iceberg_metadata = inspect.load_table_metadata(location)
    iceberg_kept = sorted(s["snapshot-id"] for s in iceberg_metadata["snapshots"])

    assert floe_kept == iceberg_kept
    assert sorted(floe_deleted) == sorted(iceberg_deleted)
    assert floe_counts == iceberg_counts
