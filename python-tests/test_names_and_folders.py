"""Names become folders: a table and a namespace never share one, hostile names never escape the
warehouse, DROP deletes only a table's own folders, register_table reads only metadata files."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import scaled

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _error(spark: SparkSession, sql: str) -> str:
    with pytest.raises(Exception) as err:
        spark.sql(sql).collect()
    return str(err.value)


def test_table_over_namespace_is_refused_and_drop_keeps_the_namespace(
    spark: SparkSession, namespace: str
) -> None:
    spark.sql(f"CREATE NAMESPACE floe.{namespace}.sub")
    spark.sql(f"CREATE TABLE floe.{namespace}.sub.keep (id INT)")
    spark.sql(f"INSERT INTO floe.{namespace}.sub.keep VALUES (1)")
    for create in (
        f"CREATE TABLE floe.{namespace}.sub (id INT)",
        f"CREATE TABLE floe.{namespace}.sub AS SELECT 1 AS id",
        f"CREATE OR REPLACE TABLE floe.{namespace}.sub (id INT)",
    ):
        message = _error(spark, create)
        assert f"namespace {namespace}.sub" in message and "cannot share a folder" in message, (
            message
        )
    spark.range(3).writeTo(f"floe.{namespace}.other").create()
    with pytest.raises(Exception, match="cannot share a folder"):
        spark.range(3).writeTo(f"floe.{namespace}.sub").create()
    assert spark.sql(f"SELECT * FROM floe.{namespace}.sub.keep").collect()[0][0] == 1
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN floe.{namespace}.sub").collect()] == ["keep"]
    # and the reverse: a namespace cannot take a table's folder
    message = _error(spark, f"CREATE NAMESPACE floe.{namespace}.other")
    assert f"table {namespace}.other exists" in message, message
    assert spark.table(f"floe.{namespace}.other").count() == 3


def test_table_over_namespace_at_the_catalog_root(spark: SparkSession, warehouse: Path) -> None:
    spark.sql("CREATE NAMESPACE floe.rootns_clash")
    spark.sql("CREATE TABLE floe.rootns_clash.t (id INT)")
    message = _error(spark, "CREATE TABLE floe.rootns_clash (id INT)")
    assert "cannot share a folder" in message, message
    assert [r[1] for r in spark.sql("SHOW TABLES IN floe.rootns_clash").collect()] == ["t"]
    assert (warehouse / "rootns_clash" / "t" / "metadata").is_dir()


def test_drop_table_deletes_only_its_own_folders(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """A table folder that also holds a namespace (as older versions allowed) loses only the
    table's metadata/ and data/ on DROP ... PURGE."""
    spark.sql(f"CREATE NAMESPACE floe.{namespace}.shared")
    spark.sql(f"CREATE TABLE floe.{namespace}.shared.keep (id INT)")
    spark.sql(f"INSERT INTO floe.{namespace}.shared.keep VALUES (1)")
    # what an older Floe allowed: table `shared` in the folder of namespace `shared`
    spark.sql(f"CREATE TABLE floe.{namespace}.made (id INT)")
    folder = warehouse / namespace / "shared"
    (warehouse / namespace / "made" / "metadata").rename(folder / "metadata")
    (folder / "data").mkdir()
    (folder / "data" / "stray.parquet").write_bytes(b"x")
    spark.sql(f"DROP TABLE floe.{namespace}.shared PURGE")
    assert not (folder / "metadata").exists() and not (folder / "data").exists()
    assert (folder / "keep" / "metadata").is_dir(), "the namespace's table must survive"
    assert spark.sql(f"SELECT id FROM floe.{namespace}.shared.keep").collect()[0][0] == 1


