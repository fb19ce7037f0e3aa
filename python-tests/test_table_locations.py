"""One table per location: a table cannot be created where another table, a namespace or any file
already is, and orphan removal, snapshot expiry and DROP TABLE ... PURGE refuse to run where
another table's metadata is found. SHOW CREATE TABLE prints a statement that runs back under a new
name. Issue 10, point 4: a table created from SHOW CREATE TABLE's output at the original's folder
lost the original's data and metadata to remove_orphan_files.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "floe"
FAR_FUTURE = "TIMESTAMP '2100-01-01 00:00:00'"


def table_dir(warehouse: Path, namespace: str, name: str) -> Path:
    return warehouse / namespace / name


def files_of(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()}


def make_table(spark: SparkSession, t: str, where: str = "") -> None:
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) PARTITIONED BY (p) {where}")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a')")


def error_of(spark: SparkSession, statement: str) -> str:
    with pytest.raises(Exception) as raised:
        spark.sql(statement).collect()
    return str(raised.value)


def show_create(spark: SparkSession, t: str) -> str:
    return str(spark.sql(f"SHOW CREATE TABLE {t}").collect()[0][0])


def test_show_create_table_output_runs_back_under_a_new_name_and_owns_its_folder(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    orig = f"{CATALOG}.{namespace}.orig"
    make_table(spark, orig)
    statement = show_create(spark, orig)
    assert "current-snapshot-id" not in statement
    assert "'format' =" not in statement
    assert "LOCATION" not in statement  # the table lives in its own warehouse folder
    assert "'format-version' = '2'" in statement

    copy = f"{CATALOG}.{namespace}.copy"
    spark.sql(statement.replace(orig, copy))
    assert spark.table(copy).count() == 0
    assert (
        spark.sql(f"DESCRIBE TABLE EXTENDED {copy}")
        .where("col_name = 'Location'")
        .collect()[0][1]
        .endswith(f"/{namespace}/copy")
    )
    # SHOW TBLPROPERTIES still shows the table's state
    keys = {r[0] for r in spark.sql(f"SHOW TBLPROPERTIES {orig}").collect()}
    assert {"current-snapshot-id", "format", "format-version"} <= keys

    before = files_of(table_dir(warehouse, namespace, "orig"))
    spark.sql(
        f"CALL {CATALOG}.system.remove_orphan_files(table => '{namespace}.copy', "
        f"older_than => {FAR_FUTURE}, allow_short_interval => true)"
    ).collect()
    assert files_of(table_dir(warehouse, namespace, "orig")) == before
    assert sorted(r[0] for r in spark.table(orig).collect()) == [1, 2, 3]


def test_show_create_table_of_a_located_table_keeps_its_location(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    external = tmp_path / "ext" / "events"
    t = f"{CATALOG}.{namespace}.located"
    make_table(spark, t, f"LOCATION '{external}'")
    statement = show_create(spark, t)
    assert f"LOCATION 'file://{external}'" in statement
    # run back under a new name, the printed location is refused: it is the original's
    message = error_of(spark, statement.replace(t, f"{CATALOG}.{namespace}.again"))
    assert str(external) in message and "already holds files" in message
    moved = tmp_path / "ext" / "moved"
    spark.sql(
        statement.replace(t, f"{CATALOG}.{namespace}.again").replace(str(external), str(moved))
    )
    assert spark.table(f"{CATALOG}.{namespace}.again").count() == 0


def test_create_at_another_tables_folder_is_refused_naming_the_table(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    orig = f"{CATALOG}.{namespace}.orig"
    make_table(spark, orig)
    folder = table_dir(warehouse, namespace, "orig")
    before = files_of(folder)
    statements = [
        f"CREATE TABLE {CATALOG}.{namespace}.copy (id BIGINT) LOCATION '{folder}'",
        f"CREATE TABLE {CATALOG}.{namespace}.copy LOCATION 'file://{folder}' AS SELECT 1 AS id",
        f"CREATE OR REPLACE TABLE {CATALOG}.{namespace}.copy (id BIGINT) LOCATION '{folder}'",
    ]
    for statement in statements:
        message = error_of(spark, statement)
        assert f"{CATALOG}.{namespace}.copy" in message, statement
        assert str(folder) in message, statement
        assert f"table {namespace}.orig" in message, statement
    assert not spark.catalog.tableExists(f"{CATALOG}.{namespace}.copy")
    assert files_of(folder) == before

    # REPLACE of an existing table onto another table's folder is refused too, and changes nothing
    other = f"{CATALOG}.{namespace}.other"
    spark.sql(f"CREATE TABLE {other} (id BIGINT)")
    spark.sql(f"INSERT INTO {other} VALUES (7)")
    message = error_of(spark, f"REPLACE TABLE {other} (id BIGINT) LOCATION '{folder}'")
    assert str(folder) in message
    assert [r[0] for r in spark.table(other).collect()] == [7]

    # DataFrame writeTo(...).create() goes through the same check
    df = spark.range(3)
    with pytest.raises(Exception, match="already holds the metadata of table"):
        df.writeTo(f"{CATALOG}.{namespace}.viaapi").tableProperty("location", str(folder)).create()
    assert files_of(folder) == before


def test_locations_inside_a_table_or_around_other_tables_are_refused(
    spark: SparkSession, warehouse: Path, namespace: str, tmp_path: Path
) -> None:
    make_table(spark, f"{CATALOG}.{namespace}.orig")
    folder = table_dir(warehouse, namespace, "orig")
    cases = {
        folder / "data" / "nested": "inside",
        warehouse / namespace: "inside the catalog's warehouse",
        warehouse: "contains the catalog's warehouse",
        warehouse.parent: "contains the catalog's warehouse",
    }
    for location, reason in cases.items():
        message = error_of(
            spark, f"CREATE TABLE {CATALOG}.{namespace}.bad (id BIGINT) LOCATION '{location}'"
        )
        assert reason in message and str(location) in message, (location, message)

    # outside the warehouse: inside a located table, or a folder that holds another table
    external = tmp_path / "lake" / "events"
    make_table(spark, f"{CATALOG}.{namespace}.located", f"LOCATION '{external}'")
    for location in (external, external.parent, external / "data"):
        message = error_of(
            spark, f"CREATE TABLE {CATALOG}.{namespace}.bad (id BIGINT) LOCATION '{location}'"
        )
        assert "already holds files" in message, (location, message)

    # a folder with unrelated files of the user's
    own = tmp_path / "mine"
    own.mkdir()
    (own / "notes.txt").write_text("keep me")
    message = error_of(
        spark, f"CREATE TABLE {CATALOG}.{namespace}.bad (id BIGINT) LOCATION '{own}'"
    )
    assert "notes.txt" in message
    assert (own / "notes.txt").read_text() == "keep me"

    # a new or empty folder is fine
    empty = tmp_path / "empty"
    empty.mkdir()
    spark.sql(f"CREATE TABLE {CATALOG}.{namespace}.good (id BIGINT) LOCATION '{empty}'")
    spark.sql(
        f"CREATE TABLE {CATALOG}.{namespace}.fresh (id BIGINT) LOCATION '{tmp_path / 'new' / 'x'}'"
    )
    # and a table may be replaced in place
    spark.sql(f"CREATE OR REPLACE TABLE {CATALOG}.{namespace}.orig (id BIGINT, q STRING)")
    spark.sql(f"REPLACE TABLE {CATALOG}.{namespace}.located (id BIGINT) LOCATION '{external}'")


def share_location(warehouse: Path, namespace: str, spark: SparkSession) -> tuple[str, Path]:
    """Makes table ``copy`` point at table ``orig``'s folder the way older Floe allowed: by editing
    ``copy``'s metadata (the catalog no longer creates such a table)."""
    make_table(spark, f"{CATALOG}.{namespace}.orig")
    spark.sql(f"CREATE TABLE {CATALOG}.{namespace}.copy (id BIGINT, p STRING) PARTITIONED BY (p)")
    copy_dir = table_dir(warehouse, namespace, "copy") / "metadata"
    version = max(copy_dir.glob("v*.metadata.json"), key=lambda p: int(p.name[1:].split(".")[0]))
    metadata = json.loads(version.read_text())
    orig_dir = table_dir(warehouse, namespace, "orig")
    metadata["location"] = f"file://{orig_dir}"
    nxt = copy_dir / f"v{int(version.name[1:].split('.')[0]) + 1}.metadata.json"
    nxt.write_text(json.dumps(metadata))
    (copy_dir / "version-hint.text").write_text(nxt.name[1:].split(".")[0])
    old = time.time() - 10 * 24 * 3600
    for f in files_of(orig_dir):
        os.utime(f, (old, old))
    return metadata["table-uuid"], orig_dir


