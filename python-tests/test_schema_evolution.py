"""Schema evolution through SQL ALTER TABLE: ADD COLUMN(S) (nested too, FIRST/AFTER), RENAME
COLUMN, DROP COLUMN, ALTER COLUMN TYPE (the spec's promotions), DROP NOT NULL, comments, positions.

Checked here: each ALTER commits one metadata version with a new schema (ids above the previous
last-column-id, never reused) and no snapshot; data written before and after reads through field
ids (added columns are NULL in old files, renamed columns keep their values, a dropped then re-added
name never shows the old values, promoted columns read old narrow files and prune with their narrow
bounds); refused changes say why and commit nothing. Interop: pyiceberg and Apache Iceberg's Spark
runtime read evolved Floe tables with the same rows, and Floe reads a table Iceberg evolved.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import scan_report

import floe
from floe import inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# --- helpers -----------------------------------------------------------------------------------


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _current_schema(metadata: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = next(
        s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"]
    )
    return schema


def _ids(schema: dict[str, Any]) -> dict[str, int]:
    """Full dotted column names (list elements as ``.element``, map parts as ``.key``/``.value``)
    to field ids, from a schema's JSON."""
    out: dict[str, int] = {}

    def visit(type_: Any, name: str) -> None:
        if not isinstance(type_, dict):
            return
        if type_["type"] == "struct":
            for f in type_["fields"]:
                out[f"{name}{f['name']}"] = f["id"]
                visit(f["type"], f"{name}{f['name']}.")
        elif type_["type"] == "list":
            out[f"{name}element"] = type_["element-id"]
            visit(type_["element"], f"{name}element.")
        elif type_["type"] == "map":
            out[f"{name}key"] = type_["key-id"]
            out[f"{name}value"] = type_["value-id"]
            visit(type_["key"], f"{name}key.")
            visit(type_["value"], f"{name}value.")

    visit(schema, "")
    return out


def _fields(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Top-level fields of a schema's JSON by name."""
    return {f["name"]: f for f in schema["fields"]}


def _version(location: str) -> int:
    name = inspect.metadata_file(location).name
    match = re.match(r"v(\d+)\.", name)
    assert match, name
    return int(match.group(1))


def _state(location: str) -> tuple[Any, ...]:
    """What a refused ALTER must leave unchanged: metadata files, version, snapshot, schemas."""
    metadata = inspect.load_table_metadata(location)
    files = sorted(p.name for p in (local_path(location) / "metadata").iterdir())
    return (
        files,
        _version(location),
        metadata.get("current-snapshot-id"),
        metadata["current-schema-id"],
        metadata["last-column-id"],
        json.dumps(metadata["schemas"], sort_keys=True),
        json.dumps(metadata["properties"], sort_keys=True),
    )


def _rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(sql).collect()]

def _files_read(spark: SparkSession, table: str, sql: str) -> tuple[list[tuple[Any, ...]], int]:
    """The rows of a query and the number of data files its scan kept after pruning."""
    rows = _rows(spark, sql)
    return rows, scan_report(spark, table)["result-data-files"]


def _alter(spark: SparkSession, location: str, statement: str) -> dict[str, Any]:
    """Run one ALTER TABLE; check it committed exactly one metadata version with a new current
    schema and no snapshot; return the new metadata."""
    before = inspect.load_table_metadata(location)
    version = _version(location)
    spark.sql(statement)
    after = inspect.load_table_metadata(location)
    assert _version(location) == version + 1, statement
    assert after.get("current-snapshot-id") == before.get("current-snapshot-id"), statement
    assert after["snapshots"] == before["snapshots"], statement
    new_schema_id = max(s["schema-id"] for s in before["schemas"]) + 1
    assert after["current-schema-id"] == new_schema_id, statement
    assert [s["schema-id"] for s in after["schemas"]] == [
        *(s["schema-id"] for s in before["schemas"]),
        new_schema_id,
    ], statement
    assert after["last-column-id"] >= before["last-column-id"], statement
    return after


