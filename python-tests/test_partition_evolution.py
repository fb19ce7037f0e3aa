"""Partition evolution: ALTER TABLE ... ADD | DROP | REPLACE PARTITION FIELD and the procedures.

The SQL extension rewrites each statement into a call of ``floe.system.add_partition_field`` (or
``drop_``/``replace_partition_field``) through Spark 4's native CALL, and both forms are exercised.
Checked here: the specs and field ids Floe commits (read back with the pure-Python ``floe.inspect``;
v2 reuses the field id of a (source, transform) pair seen before, v1 keeps dropped fields as
``void``), that writes after an evolution use the new default spec while old files keep theirs,
that reads and pruning span specs (also through pyiceberg, an independent reader), and that bad
statements fail clearly and commit nothing.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import scan_report
from jvm_tables import create_v1_table

import floe
from floe import inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# --- helpers -----------------------------------------------------------------------------------


def _location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


def _specs(location: str) -> dict[int, list[tuple[int, str, str, int]]]:
    """Spec id -> its fields as (field id, name, transform, source id), from the metadata file."""
    metadata = inspect.load_table_metadata(location)
    return {
        spec["spec-id"]: [
            (f["field-id"], f["name"], f["transform"], f["source-id"]) for f in spec["fields"]
        ]
        for spec in metadata["partition-specs"]
    }


def _default_spec_id(location: str) -> int:
    spec_id: int = inspect.load_table_metadata(location)["default-spec-id"]
    return spec_id


def _source_ids(location: str) -> dict[str, int]:
    metadata = inspect.load_table_metadata(location)
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    return {f["name"]: f["id"] for f in schema["fields"]}


def _files_by_spec(location: str) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for f in inspect.table_files(location):
        out.setdefault(f["spec_id"], []).append(f)
    return out

def _rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in spark.sql(sql).collect()]


def _ts(day: int, hour: int = 0) -> dt.datetime:
    """A timestamp of March 2024 (UTC, the session time zone)."""
    return dt.datetime(2024, 3, day, hour, 0)


def _insert(spark: SparkSession, table: str, rows: list[tuple[int, str, dt.datetime]]) -> None:
    values = ", ".join(f"({i}, '{c}', TIMESTAMP '{t:%Y-%m-%d %H:%M:%S}')" for i, c, t in rows)
    spark.sql(f"INSERT INTO {table} VALUES {values}")


def _create(spark: SparkSession, table: str, partitioning: str, version: int = 2) -> None:
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, category STRING, ts TIMESTAMP) USING floe "
        f"PARTITIONED BY ({partitioning}) TBLPROPERTIES ('format-version' = '{version}')"
    )


def _everything(spark: SparkSession, table: str) -> list[tuple[Any, ...]]:
    """All rows as (id, category, ts text), by id; text so the Python time zone does not matter."""
    return _rows(spark, f"SELECT id, category, CAST(ts AS STRING) FROM {table} ORDER BY id")


def _expected(rows: list[tuple[int, str, dt.datetime]]) -> list[tuple[Any, ...]]:
    return sorted((i, c, f"{t:%Y-%m-%d %H:%M:%S}") for i, c, t in rows)


def _file_rows(data_file: dict[str, Any]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    rows: list[dict[str, Any]] = pq.read_table(local_path(data_file["file_path"])).to_pylist()
    return rows


def _bucket(n: int, value: int) -> int:
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import LongType

    result = BucketTransform(n).transform(LongType())(value)
    assert result is not None
    return int(result)


BEFORE = [(1, "a", _ts(1, 1)), (2, "b", _ts(1, 2)), (3, "a", _ts(2, 3))]
AFTER = [(4, "b", _ts(2, 4)), (5, "a", _ts(3, 5)), (6, "c", _ts(3, 6)), (7, "b", _ts(4, 7))]


# --- ADD: writes use the new spec, old files keep theirs, reads and pruning span both -----------


def test_add_partition_field_new_writes_use_new_spec_and_reads_span_specs(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.{namespace}.events"
    location = _location(warehouse, namespace, "events")
    _create(spark, table, "category")
    _insert(spark, table, BEFORE)

    result = _rows(spark, f"ALTER TABLE {table} ADD PARTITION FIELD bucket(4, id)")
    _insert(spark, table, AFTER)

    ids = _source_ids(location)
    assert result == [(1, "[1000: category: identity(category), 1001: id_bucket_4: bucket[4](id)]")]
    assert _specs(location) == {
        0: [(1000, "category", "identity", ids["category"])],
        1: [
            (1000, "category", "identity", ids["category"]),
            (1001, "id_bucket_4", "bucket[4]", ids["id"]),
        ],
    }
    assert _default_spec_id(location) == 1
    assert inspect.load_table_metadata(location)["last-partition-id"] == 1001

    files = _files_by_spec(location)
    assert set(files) == {0, 1}
    for f in files[0]:
        rows = _file_rows(f)
        assert f["partition"] == {"category": rows[0]["category"]}
        assert {r["category"] for r in rows} == {rows[0]["category"]}
    for f in files[1]:
        # every row sits in the bucket pyiceberg computes for it
        rows = _file_rows(f)
        assert set(f["partition"]) == {"category", "id_bucket_4"}
        assert {(r["category"], _bucket(4, r["id"])) for r in rows} == {
            (f["partition"]["category"], f["partition"]["id_bucket_4"])
        }
    assert sorted(r["id"] for f in files[0] for r in _file_rows(f)) == [i for i, _, _ in BEFORE]
    assert sorted(r["id"] for f in files[1] for r in _file_rows(f)) == [i for i, _, _ in AFTER]

    everything = _expected(BEFORE + AFTER)
    assert _everything(spark, table) == everything

    assert _rows(spark, f"SELECT id FROM {table} WHERE category = 'b' ORDER BY id") == [
        (2,),
        (4,),
        (7,),
    ]
    report = scan_report(spark, table)
    live = [f for fs in files.values() for f in fs]
    assert report["result-data-files"] == sum(1 for f in live if f["partition"]["category"] == "b")
    assert report["total-data-files"] == len(live)

    assert _rows(spark, f"SELECT id, category FROM {table} WHERE id = 6") == [(6, "c")]

    # pyiceberg reads the evolved table with the same rows
    from pyiceberg.table import StaticTable

    arrow = StaticTable.from_metadata(location).scan().to_arrow().sort_by("id")
    assert arrow.column("id").to_pylist() == [r[0] for r in everything]
    assert arrow.column("category").to_pylist() == [r[1] for r in everything]


# --- REPLACE and DROP (v2): fields leave the spec; a re-added pair gets its old field id ----------


def test_replace_and_drop_in_v2_and_field_id_reuse(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.{namespace}.logs"
    location = _location(warehouse, namespace, "logs")
    _create(spark, table, "category, days(ts)")
    ids = _source_ids(location)
    _insert(spark, table, BEFORE)

    replaced = _rows(spark, f"ALTER TABLE {table} REPLACE PARTITION FIELD days(ts) WITH hours(ts)")
    _insert(spark, table, AFTER[:2])
    dropped = _rows(spark, f"ALTER TABLE {table} DROP PARTITION FIELD category")
    _insert(spark, table, AFTER[2:])
    readded = _rows(spark, f"ALTER TABLE {table} ADD PARTITION FIELD category")

    assert replaced == [(1, "[1000: category: identity(category), 1002: ts_hour: hour(ts)]")]
    assert dropped == [(2, "[1002: ts_hour: hour(ts)]")]
    assert readded == [(3, "[1002: ts_hour: hour(ts), 1000: category: identity(category)]")]
    assert _specs(location) == {
        0: [(1000, "category", "identity", ids["category"]), (1001, "ts_day", "day", ids["ts"])],
        1: [(1000, "category", "identity", ids["category"]), (1002, "ts_hour", "hour", ids["ts"])],
        2: [(1002, "ts_hour", "hour", ids["ts"])],
        3: [(1002, "ts_hour", "hour", ids["ts"]), (1000, "category", "identity", ids["category"])],
    }
    assert _default_spec_id(location) == 3
    assert inspect.load_table_metadata(location)["last-partition-id"] == 1002

    files = _files_by_spec(location)
    assert set(files) == {0, 1, 2}
    assert {frozenset(f["partition"]) for f in files[0]} == {frozenset({"category", "ts_day"})}
    assert {frozenset(f["partition"]) for f in files[1]} == {frozenset({"category", "ts_hour"})}
    assert {frozenset(f["partition"]) for f in files[2]} == {frozenset({"ts_hour"})}
    assert sorted(f["partition"]["ts_hour"] for f in files[2]) == sorted(
        int((t - dt.datetime(1970, 1, 1)).total_seconds() // 3600) for _, _, t in AFTER[2:]
    )

    assert _everything(spark, table) == _expected(BEFORE + AFTER)
    later = f"SELECT id FROM {table} WHERE ts >= TIMESTAMP '2024-03-03 00:00:00'"
    assert sorted(_rows(spark, later)) == [(5,), (6,), (7,)]
    assert sorted(_rows(spark, f"SELECT id FROM {table} WHERE category = 'a'")) == [
        (1,),
        (3,),
        (5,),
    ]


# --- the CALL form: named and positional arguments, drop by field name ------------------------


def test_procedures_called_directly(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    table = f"floe.{namespace}.calls"
    location = _location(warehouse, namespace, "calls")
    _create(spark, table, "category")
    _insert(spark, table, BEFORE)
    ids = _source_ids(location)

    added = _rows(
        spark,
        f"CALL floe.system.add_partition_field(table => '{namespace}.calls', "
        "transform => 'truncate(2, category)', name => 'cat2')",
    )
    replaced = _rows(
        spark,
        f"CALL floe.system.replace_partition_field('floe.{namespace}.calls', 'cat2', 'days(ts)')",
    )
    _insert(spark, table, AFTER)
    dropped = _rows(
        spark,
        f"CALL floe.system.drop_partition_field(field => 'category', table => '{namespace}.calls')",
    )

    assert added == [(1, "[1000: category: identity(category), 1001: cat2: truncate[2](category)]")]
    assert replaced == [(2, "[1000: category: identity(category), 1002: ts_day: day(ts)]")]
    assert dropped == [(3, "[1002: ts_day: day(ts)]")]
    assert _specs(location)[3] == [(1002, "ts_day", "day", ids["ts"])]
    assert _default_spec_id(location) == 3
    assert {f["spec_id"] for f in inspect.table_files(location)} == {0, 2}
    assert _everything(spark, table) == _expected(BEFORE + AFTER)
    listed = {r[3] for r in spark.sql("SHOW PROCEDURES IN floe.system").collect()}
    assert {"add_partition_field", "drop_partition_field", "replace_partition_field"} <= listed


# --- v1: a dropped field becomes void and keeps its position and field id ------------------------


def test_v1_drop_keeps_a_void_field(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    table = f"floe.{namespace}.v1"
    location = _location(warehouse, namespace, "v1")
    _create(spark, f"floe.{namespace}.model", "category")
    create_v1_table(spark, warehouse, namespace, "model", "v1")  # Floe creates v2 and v3 only
    ids = _source_ids(location)

    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD bucket(8, id)")
    spark.sql(f"ALTER TABLE {table} DROP PARTITION FIELD category")
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD category")
    spark.sql(f"ALTER TABLE {table} REPLACE PARTITION FIELD id_bucket_8 WITH months(ts) AS m")

    cat, id_ = ids["category"], ids["id"]
    assert _specs(location) == {
        0: [(1000, "category", "identity", cat)],
        1: [(1000, "category", "identity", cat), (1001, "id_bucket_8", "bucket[8]", id_)],
        2: [(1000, "category", "void", cat), (1001, "id_bucket_8", "bucket[8]", id_)],
        # the void field gives its name up to the re-added field, as Iceberg does
        3: [
            (1000, "category_1000", "void", cat),
            (1001, "id_bucket_8", "bucket[8]", id_),
            (1002, "category", "identity", cat),
        ],
        4: [
            (1000, "category_1000", "void", cat),
            (1001, "id_bucket_8", "void", id_),
            (1002, "category", "identity", cat),
            (1003, "m", "month", ids["ts"]),
        ],
    }
    assert _default_spec_id(location) == 4


# --- identifiers: backquotes, current namespace, comments and semicolons -------------------------


def test_quoted_identifiers_and_current_namespace(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    table = f"floe.`{namespace}`.`t-1`"
    location = _location(warehouse, namespace, "t-1")
    _create(spark, table, "category")
    before = spark.catalog.currentCatalog(), spark.catalog.currentDatabase()
    spark.sql(f"USE floe.`{namespace}`")
    try:
        spark.sql("ALTER TABLE `t-1` ADD PARTITION FIELD bucket(`id`, 4) AS `id bucket`")
        spark.sql("/* c */ alter table `t-1` -- c\n drop partition field `id bucket`;")
    finally:
        spark.sql(f"USE {before[0]}.`{before[1]}`")

    ids = _source_ids(location)
    assert _specs(location)[1] == [
        (1000, "category", "identity", ids["category"]),
        (1001, "id bucket", "bucket[4]", ids["id"]),
    ]
    assert _specs(location)[_default_spec_id(location)] == [
        (1000, "category", "identity", ids["category"])
    ]


# --- errors: clear messages naming table, field and transform; nothing committed ----------------


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("ADD PARTITION FIELD hours(nope)", "column nope does not exist"),
        ("ADD PARTITION FIELD bucket(0, id)", "Invalid number of buckets: 0"),
        ("ADD PARTITION FIELD truncate(-2, category)", "Invalid truncate width: -2"),
        (
            "ADD PARTITION FIELD hours(d)",
            "transform hour cannot be applied to column d of type date",
        ),
        ("ADD PARTITION FIELD bucket(4, id) AS d_day", "duplicate partition field name d_day"),
        ("ADD PARTITION FIELD bucket(4, id) AS d", "name d is a column of the table"),
        ("ADD PARTITION FIELD category", "already partitioned by it, as field category"),
        ("ADD PARTITION FIELD days(d)", "already partitioned by it, as field d_day"),
        ("ADD PARTITION FIELD months(d)", "redundant with field d_day"),
        ("DROP PARTITION FIELD nope", "no partition field with this name or identity column"),
        ("DROP PARTITION FIELD bucket(4, id)", "the table is not partitioned by it"),
        ("REPLACE PARTITION FIELD years(d) WITH months(d)", "the table is not partitioned by it"),
    ],
)
def test_bad_evolution_fails_clearly_and_commits_nothing(
    spark: SparkSession, namespace: str, warehouse: Path, statement: str, expected: str
) -> None:
    from pyspark.errors import AnalysisException

    table = f"floe.{namespace}.bad"
    location = _location(warehouse, namespace, "bad")
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, category STRING, d DATE) USING floe "
        "PARTITIONED BY (category, days(d))"
    )
    metadata_before = inspect.metadata_file(location)

    with pytest.raises(AnalysisException) as error:
        spark.sql(f"ALTER TABLE {table} {statement}")

    message = str(error.value)
    assert expected in message
    assert f"floe.{namespace}.bad" in message
    assert inspect.metadata_file(location) == metadata_before
    assert list(_specs(location)) == [0]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("ADD PARTITION FIELD bucket(4 id)", "Expected ',' but found 'id'"),
        ("ADD PARTITION FIELD foo(id)", "Unsupported partition transform 'foo'"),
        ("ADD PARTITION FIELD", "Expected a column, bucket(N, col)"),
        ("ADD PARTITION FIELD id AS", "Expected a partition field name"),
        ("REPLACE PARTITION FIELD id days(ts)", "Expected WITH but found 'days'"),
        ("DROP PARTITION FIELD id AS x", "Expected end of statement but found 'AS'"),
    ],
)
def test_malformed_statements_are_parse_errors_naming_the_statement(
    spark: SparkSession, namespace: str, statement: str, expected: str
) -> None:
    from pyspark.errors import ParseException

    with pytest.raises(ParseException) as error:
        spark.sql(f"ALTER TABLE floe.{namespace}.t {statement}")

    message = str(error.value)
    assert expected in message
    assert f"ALTER TABLE ... {statement.split()[0]} PARTITION FIELD" in message


def test_unknown_table_non_floe_catalog_and_bad_call_arguments(
    spark: SparkSession, namespace: str
) -> None:
    from pyspark.errors import AnalysisException, ParseException

    spark.sql(f"CREATE TABLE floe.{namespace}.t (id BIGINT) USING floe")

    with pytest.raises(AnalysisException, match=f"table floe.{namespace}.missing does not exist"):
        spark.sql(f"ALTER TABLE floe.{namespace}.missing ADD PARTITION FIELD id")
    with pytest.raises(ParseException, match="catalog spark_catalog is not one"):
        spark.sql("ALTER TABLE spark_catalog.default.x ADD PARTITION FIELD id")
    with pytest.raises(
        AnalysisException, match=r"Invalid transform argument of floe\.system\.add_partition_field"
    ):
        spark.sql(
            f"CALL floe.system.add_partition_field(table => '{namespace}.t', "
            "transform => 'bucket(4)')"
        )
    with pytest.raises(AnalysisException, match="argument field is required"):
        spark.sql(f"CALL floe.system.drop_partition_field('{namespace}.t', '')")


# --- dynamic INSERT OVERWRITE after an evolution: old-spec files are replaced by their rows ------

REWRITE_ALL = "options => map('rewrite-all', 'true')"
OLD_ROWS = [(1, "a", _ts(1, 1)), (2, "b", _ts(1, 2)), (3, "a", _ts(2, 3))]


def _evolved(spark: SparkSession, table: str, rewrite: bool) -> None:
    """``table`` partitioned by category with OLD_ROWS (one file per category), then evolved to
    (category, days(ts)); with ``rewrite``, its files are first rewritten into the new spec."""
    _create(spark, table, "category")
    _insert(spark, table, OLD_ROWS)
    spark.sql(f"ALTER TABLE {table} ADD PARTITION FIELD days(ts)")
    if rewrite:
        name = table.split(".", 1)[1]
        spark.sql(f"CALL floe.system.rewrite_data_files(table => '{name}', {REWRITE_ALL})")


def _overwrite_partitions(
    spark: SparkSession, table: str, rows: list[tuple[int, str, dt.datetime]]
) -> None:
    df = spark.createDataFrame(rows, "id BIGINT, category STRING, ts TIMESTAMP")
    df.writeTo(table).overwritePartitions()


@pytest.mark.parametrize("rewrite", [False, True], ids=["old-spec-files", "rewritten-first"])
def test_dynamic_overwrite_replaces_old_spec_rows_whatever_the_layout(
    spark: SparkSession, namespace: str, warehouse: Path, rewrite: bool
) -> None:
    """(b, day 1) is overwritten: the old-spec file of category b holds only rows of that
    partition, so it goes, as the same rows would if a rewrite had moved them into the new spec.
    The old file of category a (days 1 and 2) holds no row of (b, day 1) and (c, day 3): kept."""
    table = f"floe.{namespace}.t"
    _evolved(spark, table, rewrite)
    new = [(20, "b", _ts(1, 5)), (30, "c", _ts(3, 1))]
    _overwrite_partitions(spark, table, new)
    assert _everything(spark, table) == _expected([OLD_ROWS[0], OLD_ROWS[2], *new])
    if not rewrite:
        files = _files_by_spec(_location(warehouse, namespace, "t"))
        assert len(files[0]) == 1  # category a's old file is kept, b's is gone


@pytest.mark.parametrize("rewrite", [False, True], ids=["old-spec-files", "rewritten-first"])
def test_dynamic_overwrite_of_a_partition_sharing_an_old_file_is_refused_or_exact(
    spark: SparkSession, namespace: str, warehouse: Path, rewrite: bool
) -> None:
    """(a, day 1) is overwritten: the old file of category a also holds a row of (a, day 2). It
    cannot be replaced whole, so the statement fails naming both specs and commits nothing; once
    the files are rewritten into the new spec, the same statement replaces exactly (a, day 1)."""
    table = f"floe.{namespace}.t"
    _evolved(spark, table, rewrite)
    location = _location(warehouse, namespace, "t")
    before = inspect.load_table_metadata(location)["current-snapshot-id"]
    new = [(10, "a", _ts(1, 7))]
    if rewrite:
        _overwrite_partitions(spark, table, new)
        assert _everything(spark, table) == _expected([OLD_ROWS[1], OLD_ROWS[2], *new])
        return
    with pytest.raises(Exception) as error:
        _overwrite_partitions(spark, table, new)
    message = str(error.value)
    assert f"Cannot overwrite partitions of table {namespace}.t dynamically" in message
    assert "partition spec 0 (category)" in message
    assert "current spec 1 (category, day(ts))" in message
    assert "rewrite_data_files" in message
    assert inspect.load_table_metadata(location)["current-snapshot-id"] == before
    assert _everything(spark, table) == _expected(OLD_ROWS)
    spark.sql(f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', {REWRITE_ALL})")
    _overwrite_partitions(spark, table, new)
    assert _everything(spark, table) == _expected([OLD_ROWS[1], OLD_ROWS[2], *new])


def test_dynamic_overwrite_after_dropping_a_field_replaces_old_files_it_covers(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """From (category, days(ts)) to (category): an old file's category decides, so overwriting
    category a replaces both old day files of a, and keeps b."""
    table = f"floe.{namespace}.t"
    _create(spark, table, "category, days(ts)")
    _insert(spark, table, OLD_ROWS)
    spark.sql(f"ALTER TABLE {table} DROP PARTITION FIELD ts_day")
    new = [(10, "a", _ts(5, 1))]
    _overwrite_partitions(spark, table, new)
    assert _everything(spark, table) == _expected([OLD_ROWS[1], *new])
