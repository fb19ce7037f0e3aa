"""R6 (goal G8): 500 seeded hostile names (200 unless FLOE_TEST_SCALE=full; every listed attack
case is among the first 135) as namespaces, tables, columns and indexes, through Spark
SQL and the DataFrame API, with a tripwire outside the warehouse.

Every name is either refused with an error naming it and the rule (FLOE_INVALID_IDENTIFIER from
CatalogErrors, or Spark's own error naming a duplicate column), or confined to the warehouse and
round-tripped: created, written, read back, renamed and dropped. The tripwire (every path and
content hash below the warehouse's parent, and a planted decoy) must not change. See
docs/reliability.md, R6.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import reliability_figures
from conftest import scaled
from reliability_hostile_names import (
    Tripwire,
    expected_rejection,
    hostile_names,
    shown,
    sql_quote,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAMES = hostile_names(scaled(500, 200))
KINDS = ("namespace", "table", "column", "index")
BY_KIND = {kind: NAMES[i :: len(KINDS)] for i, kind in enumerate(KINDS)}


def _try(spark: SparkSession, sql: str) -> str | None:
    """None when ``sql`` succeeded, else the error's text."""
    try:
        spark.sql(sql).collect()
    except Exception as e:  # the caller checks the message
        return str(e)
    return None


def _check_refusal(kind: str, name: str, message: str) -> None:
    rule = expected_rejection(name)
    assert rule is not None, f"{kind} name {name!r} must be accepted, got: {message}"
    assert "FLOE_INVALID_IDENTIFIER" in message, (kind, name, message)
    assert f"'{shown(name)}" in message and rule in message, (kind, name, rule, message)


def _inside(path: Path, root: Path) -> bool:
    return root.resolve() in path.resolve().parents


@pytest.fixture(scope="module")
def tripwire(warehouse: Path) -> Tripwire:
    return Tripwire(warehouse.parent, warehouse)


@pytest.fixture(scope="module")
def figures() -> Iterator[dict[str, int | float]]:
    counts: dict[str, int | float] = {"names": len(NAMES)}
    yield counts
    reliability_figures.record("R6", **counts)


def test_hostile_namespace_names(
    spark: SparkSession, warehouse: Path, tripwire: Tripwire, figures: dict[str, int | float]
) -> None:
    """At the catalog root, where a ``..`` that escaped would land in the tripwire's folder."""
    start = time.monotonic()
    rejected = confined = 0
    for name in BY_KIND["namespace"]:
        q = sql_quote(name)
        error = _try(spark, f"CREATE NAMESPACE floe.{q}")
        if error is not None:
            _check_refusal("namespace", name, error)
            rejected += 1
            continue
        assert expected_rejection(name) is None, (name, "must be refused")
        folder = warehouse / name
        assert folder.is_dir() and _inside(folder, warehouse), name
        if confined % 3 == 0:  # a table inside: its folder is inside the namespace's
            assert _try(spark, f"CREATE TABLE floe.{q}.t (id INT)") is None, name
            assert (folder / "t" / "metadata").is_dir(), name
            names = [r[1] for r in spark.sql(f"SHOW TABLES IN floe.{q}").collect()]
            assert names == ["t"], (name, names)
            spark.sql(f"DROP TABLE floe.{q}.t PURGE")
        spark.sql(f"DROP NAMESPACE floe.{q}")
        assert not folder.exists(), name
        confined += 1
    assert tripwire.changes() == []
    figures.update(
        namespace_names=len(BY_KIND["namespace"]),
        namespace_rejected=rejected,
        namespace_confined_round_trips=confined,
        namespace_seconds=round(time.monotonic() - start, 1),
    )