def test_maintenance_refuses_a_location_holding_another_tables_metadata(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    copy_uuid, orig_dir = share_location(warehouse, namespace, spark)
    before = files_of(orig_dir)
    copy = f"{namespace}.copy"
    spark.sql(f"INSERT INTO {CATALOG}.{copy} VALUES (9, 'z')")
    calls = [
        f"CALL {CATALOG}.system.remove_orphan_files(table => '{copy}')",
        f"CALL {CATALOG}.system.remove_orphan_files(table => '{copy}', older_than => {FAR_FUTURE}, "
        "allow_short_interval => true, dry_run => true)",
        f"CALL {CATALOG}.system.expire_snapshots(table => '{copy}', older_than => {FAR_FUTURE}, "
        "retain_last => 1)",
        f"DROP TABLE {CATALOG}.{copy} PURGE",
    ]
    for call in calls:
        message = error_of(spark, call)
        assert "holds the metadata of another table" in message, (call, message)
        assert copy_uuid in message and str(orig_dir) in message and ".metadata.json" in message, (
            message
        )
    assert before <= files_of(orig_dir)
    assert sorted(r[0] for r in spark.table(f"{CATALOG}.{namespace}.orig").collect()) == [1, 2, 3]
    # DROP TABLE without PURGE removes only copy's own folder
    spark.sql(f"DROP TABLE {CATALOG}.{copy}")
    assert sorted(r[0] for r in spark.table(f"{CATALOG}.{namespace}.orig").collect()) == [1, 2, 3]


def test_show_create_table_of_a_rich_table_runs_back_to_the_same_definition(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    orig = f"{CATALOG}.{namespace}.rich"
    spark.sql(
        f"""CREATE TABLE {orig} (
          id BIGINT NOT NULL COMMENT 'it\\'s the id', name STRING, ts TIMESTAMP, day DATE,
          amount DECIMAL(12, 2), tags ARRAY<STRING>, attrs MAP<STRING, INT>,
          device STRUCT<os: STRING, version: INT>, local TIMESTAMP_NTZ)
        PARTITIONED BY (bucket(4, id), days(ts), truncate(3, name))
        COMMENT 'a \\'quoted\\' comment'
        TBLPROPERTIES ('format-version' = '3', 'write.delete.mode' = 'merge-on-read',
          'write.metadata.previous-versions-max' = '5', 'owner.team' = 'x')"""
    )
    spark.sql(
        f"INSERT INTO {orig} (id, name, ts) VALUES (1, 'abcdef', TIMESTAMP '2024-01-01 10:00:00')"
    )
    copy = f"{CATALOG}.{namespace}.rich_copy"
    spark.sql(show_create(spark, orig).replace(orig, copy))

    def definition(name: str) -> dict[str, object]:
        metadata = json.loads(
            max(
                (table_dir(warehouse, namespace, name) / "metadata").glob("v*.metadata.json"),
                key=lambda p: int(p.name[1:].split(".")[0]),
            ).read_text()
        )
        schema = next(
            s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"]
        )
        spec = next(
            s for s in metadata["partition-specs"] if s["spec-id"] == metadata["default-spec-id"]
        )
        return {
            "fields": schema["fields"],
            "spec": [(f["name"], f["transform"], f["source-id"]) for f in spec["fields"]],
            "properties": metadata["properties"],
            "format-version": metadata["format-version"],
        }

    assert definition("rich_copy") == definition("rich")
    assert "it's the id" in json.dumps(definition("rich"))
    assert show_create(spark, copy) == show_create(spark, orig).replace(orig, copy)