def _insert(spark: SparkSession, table: str, values: str) -> None:
    """One INSERT written as one data file (so that file counts are known)."""
    spark.sql(f"INSERT INTO {table} SELECT /*+ REPARTITION(1) */ * FROM VALUES {values}")


# --- ADD COLUMN(S) -----------------------------------------------------------------------------


def test_add_columns_top_level_and_nested_with_positions(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.adds"
    location = _location(warehouse, namespace, "adds")
    spark.sql(
        f"CREATE TABLE {t} (id INT, s STRUCT<a: INT>, pts ARRAY<STRUCT<x: INT>>, "
        "m MAP<STRING, STRUCT<v: INT>>) USING floe"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES (1, named_struct('a', 10), array(named_struct('x', 100)), "
        "map('k', named_struct('v', 1000)))"
    )
    created = inspect.load_table_metadata(location)
    last = created["last-column-id"]
    old_ids = _ids(_current_schema(created))
    assert last == max(old_ids.values())

    m1 = _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN c STRING COMMENT 'added last'")
    m2 = _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN c0 INT FIRST")
    m3 = _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN c1 DOUBLE AFTER id")
    # one statement, several columns (in a struct, a list element and a map value): one version
    m4 = _alter(
        spark,
        location,
        f"ALTER TABLE {t} ADD COLUMNS (s.b STRING FIRST, pts.element.y INT, m.value.w INT)",
    )
    m5 = _alter(
        spark, location, f"ALTER TABLE {t} ADD COLUMN meta STRUCT<k: STRING, tags: ARRAY<STRING>>"
    )

    ids = _ids(_current_schema(m5))
    assert {n: ids[n] for n in old_ids} == old_ids  # existing columns keep their ids
    assert [m["last-column-id"] for m in (m1, m2, m3, m4, m5)] == [
        last + 1,
        last + 2,
        last + 3,
        last + 6,
        last + 10,
    ]
    assert (ids["c"], ids["c0"], ids["c1"]) == (last + 1, last + 2, last + 3)
    assert (ids["s.b"], ids["pts.element.y"], ids["m.value.w"]) == (last + 4, last + 5, last + 6)
    # the new field first, then its children level by level
    assert (ids["meta"], ids["meta.k"], ids["meta.tags"], ids["meta.tags.element"]) == (
        last + 7,
        last + 8,
        last + 9,
        last + 10,
    )
    schema = _current_schema(m5)
    assert all(not f["required"] for f in schema["fields"])
    assert _fields(schema)["c"]["doc"] == "added last"

    assert spark.table(t).columns == ["c0", "id", "c1", "s", "pts", "m", "c", "meta"]
    assert [f.name for f in spark.table(t).schema["s"].dataType.fields] == ["b", "a"]  # type: ignore[attr-defined]
    spark.sql(
        f"INSERT INTO {t} VALUES (7, 2, 2.5, named_struct('b', 'sb', 'a', 20), "
        "array(named_struct('x', 200, 'y', 201)), map('j', named_struct('v', 2000, 'w', 2001)), "
        "'cc', named_struct('k', 'kk', 'tags', array('t1')))"
    )
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == [
        (None, 1, None, (None, 10), [(100, None)], {"k": (1000, None)}, None, None),
        (7, 2, 2.5, ("sb", 20), [(200, 201)], {"j": (2000, 2001)}, "cc", ("kk", ["t1"])),
    ]
    assert _rows(spark, f"SELECT id FROM {t} WHERE c IS NULL") == [(1,)]
    # the pure-Python reader, matching Parquet columns by id, agrees
    py = inspect.read_table(location).sort_by("id").to_pylist()
    assert [(r["id"], r["c"], r["s"]) for r in py] == [
        (1, None, {"b": None, "a": 10}),
        (2, "cc", {"b": "sb", "a": 20}),
    ]


# --- RENAME COLUMN -----------------------------------------------------------------------------


def test_rename_keeps_values_partitioning_and_column_properties(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.renames"
    location = _location(warehouse, namespace, "renames")
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, category STRING, s STRUCT<a: INT, b: STRING>) USING floe "
        "PARTITIONED BY (bucket(4, id), category) "
        "TBLPROPERTIES ('write.metadata.metrics.column.category' = 'counts')"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES (1, 'a', named_struct('a', 1, 'b', 'x')), "
        "(2, 'b', named_struct('a', 2, 'b', 'y')), (3, 'b', named_struct('a', 3, 'b', 'z'))"
    )
    before = inspect.load_table_metadata(location)
    ids = _ids(_current_schema(before))

    _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN category TO kind")
    _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN id TO key")
    after = _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN s.b TO label")

    renamed = _ids(_current_schema(after))
    assert (renamed["kind"], renamed["key"], renamed["s.label"]) == (
        ids["category"],
        ids["id"],
        ids["s.b"],
    )
    assert after["last-column-id"] == before["last-column-id"]
    assert after["partition-specs"] == before["partition-specs"]  # specs reference source ids
    # per-column properties follow the column
    assert after["properties"].get("write.metadata.metrics.column.kind") == "counts"
    assert "write.metadata.metrics.column.category" not in after["properties"]

    spark.sql(f"INSERT INTO {t} VALUES (4, 'b', named_struct('a', 4, 'label', 'w'))")
    assert spark.table(t).columns == ["key", "kind", "s"]
    assert _rows(spark, f"SELECT key, kind, s.a, s.label FROM {t} ORDER BY key") == [
        (1, "a", 1, "x"),
        (2, "b", 2, "y"),
        (3, "b", 3, "z"),
        (4, "b", 4, "w"),
    ]
    # pruning through the renamed partition source columns
    live = inspect.table_files(location)
    rows, read = _files_read(spark, t, f"SELECT key FROM {t} WHERE kind = 'a'")
    assert rows == [(1,)]
    assert read == sum(1 for f in live if f["partition"]["category"] == "a") < len(live)
    rows, read = _files_read(spark, t, f"SELECT key FROM {t} WHERE key = 3")
    assert rows == [(3,)]
    assert read < len(live)
    with pytest.raises(Exception, match="category"):
        spark.sql(f"SELECT category FROM {t}").collect()

    from pyiceberg.table import StaticTable

    arrow = StaticTable.from_metadata(location).scan().to_arrow().sort_by("key")
    assert arrow.column_names == ["key", "kind", "s"]
    assert arrow.column("s").to_pylist() == [
        {"a": 1, "label": "x"},
        {"a": 2, "label": "y"},
        {"a": 3, "label": "z"},
        {"a": 4, "label": "w"},
    ]


# --- DROP COLUMN, then ADD the name again ------------------------------------------------------


def test_dropped_then_readded_column_never_shows_old_values(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.readd"
    location = _location(warehouse, namespace, "readd")
    spark.sql(f"CREATE TABLE {t} (id INT, name STRING, s STRUCT<a: INT, b: STRING>) USING floe")
    _insert(spark, t, "(1, 'old1', named_struct('a', 1, 'b', 'ob1')), (2, 'old2', NULL)")
    first = inspect.load_table_metadata(location)
    old_ids = _ids(_current_schema(first))

    _alter(spark, location, f"ALTER TABLE {t} DROP COLUMN name")
    _alter(spark, location, f"ALTER TABLE {t} DROP COLUMN s.b")
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == [(1, (1,)), (2, None)]
    _insert(spark, t, "(3, named_struct('a', 3))")
    _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN name STRING")
    readded = _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN s.b STRING")
    _insert(spark, t, "(4, named_struct('a', 4, 'b', 'nb4'), 'new4')")

    ids = _ids(_current_schema(readded))
    assert ids["name"] > first["last-column-id"] and ids["s.b"] > first["last-column-id"]
    assert old_ids["name"] not in ids.values() and old_ids["s.b"] not in ids.values()

    assert _rows(spark, f"SELECT id, name, s.b FROM {t} ORDER BY id") == [
        (1, None, None),
        (2, None, None),
        (3, None, None),
        (4, "new4", "nb4"),
    ]
    assert _rows(spark, f"SELECT id FROM {t} WHERE name = 'old1' OR s.b = 'ob1'") == []
    assert _rows(spark, f"SELECT id FROM {t} WHERE name IS NOT NULL") == [(4,)]
    # only the ids keep the old values out: the first file still holds them under the same names
    import pyarrow.parquet as pq

    files = sorted(inspect.table_files(location), key=lambda f: f["record_count"], reverse=True)
    old_file = pq.read_table(local_path(files[0]["file_path"])).sort_by("id")
    assert old_file.column("name").to_pylist() == ["old1", "old2"]
    # the pure-Python reader agrees; time travel reads the old snapshot with its own schema
    py = inspect.read_table(location).sort_by("id").to_pylist()
    assert [(r["id"], r["name"]) for r in py] == [(1, None), (2, None), (3, None), (4, "new4")]
    assert _rows(
        spark, f"SELECT id, name, s.b FROM {t} VERSION AS OF {first['current-snapshot-id']}"
    ) == [(1, "old1", "ob1"), (2, "old2", None)]


def test_time_travel_filters_bind_to_the_schema_of_the_snapshot(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.swap"
    location = _location(warehouse, namespace, "swap")
    spark.sql(f"CREATE TABLE {t} (id INT, a INT, b INT) USING floe")
    _insert(spark, t, "(1, 10, 100)")
    _insert(spark, t, "(2, 20, 200)")
    first = inspect.load_table_metadata(location)["current-snapshot-id"]
    # swap the names: today's a is the old b; b is gone
    _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN a TO x")
    _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN b TO a")
    _alter(spark, location, f"ALTER TABLE {t} DROP COLUMN x")
    assert _files_read(spark, t, f"SELECT id FROM {t} WHERE a = 100") == ([(1,)], 1)
    old = f"{t} VERSION AS OF {first}"
    assert _files_read(spark, t, f"SELECT id, a, b FROM {old} WHERE a = 10") == ([(1, 10, 100)], 1)
    assert _files_read(spark, t, f"SELECT id FROM {old} WHERE b = 200") == ([(2,)], 1)
    assert _files_read(spark, t, f"SELECT id FROM {old} WHERE a = 100") == ([], 0)


def test_drop_if_exists_of_a_missing_column_commits_nothing(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.dropping"
    location = _location(warehouse, namespace, "dropping")
    spark.sql(f"CREATE TABLE {t} (id INT, a STRING, b STRING) USING floe")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 'b')")
    state = _state(location)
    spark.sql(f"ALTER TABLE {t} DROP COLUMN IF EXISTS nope")
    assert _state(location) == state
    metadata = _alter(spark, location, f"ALTER TABLE {t} DROP COLUMNS (a, b)")
    assert [f["name"] for f in _current_schema(metadata)["fields"]] == ["id"]
    assert _rows(spark, f"SELECT * FROM {t}") == [(1,)]


# --- ALTER COLUMN TYPE -------------------------------------------------------------------------


def test_type_promotions_read_old_files_and_prune_with_their_bounds(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.promote"
    location = _location(warehouse, namespace, "promote")
    spark.sql(
        f"CREATE TABLE {t} (id INT, i INT, f FLOAT, d DECIMAL(9, 2), s STRUCT<n: INT>, "
        "l ARRAY<INT>, m MAP<STRING, FLOAT>) USING floe"
    )
    _insert(
        spark,
        t,
        "(1, 1, CAST(1.5 AS FLOAT), 1.25, named_struct('n', 1), array(1, 2), "
        "map('a', CAST(0.5 AS FLOAT))), "
        "(2, 2147483647, CAST(-2.5 AS FLOAT), 9999999.99, named_struct('n', -2147483648), "
        "array(2147483647), map('b', CAST(-0.25 AS FLOAT)))",
    )
    ids = _ids(_current_schema(inspect.load_table_metadata(location)))
    for column, new_type in [
        ("i", "BIGINT"),
        ("f", "DOUBLE"),
        ("d", "DECIMAL(18, 2)"),
        ("s.n", "BIGINT"),
        ("l.element", "BIGINT"),
        ("m.value", "DOUBLE"),
    ]:
        metadata = _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN {column} TYPE {new_type}")
    schema = _current_schema(metadata)
    assert _ids(schema) == ids
    fields = _fields(schema)
    assert [fields[c]["type"] for c in ("i", "f", "d")] == ["long", "double", "decimal(18, 2)"]
    assert fields["s"]["type"]["fields"][0]["type"] == "long"
    assert fields["l"]["type"]["element"] == "long"
    assert fields["m"]["type"]["value"] == "double"
    assert [f.dataType.simpleString() for f in spark.table(t).schema.fields] == [
        "int",
        "bigint",
        "double",
        "decimal(18,2)",
        "struct<n:bigint>",
        "array<bigint>",
        "map<string,double>",
    ]

    _insert(
        spark,
        t,
        "(3, 5000000000, 1.0E300, 1234567890123456.78, named_struct('n', 5000000000), "
        "array(5000000000), map('c', 1.0E300))",
    )
    assert len(inspect.table_files(location)) == 2
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == [
        (1, 1, 1.5, Decimal("1.25"), (1,), [1, 2], {"a": 0.5}),
        (2, 2147483647, -2.5, Decimal("9999999.99"), (-2147483648,), [2147483647], {"b": -0.25}),
        (
            3,
            5000000000,
            1.0e300,
            Decimal("1234567890123456.78"),
            (5000000000,),
            [5000000000],
            {"c": 1.0e300},
        ),
    ]
    # the old file's bounds are 4 bytes (int, float) and decimal(9, 2): read at the new widths
    for where, expected_ids, files in [
        ("i > 3000000000", [3], 1),
        ("i = 2147483647", [2], 1),
        ("i < 0", [], 0),
        ("f < 0", [2], 1),
        ("f > 1.0E10", [3], 1),
        ("d > 10000000", [3], 1),
        ("d = 1.25", [1], 1),
        ("s.n < -2000000000", [2], 1),
    ]:
        rows, read = _files_read(spark, t, f"SELECT id FROM {t} WHERE {where} ORDER BY id")
        assert [r[0] for r in rows] == expected_ids, where
        assert read == files, where


def test_promoted_identity_partition_source_keeps_pruning(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.ppromote"
    location = _location(warehouse, namespace, "ppromote")
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p INT) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1), (2, 2)")
    _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN p TYPE BIGINT")
    spark.sql(f"INSERT INTO {t} VALUES (3, 1), (4, 3000000000)")
    rows, read = _files_read(spark, t, f"SELECT id FROM {t} WHERE p = 1 ORDER BY id")
    assert rows == [(1,), (3,)]
    assert read == 2
    rows, read = _files_read(spark, t, f"SELECT id FROM {t} WHERE p > 2147483647")
    assert (rows, read) == ([(4,)], 1)

    from pyiceberg.table import StaticTable

    static = StaticTable.from_metadata(location)
    assert sorted(static.scan(row_filter="p == 1").to_arrow().column("id").to_pylist()) == [1, 3]
    assert sorted(static.scan().to_arrow().column("p").to_pylist()) == [1, 1, 2, 3000000000]


# --- NOT NULL, comments, positions -------------------------------------------------------------


def test_drop_not_null_comments_and_positions(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.misc"
    location = _location(warehouse, namespace, "misc")
    spark.sql(
        f"CREATE TABLE {t} (id INT NOT NULL, name STRING NOT NULL COMMENT 'old', "
        "s STRUCT<a: INT NOT NULL, b: INT>) USING floe"
    )
    spark.sql(f"INSERT INTO {t} VALUES (1, 'n1', named_struct('a', 1, 'b', 2))")

    _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN name DROP NOT NULL")
    metadata = _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN s.a DROP NOT NULL")
    fields = _fields(_current_schema(metadata))
    assert (fields["id"]["required"], fields["name"]["required"]) == (True, False)
    assert fields["s"]["type"]["fields"][0]["required"] is False
    spark.sql(f"INSERT INTO {t} VALUES (2, NULL, named_struct('a', NULL, 'b', 3))")

    _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN name COMMENT 'display name'")
    metadata = _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN s.b COMMENT 'nested'")
    fields = _fields(_current_schema(metadata))
    assert fields["name"]["doc"] == "display name"
    assert fields["s"]["type"]["fields"][1]["doc"] == "nested"
    described = {r[0]: r[2] for r in _rows(spark, f"DESCRIBE TABLE {t}")}
    assert described["name"] == "display name"

    _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN name FIRST")
    _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN id AFTER s")
    metadata = _alter(spark, location, f"ALTER TABLE {t} ALTER COLUMN s.b FIRST")
    assert [f["name"] for f in _current_schema(metadata)["fields"]] == ["name", "s", "id"]
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == [
        ("n1", (2, 1), 1),
        (None, (3, None), 2),
    ]

    spark.sql(f"COMMENT ON TABLE {t} IS 'evolving'")
    assert inspect.load_table_metadata(location)["properties"]["comment"] == "evolving"
    details = {r[0]: r[1] for r in _rows(spark, f"DESCRIBE TABLE EXTENDED {t}")}
    assert details["Comment"] == "evolving"


# --- refused changes ---------------------------------------------------------------------------


def test_refused_changes_say_why_and_commit_nothing(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    t = f"floe.{namespace}.refused"
    location = _location(warehouse, namespace, "refused")
    spark.sql(
        f"CREATE TABLE {t} (id BIGINT, i INT, d DECIMAL(9, 2), s STRUCT<a: INT>, name STRING, "
        "ts TIMESTAMP) USING floe PARTITIONED BY (bucket(8, id), days(ts))"
    )
    spark.sql(
        f"INSERT INTO {t} VALUES (1, 1, 1.5, named_struct('a', 1), 'n', "
        "TIMESTAMP '2024-03-01 10:00:00')"
    )
    cases: list[tuple[str, list[str]]] = [
        (
            "DROP COLUMN id",
            [
                "Cannot drop column id",
                "partition field id_bucket (bucket[8])",
                "DROP PARTITION FIELD id_bucket",
            ],
        ),
        # a refused change fails the whole statement: name is not dropped either
        ("DROP COLUMNS (name, ts)", ["Cannot drop column ts", "partition field ts_day (day)"]),
        ("ADD COLUMN c INT NOT NULL", ["Cannot add required column c", "nullable"]),
        ("ADD COLUMNS (fine INT, c INT NOT NULL)", ["Cannot add required column c"]),
        ("ADD COLUMN c INT DEFAULT 1", ["c", "DEFAULT"]),
        ("ALTER COLUMN i TYPE STRING", ["Cannot change column i from int to string"]),
        ("ALTER COLUMN i TYPE DOUBLE", ["Cannot change column i from int to double"]),
        ("ALTER COLUMN d TYPE DECIMAL(12, 3)", ["column d from decimal(9, 2) to decimal(12, 3)"]),
        ("ALTER COLUMN s.a TYPE STRING", ["Cannot change column s.a from int to string"]),
        ("DROP COLUMN s.a", ["s", "drop s instead"]),
        # refused by Spark itself before Floe sees them
        ("ALTER COLUMN id TYPE INT", ["id"]),
        ("ALTER COLUMN i SET NOT NULL", ["non-nullable", "i"]),
        ("DROP COLUMN nope", ["nope"]),
    ]
    state = _state(location)
    for change, words in cases:
        statement = f"ALTER TABLE {t} {change}"
        with pytest.raises(Exception) as caught:
            spark.sql(statement)
        message = str(caught.value)
        for word in words:
            assert word in message, (statement, message)
        assert _state(location) == state, statement
    assert _rows(spark, f"SELECT id, i, name FROM {t}") == [(1, 1, "n")]
    # after dropping the partition field, the column can go
    spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD id_bucket")
    _alter(spark, location, f"ALTER TABLE {t} DROP COLUMN id")
    assert _rows(spark, f"SELECT i, name FROM {t}") == [(1, "n")]


# --- interop -----------------------------------------------------------------------------------

#: Columns of the evolved table after _evolve, in order.
EVOLVED_COLUMNS = ["id", "big", "f", "d", "label", "s", "pts", "note"]
#: Its rows after _evolve, as Spark returns them (structs as tuples).
EVOLVED_ROWS: list[tuple[Any, ...]] = [
    (1, 1, 1.5, Decimal("1.25"), "one", (10, None), [(100, None)], None),
    (2, -7, -2.5, Decimal("-3.50"), None, None, None, None),
    (3, 5000000000, 3.25, Decimal("1234567890.12"), "three", (30, "b3"), [(300, "y3")], "n3"),
]


def _evolve(spark: SparkSession, table: str) -> None:
    """Create a table, write, evolve every way SQL allows (add nested, rename, drop and re-add,
    promote), write again: leaves EVOLVED_ROWS."""
    spark.sql(
        f"CREATE TABLE {table} (id INT, big INT, f FLOAT, d DECIMAL(9, 2), name STRING, "
        "note STRING, s STRUCT<a: INT>, pts ARRAY<STRUCT<x: INT>>) USING floe"
    )
    _insert(
        spark,
        table,
        "(1, 1, CAST(1.5 AS FLOAT), 1.25, 'one', 'old note', named_struct('a', 10), "
        "array(named_struct('x', 100))), "
        "(2, -7, CAST(-2.5 AS FLOAT), -3.5, NULL, 'old note 2', NULL, NULL)",
    )
    for change in [
        "ALTER COLUMN big TYPE BIGINT",
        "ALTER COLUMN f TYPE DOUBLE",
        "ALTER COLUMN d TYPE DECIMAL(12, 2)",
        "RENAME COLUMN name TO label",
        "DROP COLUMN note",
        "ADD COLUMN note STRING",
        "ADD COLUMN s.b STRING",
        "ADD COLUMN pts.element.y STRING",
        "ALTER COLUMN label AFTER d",
    ]:
        spark.sql(f"ALTER TABLE {table} {change}")
    _insert(
        spark,
        table,
        "(3, 5000000000, 3.25, 1234567890.12, 'three', named_struct('a', 30, 'b', 'b3'), "
        "array(named_struct('x', 300, 'y', 'y3')), 'n3')",
    )


def test_pyiceberg_reads_an_evolved_floe_table(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    from pyiceberg.table import StaticTable

    t = f"floe.{namespace}.evolved"
    location = _location(warehouse, namespace, "evolved")
    _evolve(spark, t)
    assert spark.table(t).columns == EVOLVED_COLUMNS
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == EVOLVED_ROWS

    static = StaticTable.from_metadata(location)
    assert static.schema().schema_id == inspect.load_table_metadata(location)["current-schema-id"]
    arrow = static.scan().to_arrow().sort_by("id")
    assert arrow.column_names == EVOLVED_COLUMNS
    assert arrow.to_pylist() == [
        {
            "id": 1,
            "big": 1,
            "f": 1.5,
            "d": Decimal("1.25"),
            "label": "one",
            "s": {"a": 10, "b": None},
            "pts": [{"x": 100, "y": None}],
            "note": None,
        },
        {
            "id": 2,
            "big": -7,
            "f": -2.5,
            "d": Decimal("-3.50"),
            "label": None,
            "s": None,
            # pyiceberg 0.12 reads a NULL list of structs as [] (Iceberg-written files too)
            "pts": [],
            "note": None,
        },
        {
            "id": 3,
            "big": 5000000000,
            "f": 3.25,
            "d": Decimal("1234567890.12"),
            "label": "three",
            "s": {"a": 30, "b": "b3"},
            "pts": [{"x": 300, "y": "y3"}],
            "note": "n3",
        },
    ]
    filtered = static.scan(row_filter="big > 2147483647 or f < 0").to_arrow()
    assert sorted(filtered.column("id").to_pylist()) == [2, 3]


def test_iceberg_runtime_reads_an_evolved_floe_table(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    t = f"floe.{namespace}.evolved"
    _evolve(spark, t)
    other = f"{iceberg}.{namespace}.evolved"
    assert spark.table(other).columns == EVOLVED_COLUMNS
    assert [f.dataType.simpleString() for f in spark.table(other).schema.fields] == [
        f.dataType.simpleString() for f in spark.table(t).schema.fields
    ]
    assert _rows(spark, f"SELECT * FROM {other} ORDER BY id") == EVOLVED_ROWS
    for where in ["big > 2147483647", "f < 0", "d > 1000", "label = 'one'", "note IS NULL"]:
        assert _rows(spark, f"SELECT id FROM {other} WHERE {where} ORDER BY id") == _rows(
            spark, f"SELECT id FROM {t} WHERE {where} ORDER BY id"
        ), where


def test_floe_reads_a_table_evolved_by_iceberg(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    other, t = f"{iceberg}.{namespace}.by_iceberg", f"floe.{namespace}.by_iceberg"
    location = _location(warehouse, namespace, "by_iceberg")
    spark.sql(
        f"CREATE TABLE {other} (id INT, p INT, name STRING, f FLOAT, s STRUCT<a: INT>) "
        "USING iceberg PARTITIONED BY (p)"
    )
    spark.sql(
        f"INSERT INTO {other} VALUES (1, 1, 'a', 1.5, named_struct('a', 1)), (2, 2, 'b', 2.5, NULL)"
    )
    for change in [
        "ADD COLUMN c STRING AFTER id",
        "ADD COLUMN s.b STRING",
        "RENAME COLUMN name TO nm",
        "ALTER COLUMN id TYPE BIGINT",
        "ALTER COLUMN p TYPE BIGINT",
        "ALTER COLUMN f TYPE DOUBLE",
        "DROP COLUMN nm",
        "ADD COLUMN nm STRING",
    ]:
        spark.sql(f"ALTER TABLE {other} {change}")
    spark.sql(
        f"INSERT INTO {other} VALUES (5000000000, 'c', 3, 3.5, named_struct('a', 3, 'b', 'b3'), "
        "'new')"
    )
    expected = [
        (1, None, 1, 1.5, (1, None), None),
        (2, None, 2, 2.5, None, None),
        (5000000000, "c", 3, 3.5, (3, "b3"), "new"),
    ]
    assert _rows(spark, f"SELECT * FROM {other} ORDER BY id") == expected
    assert _rows(spark, f"SELECT * FROM {t} ORDER BY id") == expected
    rows, read = _files_read(spark, t, f"SELECT id FROM {t} WHERE p = 1")
    assert (rows, read) == ([(1,)], 1)

    # Floe evolves it further and writes; Iceberg reads that
    metadata = _alter(spark, location, f"ALTER TABLE {t} RENAME COLUMN c TO code")
    assert metadata["last-column-id"] == max(_ids(_current_schema(metadata)).values())
    _alter(spark, location, f"ALTER TABLE {t} ADD COLUMN extra INT FIRST")
    spark.sql(f"INSERT INTO {t} VALUES (9, 6, 'f', 4, 4.5, named_struct('a', 4, 'b', 'b4'), 'x')")
    assert _rows(spark, f"SELECT * FROM {other} ORDER BY id") == [
        (None, *expected[0]),
        (None, *expected[1]),
        (9, 6, "f", 4, 4.5, (4, "b4"), "x"),
        (None, *expected[2]),
    ]