def test_hostile_table_names_round_trip_or_are_refused(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    tripwire: Tripwire,
    figures: dict[str, int | float],
) -> None:
    """CREATE TABLE / writeTo().create() / saveAsTable, INSERT, SELECT, RENAME TO, DROP PURGE."""
    start = time.monotonic()
    names = BY_KIND["table"]
    accepted_targets = [
        n for n in BY_KIND["namespace"] if expected_rejection(n + " r") is None and len(n) < 200
    ]
    refused_targets = [n for n in BY_KIND["namespace"] if expected_rejection(n) is not None]
    ns_folder = warehouse / namespace
    live: dict[str, int] = {}  # accepted table name -> its row's id
    rejected = 0
    for i, name in enumerate(names):
        table = f"floe.{namespace}.{sql_quote(name)}"
        try:
            if i % 4 == 1:
                spark.createDataFrame([(i, name)], "id INT, name STRING").writeTo(table).create()
            elif i % 4 == 2:
                df = spark.createDataFrame([(i, name)], "id INT, name STRING")
                df.write.format("floe").saveAsTable(table)
            else:
                spark.sql(f"CREATE TABLE {table} (id INT, name STRING)")
                if expected_rejection(name) is None:
                    spark.sql(f"INSERT INTO {table} VALUES ({i}, '{_sql_string(name)}')")
        except Exception as e:
            _check_refusal("table", name, str(e))
            rejected += 1
            continue
        assert expected_rejection(name) is None, (name, "must be refused")
        assert (ns_folder / name / "metadata").is_dir(), name
        live[name] = i

    # renames: to a refused name (nothing changes), then to an accepted hostile name
    renamed: dict[str, int] = {}
    for k, (name, i) in enumerate(sorted(live.items())):
        old = f"floe.{namespace}.{sql_quote(name)}"
        bad = refused_targets[k % len(refused_targets)]
        error = _try(spark, f"ALTER TABLE {old} RENAME TO floe.{namespace}.{sql_quote(bad)}")
        assert error is not None, bad
        _check_refusal("table", bad, error)
        target = accepted_targets[k % len(accepted_targets)] + f" r{k}"
        assert (
            _try(spark, f"ALTER TABLE {old} RENAME TO floe.{namespace}.{sql_quote(target)}") is None
        )
        assert not (ns_folder / name).exists() and (ns_folder / target / "metadata").is_dir()
        renamed[target] = i
    # one query reads every table back under its new name
    union = " UNION ALL ".join(
        f"SELECT id, name FROM floe.{namespace}.{sql_quote(n)}" for n in renamed
    )
    rows = {(r.id, r.name) for r in spark.sql(union).collect()}
    assert rows == {(i, n) for n, i in live.items()}

    for name in renamed:
        spark.sql(f"DROP TABLE floe.{namespace}.{sql_quote(name)} PURGE")
    assert sorted(p.name for p in ns_folder.iterdir()) == []
    assert spark.sql(f"SHOW TABLES IN floe.{namespace}").collect() == []
    assert tripwire.changes() == []
    figures.update(
        table_names=len(names),
        table_rejected=rejected,
        table_confined_round_trips=len(live),
        rename_refused=len(live),
        rename_round_trips=len(renamed),
        table_seconds=round(time.monotonic() - start, 1),
    )