def test_drop_of_a_plain_table_removes_its_folder(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.t (id INT)")
    spark.sql(f"INSERT INTO floe.{namespace}.t VALUES (1)")
    spark.sql(f"DROP TABLE floe.{namespace}.t")
    assert not (warehouse / namespace / "t").exists()
    assert spark.sql(f"SHOW NAMESPACES IN floe.{namespace}").collect() == []


_FRAGMENTS = [
    "%2E", "%2e", "%2F", "%2f", "%5C", "%20", "%25", "%", "..", ".", "/", "\\", ":", " ", "?", "#",
    "*", "[", "]", "{", "}", "'", '"', "`", "~", "\t", "\n", "\x00", "\u202e", "\u200b", "\ufeff",
    "\U0001f600", "é", "表", "ß", "Å", "ä", "नमस्ते", "a", "b", "z9", "_", "-", "$", "escaped",
    "file:", "hdfs://x/", "../..", "./", "~root", "metadata", "data",
]  # fmt: skip


def _hostile_names(count: int, seed: int = 20261125) -> list[str]:
    rng = random.Random(seed)
    names = {
        "%2E%2E",
        "%2E",
        "%2F",
        "%2E%2E%2F%2E%2E%2Fescaped",
        "a%2Fb",
        "x%20y",
        "x y",
        "café",
        "表",
        "..",
        ".",
        "a/b",
        "nämlich",
        "$ok-name_1",
        "v1.2",
        "ok ok",
    }
    while len(names) < count:
        names.add("".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 5))))
    return sorted(names)


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_hostile_names_stay_inside_the_warehouse(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """500 generated names (200 unless FLOE_TEST_SCALE=full): each one is refused with a message
    naming it, or works end to end inside its namespace's folder; nothing outside the warehouse
    appears, changes or goes."""
    outside = warehouse.parent
    tripwire = outside / f"tripwire-{namespace}"
    tripwire.mkdir()
    (tripwire / "keep.txt").write_text("must survive")
    before_outside = {p.name for p in outside.iterdir()}
    spark.sql(f"CREATE TABLE floe.{namespace}.sentinel (id INT)")
    spark.sql(f"INSERT INTO floe.{namespace}.sentinel VALUES (42)")

    accepted: list[str] = []
    for name in _hostile_names(scaled(500, 200)):
        try:
            spark.sql(f"CREATE TABLE floe.{namespace}.{_q(name)} (id INT)")
        except Exception as e:  # refused: the message must say what is wrong
            message = str(e)
            assert (
                "Invalid" in message or "PARSE_SYNTAX_ERROR" in message or "INVALID" in message
            ), (
                name,
                message,
            )
            continue
        accepted.append(name)
        folder = warehouse / namespace / name
        assert (folder / "metadata").is_dir(), (name, sorted(_tree(warehouse / namespace)))
        spark.sql(f"INSERT INTO floe.{namespace}.{_q(name)} VALUES (1)")
        assert spark.sql(f"SELECT count(*) FROM floe.{namespace}.{_q(name)}").collect()[0][0] == 1
        spark.sql(f"DROP TABLE floe.{namespace}.{_q(name)} PURGE")
        assert not folder.exists(), name
        assert spark.sql(f"SELECT id FROM floe.{namespace}.sentinel").collect()[0][0] == 42, name

    assert len(accepted) >= 10, accepted  # unicode letters, spaces and dots inside names work
    for name in ("café", "表", "x y", "v1.2"):
        assert name in accepted
    assert {p.name for p in outside.iterdir()} == before_outside
    assert (tripwire / "keep.txt").read_text() == "must survive"
    assert [r[1] for r in spark.sql(f"SHOW TABLES IN floe.{namespace}").collect()] == ["sentinel"]
    spark.sql("SHOW NAMESPACES IN floe").collect()


def test_hostile_namespace_names(spark: SparkSession, warehouse: Path) -> None:
    before = {p.name for p in warehouse.parent.iterdir()}
    for name in _hostile_names(120, seed=7):
        try:
            spark.sql(f"CREATE NAMESPACE floe.{_q(name)}")
        except Exception as e:
            assert "Invalid" in str(e) or "INVALID" in str(e) or "already exists" in str(e), (
                name,
                str(e),
            )
            continue
        assert (warehouse / name).is_dir(), name
        spark.sql(f"DROP NAMESPACE floe.{_q(name)}")
    assert {p.name for p in warehouse.parent.iterdir()} == before
    spark.sql("SHOW NAMESPACES IN floe").collect()


def test_percent_names_are_refused_and_nothing_is_created(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    spark.sql(f"CREATE TABLE floe.{namespace}.t (id INT)")
    for name in ("%2E%2E", "%2E%2E%2F%2E%2E%2Fescaped", "a%2Fb", "x%20y"):
        message = _error(spark, f"CREATE TABLE floe.{namespace}.`{name}` (id INT)")
        assert f"Invalid table name '{name}'" in message and "'%' is not allowed" in message, (
            message
        )
        _error(spark, f"DROP TABLE floe.{namespace}.`{name}` PURGE")
    assert not (warehouse.parent / "escaped").exists()
    assert sorted(p.name for p in (warehouse / namespace).iterdir()) == ["t"]
    assert spark.table(f"floe.{namespace}.t").count() == 0


def test_register_table_reads_only_metadata_files(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    secret = tmp_path / "hostname"
    secret.write_text("vm-secret-contents\n")
    fake = tmp_path / "x" / "metadata" / "v1.metadata.json"
    fake.parent.mkdir(parents=True)
    fake.write_text("vm-secret-contents\n")
    for path in (str(secret), "/etc/hostname", str(fake), f"file:{fake}"):
        message = _error(spark, f"CALL floe.system.register_table('{namespace}.x', '{path}')")
        assert "secret" not in message and "Unrecognized token" not in message, message
        assert "metadata" in message, message
    assert "expected the location of a table's metadata file" in _error(
        spark, f"CALL floe.system.register_table('{namespace}.x', '/etc/hostname')"
    )
    assert spark.sql(f"SHOW TABLES IN floe.{namespace}").collect() == []
