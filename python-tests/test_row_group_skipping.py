"""Skipping inside data files: a query's filters let Parquet skip the pages (column index) and
row groups (statistics) of a data file where no row can match, as Spark's own Parquet source does;
then the reader drops the rows that fail an ``=`` or ``IN`` filter on a top-level integer or
string column before they reach Spark.

Spark still evaluates every filter on the rows read, so skipping only changes how many rows the
scan returns, which its ``numOutputRows`` metric shows; the answers are compared with the same
query on a temp view of the same rows. Skipping must never lose a matching row: not for a column
renamed since the file was written, nor for a dropped column whose name a new column reuses (the
file's column of that name is another column), nor for a row-level operation, which rewrites every
row of the files it touches. Where row positions count (deletes, ``_pos``), Spark's reader
reports each row's position in the file, so skipped pages shift none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

# these tests look at the scan node of a Spark job (its metrics, partitioning, plan), which a
# small scan read on the driver (FloeLocalRead) does not have
pytestmark = pytest.mark.usefixtures("job_scans")

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROWS = 20_000
#: 1,000 rows per page: one file of 20 pages per column, sorted by id
PROPS = "'write.parquet.page-row-limit' = '1000', 'write.distribution-mode' = 'none'"


def scanned_rows(df: DataFrame) -> tuple[list[tuple[object, ...]], int]:
    """The rows of ``df`` (sorted) and the rows its data source scans returned in all."""
    rows = sorted(tuple(r) for r in df.collect())
    plan = df._jdf.queryExecution().executedPlan()
    if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
        plan = plan.finalPhysicalPlan()
    total, scans = 0, 0
    stack = [plan]
    while stack:
        node = stack.pop()
        name = node.getClass().getSimpleName()
        if name == "BatchScanExec":
            total += int(node.metrics().apply("numOutputRows").value())
            scans += 1
        if name.endswith("QueryStageExec"):  # a stage of adaptive execution: its plan
            stack.append(node.plan())
            continue
        children = node.children()
        stack += [children.apply(i) for i in range(children.length())]
    assert scans, f"no data source scan in {plan}"
    return rows, total


def make_table(spark: SparkSession, table: str) -> None:
    spark.sql(f"CREATE TABLE {table} (id BIGINT, v BIGINT, s STRING) TBLPROPERTIES ({PROPS})")
    spark.range(ROWS).selectExpr("id", "id * 7 AS v", "concat('s', id) AS s").repartition(
        1
    ).sortWithinPartitions("id").writeTo(table).append()


def test_a_selective_filter_reads_only_the_pages_that_can_match(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    make_table(spark, table)
    spark.range(ROWS).selectExpr(
        "id", "id * 7 AS v", "concat('s', id) AS s"
    ).createOrReplaceTempView("skip_expected")
    for where in (
        "id BETWEEN 5000 AND 5099",
        "id = 12345",
        "id IN (3, 19999)",
        "v >= 7 * 19500",
        "id < 1500 AND s LIKE 's1%'",
        "id = 7 OR id = 15007",
        "NOT (id >= 1000)",
    ):
        rows, scanned = scanned_rows(spark.sql(f"SELECT id, v FROM {table} WHERE {where}"))
        expected = sorted(
            tuple(r) for r in spark.sql(f"SELECT id, v FROM skip_expected WHERE {where}").collect()
        )
        assert rows == expected and rows, where
        assert scanned <= 2_000 + len(rows), (where, scanned)  # whole pages, never the file
    # Parquet's own switch turns page skipping off (the file is one row group); a range is not
    # checked row by row in the reader (see the test below), so every row comes back
    spark.sql("SET parquet.filter.columnindex.enabled=false")
    try:
        rows, scanned = scanned_rows(spark.sql(f"SELECT id FROM {table} WHERE id BETWEEN 7 AND 8"))
        assert rows == [(7,), (8,)] and scanned == ROWS
    finally:
        spark.sql("RESET parquet.filter.columnindex.enabled")
    # a filter no page can rule out reads every row; no filter too
    total = 7 * ROWS * (ROWS - 1) // 2
    rows, scanned = scanned_rows(spark.sql(f"SELECT count(*), sum(v) FROM {table} WHERE s <> 'x'"))
    assert rows == [(ROWS, total)] and scanned == ROWS, scanned


def test_equality_and_in_filters_drop_failing_rows_in_the_reader(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.r"
    # k in a scrambled order, so no page can be skipped; c has 3 values (dictionary-encoded)
    spark.sql(f"CREATE TABLE {table} (k BIGINT, i INT, s STRING, c STRING) TBLPROPERTIES ({PROPS})")
    spark.range(ROWS).selectExpr(
        "(id * 7919) % 20011 AS k",
        "CASE WHEN id % 10 = 0 THEN NULL ELSE CAST(id AS INT) END AS i",
        "concat('s', id) AS s",
        "element_at(array('red', 'green', 'blue'), CAST(id % 3 AS INT) + 1) AS c",
    ).repartition(1).writeTo(table).append()
    spark.table(table).createOrReplaceTempView("rows_expected")
    for where, decided in (
        ("k = 7919", None),
        ("k IN (0, 7919, 15838, 20010, 99999)", None),
        ("i IN (5, 10, 11, NULL)", None),  # i is NULL where id % 10 = 0, so 10 never matches
        ("s = 's123'", None),
        ("s IN ('s1', 's22', 'nope', 's19999')", None),
        ("k <=> 7919", None),
        ("c = 'green' AND k < 100", "c = 'green'"),  # the reader checks only c = 'green'
    ):
        rows, scanned = scanned_rows(spark.sql(f"SELECT * FROM {table} WHERE {where}"))
        expected = sorted(
            tuple(r) for r in spark.sql(f"SELECT * FROM rows_expected WHERE {where}").collect()
        )
        assert rows == expected and rows, where
        want = spark.sql(f"SELECT count(*) FROM rows_expected WHERE {decided or where}").first()
        assert want is not None and scanned == want[0], (where, scanned, want)
    # filters it cannot decide row by row return every row to Spark, which filters them
    for where in ("k = 7919 OR s = 's5'", "NOT (k IN (1, 2))", "k + 1 = 7920", "upper(s) = 'S5'"):
        rows, scanned = scanned_rows(spark.sql(f"SELECT k FROM {table} WHERE {where}"))
        expected = sorted(
            tuple(r) for r in spark.sql(f"SELECT k FROM rows_expected WHERE {where}").collect()
        )
        assert rows == expected and rows, where
        assert scanned == ROWS, (where, scanned)


def test_renamed_and_reused_column_names_never_skip_matching_rows(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    make_table(spark, table)
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN id TO key")
    rows, scanned = scanned_rows(spark.sql(f"SELECT key FROM {table} WHERE key = 4321"))
    assert rows == [(4321,)] and scanned <= 1_000  # found through the field id
    # the file's column v is not the new column v: every old row has v NULL
    spark.sql(f"ALTER TABLE {table} DROP COLUMN v")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN v BIGINT")
    rows, scanned = scanned_rows(spark.sql(f"SELECT count(*), min(s) FROM {table} WHERE v IS NULL"))
    assert rows == [(ROWS, "s0")] and scanned == ROWS, scanned
    rows, _ = scanned_rows(spark.sql(f"SELECT count(*) FROM {table} WHERE v = 7"))
    assert rows == [(0,)]


def test_files_with_deleted_rows_skip_pages_and_keep_each_rows_position(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.t"
    make_table(spark, table)
    spark.sql(
        f"ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read', "
        "'write.update.mode' = 'copy-on-write')"
    )
    spark.sql(f"DELETE FROM {table} WHERE id % 1000 = 999")  # a deletion vector on the file
    # the deletion vector and _pos count positions in the file: Spark's reader reports each row's
    # position, so pages are skipped here too (two pages read, not twenty)
    rows, scanned = scanned_rows(
        spark.sql(f"SELECT id FROM {table} WHERE id BETWEEN 5990 AND 6010")
    )
    assert rows == [(i,) for i in range(5990, 6011) if i != 5999]
    assert scanned <= 2_000, scanned
    rows, scanned = scanned_rows(
        spark.sql(f"SELECT id, _pos FROM {table} WHERE id BETWEEN 14990 AND 15010")
    )
    assert rows == [(i, i) for i in range(14990, 15011) if i != 14999]
    assert scanned <= 2_000, scanned
    # pages far apart come back in one batch, with gaps between their rows' positions
    where = "id BETWEEN 10 AND 12 OR id BETWEEN 15998 AND 16001"
    rows, scanned = scanned_rows(spark.sql(f"SELECT id, _pos FROM {table} WHERE {where}"))
    assert rows == [(i, i) for i in (10, 11, 12, 15998, 16000, 16001)]
    assert scanned <= 3_000, scanned
    rows, _ = scanned_rows(spark.sql(f"SELECT id, _pos FROM {table} WHERE id IN (10, 15000)"))
    assert rows == [(10, 10), (15000, 15000)]
    # copy-on-write UPDATE rewrites the whole file: no row outside the filter may be lost
    spark.sql(f"UPDATE {table} SET v = -1 WHERE id = 12000")
    assert spark.sql(f"SELECT count(*), sum(v) FROM {table}").collect()[0] == (
        ROWS - ROWS // 1000,
        sum(7 * i for i in range(ROWS) if i % 1000 != 999) - 7 * 12000 - 1,
    )


def test_columns_with_spaces_dots_and_unicode_in_their_names_skip_too(
    spark: SparkSession, namespace: str
) -> None:
    table = f"floe.{namespace}.`odd table`"
    spark.sql(
        f"CREATE TABLE {table} (`a b` BIGINT, `x.y` BIGINT, `ünï` STRING) TBLPROPERTIES ({PROPS})"
    )
    spark.range(ROWS).selectExpr(
        "id AS `a b`", "id * 3 AS `x.y`", "format_string('k%05d', id) AS `ünï`"
    ).repartition(1).sortWithinPartitions("`a b`").writeTo(table).append()
    for where, expected in (
        ("`a b` = 777", [(777,)]),
        ("`x.y` BETWEEN 30000 AND 30005", [(10000,), (10001,)]),
        ("`ünï` = 'k12345'", [(12345,)]),
    ):
        rows, scanned = scanned_rows(spark.sql(f"SELECT `a b` FROM {table} WHERE {where}"))
        assert rows == expected and scanned <= 1_000, (where, scanned)


def test_files_the_iceberg_runtime_wrote_skip_by_field_id(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {iceberg_name} (id BIGINT, v BIGINT) USING iceberg "
        "TBLPROPERTIES ('write.parquet.page-row-limit' = '1000', "
        "'write.distribution-mode' = 'none')"
    )
    spark.range(ROWS).selectExpr("id", "id * 7 AS v").repartition(1).sortWithinPartitions(
        "id"
    ).writeTo(iceberg_name).append()
    spark.sql(f"ALTER TABLE {iceberg_name} RENAME COLUMN id TO key")
    rows, scanned = scanned_rows(spark.sql(f"SELECT key, v FROM {floe_name} WHERE key = 4321"))
    assert rows == [(4321, 7 * 4321)] and scanned <= 1_000, scanned
    rows, scanned = scanned_rows(
        spark.sql(f"SELECT count(*), sum(key) FROM {floe_name} WHERE v >= 0")
    )
    assert rows == [(ROWS, ROWS * (ROWS - 1) // 2)] and scanned == ROWS


def test_a_column_named_as_sparks_row_index_column_is_read_from_the_file(
    spark: SparkSession, namespace: str
) -> None:
    # Spark's reader fills a requested column of that name with row positions: the table's column
    # is requested under another name, and where a file holds a column of that name, whether the
    # query selects it or not, the reader counts positions for that file instead of asking Spark
    table = f"floe.{namespace}.row_index_name"
    spark.sql(
        f"CREATE TABLE {table} (id BIGINT, _tmp_metadata_row_index BIGINT) "
        f"TBLPROPERTIES ({PROPS}, 'write.delete.mode' = 'merge-on-read')"
    )
    spark.range(ROWS).selectExpr("id", "id % 10 AS _tmp_metadata_row_index").repartition(
        1
    ).sortWithinPartitions("id").writeTo(table).append()  # few values: dictionary pages
    spark.sql(f"DELETE FROM {table} WHERE id = 5000")
    where = "WHERE id BETWEEN 4999 AND 5001"
    rows, _ = scanned_rows(
        spark.sql(f"SELECT id, _tmp_metadata_row_index, _pos FROM {table} {where}")
    )
    assert rows == [(4999, 9, 4999), (5001, 1, 5001)]
    rows, _ = scanned_rows(spark.sql(f"SELECT id, _pos FROM {table} {where}"))
    assert rows == [(4999, 4999), (5001, 5001)]
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN _tmp_metadata_row_index TO v")
    rows, _ = scanned_rows(spark.sql(f"SELECT id, v, _pos FROM {table} {where}"))
    assert rows == [(4999, 9, 4999), (5001, 1, 5001)]
    rows, _ = scanned_rows(spark.sql(f"SELECT id FROM {table} {where}"))
    assert rows == [(4999,), (5001,)]


def test_a_file_without_field_ids_and_a_column_of_that_name_fails_naming_it(
    spark: SparkSession, namespace: str
) -> None:
    table = f"{namespace}.row_index_plain"
    spark.sql(f"CREATE TABLE floe.{table} (id BIGINT, _tmp_metadata_row_index BIGINT)")
    text = next(
        str(r[1])
        for r in spark.sql(f"DESCRIBE TABLE EXTENDED floe.{table}").collect()
        if r[0] == "Location"
    )
    folder = text.removeprefix("file://").removeprefix("file:") + "/data/plain"
    spark.range(10).selectExpr("id", "id * 3 AS _tmp_metadata_row_index").coalesce(1).write.parquet(
        folder
    )  # plain Spark: no field ids
    spark.sql(
        f"CALL floe.system.add_files(table => '{table}', source_table => '`parquet`.`{folder}`')"
    ).collect()
    with pytest.raises(Exception, match="field ids") as failure:
        spark.sql(f"SELECT * FROM floe.{table}").collect()
    assert ".parquet" in str(failure.value) and "schema.name-mapping.default" in str(failure.value)
