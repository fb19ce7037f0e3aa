"""Smaller problems found on the way (issue 10, point 9), each through a Floe session.

- With ``write.distribution-mode=hash``, a small ``write.target-file-size-bytes`` and adaptive
  execution on, each partition gets one file (the advisory task size is at least Spark's own, not
  the tiny target), not one per piece adaptive execution split the shuffle into.
- ``t.branch_<name>`` reads and writes the branch (docs/branches.md); an unknown ref is named as
  such.
- ``rewrite_data_files`` checks ``sort_order`` before reading anything: unknown columns are named,
  ``zorder(...)`` and transforms are refused as unsupported, and the table is left unchanged.
- A data or delete file removed from storage by hand fails the read with a message naming the
  table, the snapshot, the file and what to do, through Spark's task failure.
- CHAR(n) and VARCHAR(n) columns are refused by CREATE TABLE (also AS SELECT, REPLACE) and ALTER
  TABLE ... ADD COLUMN, naming the column and the way out (STRING or a CAST, or Spark's legacy
  char/varchar-as-string setting).
- An identity partition value whose escaped folder name would pass the file system's name limit
  (300 characters, multibyte ones) is written under a shortened, hashed folder; Spark, pyiceberg
  and Iceberg's runtime read it back by the partition tuple of the manifests.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from jvm_tables import table_ops
from row_level_tables import location, pyiceberg_rows

import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _snapshot_ids(spark: SparkSession, table: str) -> list[int]:
    return [r[0] for r in spark.sql(f"SELECT snapshot_id FROM {table}.snapshots").collect()]


# ---- branch_<name> / tag_<name> -----------------------------------------------------------------


@pytest.fixture
def with_branch(spark: SparkSession, warehouse: Path, namespace: str) -> str:
    """floe.<ns>.t with rows [1], then [2]; branch ``audit`` at the first snapshot."""
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    first = _snapshot_ids(spark, table)[0]
    spark.sql(f"INSERT INTO {table} VALUES (2)")
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    ops = table_ops(spark, warehouse, namespace, "t")
    base = ops.refresh()
    metadata = jvm.io.floe.format.metadata
    updated = (
        metadata.TableMetadata.buildFrom(base)
        .setRef("audit", metadata.SnapshotRef.branch(first))
        .build()
    )
    ops.commit(base, updated)
    return table


def test_branch_suffix_reads_and_writes_the_branch(spark: SparkSession, with_branch: str) -> None:
    rows = spark.sql(f"SELECT id FROM {with_branch}.branch_audit").collect()
    assert [r.id for r in rows] == [1]
    spark.sql(f"INSERT INTO {with_branch}.branch_audit VALUES (3)")
    rows = spark.sql(f"SELECT id FROM {with_branch} VERSION AS OF 'audit'").collect()
    assert sorted(r.id for r in rows) == [1, 3]
    assert sorted(r.id for r in spark.table(with_branch).collect()) == [1, 2]


@pytest.mark.parametrize("suffix", ["branch_nosuch", "tag_nosuch", "tag_audit"])
def test_unknown_branch_or_tag_suffix_names_the_missing_ref(
    spark: SparkSession, with_branch: str, suffix: str
) -> None:
    kind = suffix.split("_", 1)[0]
    ref = suffix.split("_", 1)[1]
    with pytest.raises(Exception) as raised:
        spark.sql(f"SELECT * FROM {with_branch}.{suffix}").collect()
    message = str(raised.value)
    assert f"has no {kind} named '{ref}'" in message, message
    assert "audit" in message and "main" in message  # the refs it does have


def test_other_unknown_names_still_list_the_metadata_tables(
    spark: SparkSession, with_branch: str
) -> None:
    with pytest.raises(Exception, match=r"Unknown metadata table .*snapshots, history"):
        spark.sql(f"SELECT * FROM {with_branch}.nosuch").collect()


# ---- rewrite_data_files sort_order --------------------------------------------------------------


@pytest.fixture
def small_files(spark: SparkSession, namespace: str) -> str:
    """floe.<ns>.r with six small files (enough for a rewrite group)."""
    table = f"floe.{namespace}.r"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, name STRING, s STRUCT<x: INT>) USING floe")
    for i in range(6):
        spark.sql(f"INSERT INTO {table} VALUES ({i}, 'n{i}', named_struct('x', {i}))")
    return table


def _rewrite(spark: SparkSession, table: str, sort_order: str) -> None:
    short = table.split(".", 1)[1]
    spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{short}', strategy => 'sort', "
        f"sort_order => '{sort_order}')"
    ).collect()


@pytest.mark.parametrize(
    ("sort_order", "expected"),
    [
        ("nosuch", "sort_order column nosuch does not exist; the table's columns are id, name, s"),
        ("id DESC, nosuch NULLS LAST", "sort_order column nosuch does not exist"),
        ("s.nosuch", "sort_order column s.nosuch does not exist"),
        ("zorder(id)", "z-order, which Floe does not support"),
        ("ZORDER(id, name)", "z-order, which Floe does not support"),
        ("bucket(4, id)", "sorting by a transform or expression is not supported"),
    ],
)
def test_invalid_sort_order_is_refused_up_front(
    spark: SparkSession, small_files: str, sort_order: str, expected: str
) -> None:
    before = _snapshot_ids(spark, small_files)
    with pytest.raises(Exception) as raised:
        _rewrite(spark, small_files, sort_order)
    message = str(raised.value)
    assert expected in message, message
    assert "IllegalStateException" not in message
    assert _snapshot_ids(spark, small_files) == before


def test_valid_sort_orders_still_rewrite(spark: SparkSession, small_files: str) -> None:
    for sort_order in ("ID desc", "`name` NULLS LAST, id", "s.x DESC"):
        _rewrite(spark, small_files, sort_order)
    assert spark.sql(f"SELECT count(*) FROM {small_files}").collect()[0][0] == 6


# ---- files deleted by hand ----------------------------------------------------------------------


def _live_files(spark: SparkSession, table: str, content: int) -> list[str]:
    rows = spark.sql(f"SELECT file_path FROM {table}.files WHERE content = {content}").collect()
    return [r.file_path for r in rows]


def test_missing_data_file_names_table_snapshot_file_and_remedy(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.m"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES (1)")
    spark.sql(f"INSERT INTO {table} VALUES (2)")
    current = spark.sql(
        f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC LIMIT 1"
    ).collect()[0][0]
    [gone, *_] = _live_files(spark, table, 0)
    local_path(gone).unlink()

    for query in (f"SELECT * FROM {table}", f"SELECT count(*) FROM {table} WHERE id > 0"):
        with pytest.raises(Exception) as raised:
            spark.sql(query).collect()
        message = str(raised.value)
        assert f"Cannot read table {table} at snapshot {current}" in message, message
        assert f"its data file {gone} does not exist" in message
        assert "remove_orphan_files" in message
        assert f"CALL floe.system.rollback_to_snapshot(table => '{namespace}.m'" in message


def test_missing_delete_file_is_named_as_such(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    table = f"floe.{namespace}.d"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT) USING floe TBLPROPERTIES ("
        "'format-version' = '2', 'write.delete.mode' = 'merge-on-read')"
    )
    spark.sql(f"INSERT INTO {table} VALUES (1), (2), (3)")
    spark.sql(f"DELETE FROM {table} WHERE id = 2")
    deletes = _live_files(spark, table, 1)
    assert len(deletes) == 1, deletes
    local_path(deletes[0]).unlink()
    metadata = inspect.load_table_metadata(str(warehouse / namespace / "d"))
    with pytest.raises(Exception) as raised:
        spark.sql(f"SELECT * FROM {table}").collect()
    message = str(raised.value)
    expected = f"at snapshot {metadata['current-snapshot-id']}: its delete file {deletes[0]}"
    assert expected in message, message


# ---- long partition values ----------------------------------------------------------------------

LONG_VALUES = {
    1: "x" * 300,
    2: "\u00e9" * 150,  # 2 UTF-8 bytes each: 900 characters escaped
    3: "\U0001f600" * 80 + "/=%",  # 4 UTF-8 bytes each, and characters that need escaping
    4: "short",
}


def test_long_identity_partition_values_are_written_and_read_back(
    spark: SparkSession, warehouse: Path, namespace: str, iceberg: str
) -> None:
    table = f"floe.{namespace}.lp"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe PARTITIONED BY (s)")
    spark.createDataFrame(list(LONG_VALUES.items()), "id BIGINT, s STRING").writeTo(table).append()
    # copy-on-write DELETE rewrites a file of a shortened folder; then one more file there
    spark.sql(f"INSERT INTO {table} VALUES (5, '{'x' * 300}')")
    spark.sql(f"DELETE FROM {table} WHERE id = 1")
    spark.sql(f"INSERT INTO {table} VALUES (1, '{'x' * 300}')")

    expected = sorted({**LONG_VALUES, 5: "x" * 300}.items())
    assert sorted(tuple(r) for r in spark.table(table).collect()) == expected
    where = f"SELECT * FROM {table} WHERE s = '{'x' * 300}'"
    assert sorted(tuple(r) for r in spark.sql(where).collect()) == [(1, "x" * 300), (5, "x" * 300)]
    files = spark.sql(f"SELECT file_path, partition.s AS s FROM {table}.files").collect()
    assert {f.s for f in files} == set(LONG_VALUES.values())
    for f in files:
        folder = Path(local_path(f.file_path)).parent.name
        assert len(folder.encode()) <= 128, folder
    # the folders of one value are the same; of different values, different
    folders = {(f.s, Path(local_path(f.file_path)).parent.name) for f in files}
    assert len(folders) == len(LONG_VALUES)

    table_location = location(warehouse, namespace, "lp")
    assert pyiceberg_rows(table_location, ["id", "s"]) == sorted(expected, key=repr)
    iceberg_rows = spark.sql(f"SELECT id, s FROM {iceberg}.{namespace}.lp").collect()
    assert sorted(tuple(r) for r in iceberg_rows) == expected


# ---- CHAR / VARCHAR -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("columns", "column", "type_"),
    [
        ("id BIGINT, s VARCHAR(10)", "s", "varchar(10)"),
        ("id BIGINT, c CHAR(3)", "c", "char(3)"),
        ("id BIGINT, st STRUCT<a: INT, b: VARCHAR(2)>", "st.b", "varchar(2)"),
        ("id BIGINT, arr ARRAY<CHAR(1)>", "arr.element", "char(1)"),
    ],
)
def test_char_and_varchar_columns_are_refused_at_create(
    spark: SparkSession, namespace: str, columns: str, column: str, type_: str
) -> None:
    table = f"floe.{namespace}.v"
    with pytest.raises(Exception) as raised:
        spark.sql(f"CREATE TABLE {table} ({columns}) USING floe")
    message = str(raised.value)
    assert f"Cannot create table {table}: unsupported type {type_} for column {column}" in message
    assert "Declare the column STRING" in message
    assert "spark.sql.legacy.charVarcharAsString" in message
    assert not spark.catalog.tableExists(table)


def test_varchar_column_is_refused_by_add_column(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.v"
    spark.sql(f"CREATE TABLE {table} (id BIGINT) USING floe")
    with pytest.raises(Exception, match="unsupported type varchar\\(4\\) for column c"):
        spark.sql(f"ALTER TABLE {table} ADD COLUMN c VARCHAR(4)")
    assert spark.table(table).columns == ["id"]


@pytest.fixture
def char_varchar_as_string(spark: SparkSession) -> Iterator[None]:
    key = "spark.sql.legacy.charVarcharAsString"
    spark.conf.set(key, "true")
    yield
    spark.conf.unset(key)


@pytest.mark.usefixtures("char_varchar_as_string")
def test_legacy_setting_creates_string_columns(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.v"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s VARCHAR(3)) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES (1, 'longer than three')")
    assert [r.s for r in spark.table(table).collect()] == ["longer than three"]
    assert spark.table(table).schema["s"].dataType.simpleString() == "string"


def test_table_from_a_query_over_a_varchar_column_is_refused_unless_cast(
    spark: SparkSession, namespace: str, tmp_path: Path
) -> None:
    source = f"spark_catalog.default.{namespace}_src"
    spark.sql(
        f"CREATE TABLE {source} (id BIGINT, s VARCHAR(5)) USING parquet "
        f"LOCATION '{tmp_path / 'src'}'"
    )
    try:
        spark.sql(f"INSERT INTO {source} VALUES (1, 'abc')")
        table = f"floe.{namespace}.c"
        for statement in (
            f"CREATE TABLE {table} USING floe AS SELECT * FROM {source}",
            f"CREATE OR REPLACE TABLE {table} USING floe AS SELECT * FROM {source}",
            f"CREATE OR REPLACE TABLE {table} (id BIGINT, s VARCHAR(5)) USING floe",
        ):
            with pytest.raises(Exception, match="unsupported type varchar\\(5\\) for column s"):
                spark.sql(statement)
        assert not spark.catalog.tableExists(table)
        spark.sql(
            f"CREATE TABLE {table} USING floe AS SELECT id, CAST(s AS STRING) AS s FROM {source}"
        )
        assert spark.table(table).schema["s"].dataType.simpleString() == "string"
        assert [tuple(r) for r in spark.table(table).collect()] == [(1, "abc")]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {source}")


# ---- hash distribution with a small target file size --------------------------------------------


def test_small_target_file_size_still_writes_one_file_per_partition(
    spark: SparkSession, namespace: str
) -> None:
    assert spark.conf.get("spark.sql.adaptive.enabled") == "true"
    table = f"floe.{namespace}.h"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, p INT, s STRING) USING floe PARTITIONED BY (p) "
        "TBLPROPERTIES ('write.distribution-mode' = 'hash', "
        "'write.target-file-size-bytes' = '65536')"
    )
    # 8 source tasks: adaptive execution can split a shuffle partition into up to 8 pieces
    spark.sql(
        f"INSERT INTO {table} SELECT id, CAST(id % 200 AS INT), repeat(CAST(id AS STRING), 5) "
        "FROM range(0, 60000, 1, 8)"
    )
    rows = spark.sql(
        f"SELECT partition.p AS p, count(*) AS n, max(file_size_in_bytes) AS size "
        f"FROM {table}.files GROUP BY partition.p"
    ).collect()
    assert len(rows) == 200
    assert {r.n for r in rows} == {1}, sorted((r.p, r.n) for r in rows if r.n > 1)[:10]
    assert max(r.size for r in rows) < 65536  # each partition's rows fit one file of the target
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 60000