def _sql_string(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


def test_hostile_column_names_and_partition_folders(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    tripwire: Tripwire,
    figures: dict[str, int | float],
) -> None:
    """ALTER TABLE ADD COLUMN with each name; some become identity partition fields, so the name
    and a hostile value become a data folder (URL-escaped, under the table's data/)."""
    start = time.monotonic()
    table = f"floe.{namespace}.cols"
    spark.sql(f"CREATE TABLE {table} (id INT)")
    added: list[str] = []
    rejected = 0
    for name in BY_KIND["column"]:
        error = _try(spark, f"ALTER TABLE {table} ADD COLUMN {sql_quote(name)} STRING")
        if error is None:
            added.append(name)
            continue
        # the only refusal: a name equal to an earlier one but for case (Spark compares names
        # case-insensitively); the message names the column
        assert any(a.lower() == name.lower() for a in added), (name, error)
        assert "FIELD_ALREADY_EXISTS" in error or "already exists" in error, (name, error)
        rejected += 1
    partitioned = [n for n in added if ".." in n or "/" in n or "%" in n or len(n) > 255][:6]
    assert len(partitioned) >= 4, partitioned
    for name in partitioned:
        spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD {sql_quote(name)}")
    values = ", ".join(["1", *(f"'{_sql_string(n)}'" for n in added)])
    spark.sql(f"INSERT INTO {table} VALUES ({values})")
    row = spark.table(table).collect()[0]
    assert list(row) == [1, *added]
    files = [
        Path(r[0].removeprefix("file:"))
        for r in spark.sql(f"SELECT file_path FROM {table}.files").collect()
    ]
    data = warehouse / namespace / "cols" / "data"
    assert files and all(_inside(f, data) and f.is_file() for f in files), files
    assert len(files[0].relative_to(data).parts) == len(partitioned) + 1
    spark.sql(f"DROP TABLE {table} PURGE")
    assert not (warehouse / namespace / "cols").exists()
    assert tripwire.changes() == []
    figures.update(
        column_names=len(BY_KIND["column"]),
        column_rejected=rejected,
        column_confined_round_trips=len(added),
        partition_fields_from_hostile_columns=len(partitioned),
        column_seconds=round(time.monotonic() - start, 1),
    )


def test_hostile_index_names(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    tripwire: Tripwire,
    figures: dict[str, int | float],
) -> None:
    """CREATE INDEX with each name; an INSERT then writes every index's segment, in a folder named
    after the index (sanitized) under the table's metadata/_floe_indexes/."""
    start = time.monotonic()
    table = f"floe.{namespace}.idx"
    spark.sql(f"CREATE TABLE {table} (id INT, s STRING)")
    created: list[str] = []
    rejected = 0
    for name in BY_KIND["index"]:
        error = _try(spark, f"CREATE INDEX {sql_quote(name)} ON {table} (id)")
        if error is None:
            created.append(name)
            continue
        assert shown(name) in error or name in error, (name, error)
        rejected += 1
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    listed = [r.name for r in spark.sql(f"SELECT name FROM {table}.indexes").collect()]
    assert sorted(listed) == sorted(created)
    assert spark.sql(f"SELECT s FROM {table} WHERE id = 2").collect()[0][0] == "b"
    indexes = warehouse / namespace / "idx" / "metadata" / "_floe_indexes"
    for path in indexes.rglob("*"):
        assert _inside(path, indexes) and len(path.relative_to(indexes).parts) <= 2, path
    for name in created:
        spark.sql(f"DROP INDEX {sql_quote(name)} ON {table}")
    assert spark.sql(f"SELECT name FROM {table}.indexes").collect() == []
    spark.sql(f"DROP TABLE {table} PURGE")
    assert tripwire.changes() == []
    figures.update(
        index_names=len(BY_KIND["index"]),
        index_rejected=rejected,
        index_confined_round_trips=len(created),
        index_seconds=round(time.monotonic() - start, 1),
    )


def test_paths_are_not_table_names(
    spark: SparkSession, warehouse: Path, tripwire: Tripwire, figures: dict[str, int | float]
) -> None:
    """format("floe").load/save take table names only: a path, even one pointing into or out of
    the warehouse, is refused and nothing is read or written there."""
    paths = [
        str(warehouse / ".." / "r6-tripwire"),
        str(warehouse.parent / "r6-tripwire" / "metadata"),
        f"file://{warehouse}/../r6-escaped",
        str(warehouse / "%2e%2e" / "x"),
    ]
    for path in paths:
        with pytest.raises(Exception, match="Floe does not read or write tables by path"):
            spark.read.format("floe").load(path).collect()
        with pytest.raises(Exception, match="Floe does not read or write tables by path"):
            spark.range(1).write.format("floe").mode("append").save(path)
    assert tripwire.changes() == []
    figures.update(path_reads_refused=len(paths), path_writes_refused=len(paths), outside_changes=0)


def test_partition_columns_whose_names_hold_dots(spark: SparkSession, namespace: str) -> None:
    """Regression: Floe gave Spark a partition column's dotted full name to re-parse, so a column
    named `v1.2` became the nested reference v1.2 and one named `..` an empty statement
    (PARSE_EMPTY_STATEMENT on every INSERT, SHOW CREATE TABLE and DESCRIBE)."""
    table = f"floe.{namespace}.dotted"
    spark.sql(
        f"CREATE TABLE {table} (id INT, `v1.2` INT, `..` STRING, `s.t` STRUCT<`a.b`: INT>) "
        "PARTITIONED BY (`v1.2`, `..`)"
    )
    spark.sql(f"INSERT INTO {table} VALUES (1, 2, '../x', named_struct('a.b', 3))")
    spark.sql(f"INSERT INTO {table} VALUES (4, 5, '%2e%2e', named_struct('a.b', 6))")
    assert spark.sql(f"SELECT id FROM {table} WHERE `v1.2` = 5").collect()[0][0] == 4
    create = spark.sql(f"SHOW CREATE TABLE {table}").collect()[0][0]
    assert "PARTITIONED BY (`v1.2`, `..`)" in create, create
    described = [r[0] for r in spark.sql(f"DESCRIBE TABLE {table}").collect()]
    assert "`v1.2`" in described and "`..`" in described, described
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{namespace}.dotted', strategy => 'sort', "
        "sort_order => '`v1.2` DESC')"
    )
    assert [r.id for r in spark.table(table).orderBy("id").collect()] == [1, 4]


def test_index_on_a_table_whose_name_holds_a_dot(spark: SparkSession, namespace: str) -> None:
    """Regression: CREATE INDEX re-read the table by its name split at every dot, so a table named
    `v1.2` (a valid name) was looked up as floe.ns.v1.2 and not found."""
    table = f"floe.{namespace}.`v1.2`"
    spark.sql(f"CREATE TABLE {table} (id INT, s STRING)")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"CREATE INDEX by_id ON {table} (id)")
    row = spark.sql(f"SELECT name, covered_files FROM {table}.indexes").collect()[0]
    files = spark.sql(f"SELECT count(*) FROM {table}.files").collect()[0][0]
    assert (row.name, row.covered_files) == ("by_id", files)
    assert spark.sql(f"SELECT s FROM {table} WHERE id = 2").collect()[0][0] == "b"
    spark.sql(f"DROP INDEX by_id ON {table}")
