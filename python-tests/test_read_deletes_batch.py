"""Floe applies position deletes and deletion vectors batch by batch: for each batch of rows it
takes the deleted positions in the batch's range from the file's bitmap and moves the live rows
up in place (values, null flags, dictionary ids, string and collection offsets, struct children).

These tests pin the batch boundaries: rows deleted at the first and last position of a batch and
of the file, whole batches deleted, runs, scattered rows, under several read batch sizes
(``spark.sql.parquet.columnarReaderBatchSize``), on every kind of column (primitives, decimals of
each storage width, dictionary-encoded and plain strings in one column chunk, binary, structs,
arrays, maps, nulls), with ``_file`` and ``_pos`` read alongside. The deletes are written by the
Apache Iceberg Spark runtime (v2 position delete files, v3 deletion vectors) on a table of one
data file whose rows are sorted by ``id`` (so ``_pos == id``); Floe must return exactly Iceberg's
rows. Every test skips, saying why, when the Iceberg runtime jar is unavailable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from interop_tables import spark_rows

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS = 3000
BATCH_SIZE_KEY = "spark.sql.parquet.columnarReaderBatchSize"
COLUMNS = (
    "id BIGINT, i INT, s STRING, u STRING, dec DECIMAL(7, 2), dec_long DECIMAL(15, 3), "
    "dec_big DECIMAL(30, 5), f DOUBLE, r FLOAT, b BOOLEAN, dt DATE, ts TIMESTAMP, bin BINARY, "
    "st STRUCT<a: INT, b: STRING>, arr ARRAY<INT>, m MAP<STRING, INT>"
)
# nulls at several strides; s has few distinct values (dictionary pages), u many (the writer
# falls back from dictionary to plain pages inside the column chunk: the dictionary is tiny)
VALUES = (
    "id",
    "IF(id % 5 = 0, NULL, CAST(id * 3 AS INT)) AS i",
    "IF(id % 11 = 0, NULL, concat('s', CAST(id % 7 AS STRING))) AS s",
    "concat('unique-', CAST(id AS STRING), repeat('x', CAST(id % 13 AS INT))) AS u",
    "CAST(id % 10000 / 4.0 AS DECIMAL(7, 2)) AS dec",
    "IF(id % 6 = 0, NULL, CAST(id * 1000 + 0.125 AS DECIMAL(15, 3))) AS dec_long",
    "CAST(id * 100000000000 + 0.5 AS DECIMAL(30, 5)) AS dec_big",
    "id / 8.0 AS f",
    "CAST(id % 100 AS FLOAT) AS r",
    "id % 3 = 0 AS b",
    "date_add(DATE '2024-01-01', CAST(id % 400 AS INT)) AS dt",
    "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS ts",
    "IF(id % 4 = 0, NULL, CAST(concat('b', CAST(id AS STRING)) AS BINARY)) AS bin",
    "IF(id % 13 = 0, NULL, named_struct('a', IF(id % 2 = 0, NULL, CAST(id AS INT)), "
    "'b', concat('t', CAST(id % 9 AS STRING)))) AS st",
    "IF(id % 17 = 0, NULL, sequence(CAST(0 AS INT), CAST(id % 4 AS INT))) AS arr",
    "IF(id % 19 = 0, NULL, map('k', CAST(id AS INT), concat('v', CAST(id % 3 AS STRING)), 1)) AS m",
)
TABLE_PROPERTIES = {
    "write.delete.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.parquet.dict-size-bytes": "2048",
    "write.parquet.page-row-limit": "250",
}
# Positions (== ids) deleted by the first DELETE, around batch boundaries of 100 and 1: the first
# and last row of the file, a whole batch (200-299), the first/last rows of a batch (300, 399),
# a row just after a batch start (401), a run across a boundary (1090-1110) and scattered rows.
FIRST_DELETE = (
    "id IN (0, 2999, 300, 399, 401) OR id BETWEEN 200 AND 299 OR id BETWEEN 1090 AND 1110 "
    "OR (id BETWEEN 2000 AND 2998 AND id % 7 = 3)"
)
SECOND_DELETE = "id % 97 = 1 OR id BETWEEN 2500 AND 2599"


def _first_deleted(i: int) -> bool:
    return (
        i in (0, 2999, 300, 399, 401)
        or 200 <= i <= 299
        or 1090 <= i <= 1110
        or (2000 <= i <= 2998 and i % 7 == 3)
    )


def _second_deleted(i: int) -> bool:
    return i % 97 == 1 or 2500 <= i <= 2599


@pytest.fixture
def batch_size(spark: SparkSession) -> Iterator[Any]:
    """Sets the columnar read batch size for the test, restoring the session's afterwards."""
    previous = spark.conf.get(BATCH_SIZE_KEY, None)

    def set_size(rows: int) -> None:
        spark.conf.set(BATCH_SIZE_KEY, str(rows))

    yield set_size
    if previous is None:
        spark.conf.unset(BATCH_SIZE_KEY)
    else:
        spark.conf.set(BATCH_SIZE_KEY, previous)


def _create(spark: SparkSession, name: str, version: int) -> None:
    """One data file of ROWS rows sorted by id, written by Iceberg: row position == id."""
    props = {"format-version": str(version), **TABLE_PROPERTIES}
    tblproperties = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
    spark.sql(f"CREATE TABLE {name} ({COLUMNS}) USING iceberg TBLPROPERTIES ({tblproperties})")
    spark.range(ROWS).selectExpr(*VALUES).coalesce(1).sortWithinPartitions("id").writeTo(
        name
    ).append()


PROJECTIONS = (
    "SELECT id FROM {}",
    "SELECT u FROM {}",
    "SELECT s, st.b FROM {}",
    "SELECT dec_big, m, arr FROM {}",
    "SELECT _pos, dec FROM {}",
    "SELECT id, u FROM {} WHERE id BETWEEN 150 AND 450 OR id > 2990",
)


def _check(
    spark: SparkSession,
    iceberg_name: str,
    floe_name: str,
    live: set[int],
    data_file: str,
    batch_size: Any,
    batch_sizes: tuple[int, ...],
) -> None:
    """Under each batch size, Floe's rows are Iceberg's, on every column and on narrow
    projections, and ``_pos`` is the id (Iceberg's rows are read once: they do not depend on
    Floe's batch size)."""
    expected = spark_rows(spark, iceberg_name)
    assert sorted(r[0] for r in expected) == sorted(live)
    projected = {q: spark_rows(spark, q.format(iceberg_name)) for q in PROJECTIONS}
    for rows in batch_sizes:
        batch_size(rows)
        assert spark_rows(spark, floe_name) == expected, rows
        positions = spark.sql(f"SELECT _file, _pos, id FROM {floe_name}").collect()
        assert sorted(r[2] for r in positions) == sorted(live)
        assert all(r[1] == r[2] and r[0] == data_file for r in positions)
        for query, want in projected.items():
            assert spark_rows(spark, query.format(floe_name)) == want, (rows, query)
        assert spark.sql(f"SELECT count(*) FROM {floe_name}").collect()[0][0] == len(live)


@pytest.mark.parametrize("version", [2, 3], ids=["v2-position-deletes", "v3-deletion-vectors"])
def test_deletes_at_batch_boundaries(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    warehouse: Path,
    batch_size: Any,
    version: int,
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"
    _create(spark, iceberg_name, version)
    data_files = [f for f in inspect.table_files(location) if f["content"] == 0]
    assert len(data_files) == 1
    data_file = data_files[0]["file_path"]
    live = set(range(ROWS))

    spark.sql(f"DELETE FROM {iceberg_name} WHERE {FIRST_DELETE}")
    live = {i for i in live if not _first_deleted(i)}
    _check(spark, iceberg_name, floe_name, live, data_file, batch_size, (100, 4096))
    batch_size(1)  # one row per batch: most batches deleted whole
    assert spark_rows(spark, f"SELECT *, _pos FROM {floe_name}") == spark_rows(
        spark, f"SELECT *, _pos FROM {iceberg_name}"
    )

    # a second delete: another position delete file (v2) or a merged vector (v3)
    spark.sql(f"DELETE FROM {iceberg_name} WHERE {SECOND_DELETE}")
    live = {i for i in live if not _second_deleted(i)}
    deletes = [f for f in inspect.table_files(location) if f["content"] == 1]
    assert {f["file_format"] for f in deletes} == {"PARQUET" if version == 2 else "PUFFIN"}
    _check(spark, iceberg_name, floe_name, live, data_file, batch_size, (100, 37))

    # an UPDATE deletes rows and adds them to a new file: both files read right
    spark.sql(f"UPDATE {iceberg_name} SET u = concat(u, '+') WHERE id BETWEEN 1500 AND 1520")
    batch_size(100)
    expected = spark_rows(spark, iceberg_name)
    assert spark_rows(spark, floe_name) == expected
    updated = spark.sql(f"SELECT u FROM {floe_name} WHERE id BETWEEN 1500 AND 1520").collect()
    assert updated and all(r[0].endswith("+") for r in updated)


@pytest.mark.parametrize("version", [2, 3], ids=["v2-position-deletes", "v3-deletion-vectors"])
def test_every_row_of_a_file_deleted(
    spark: SparkSession, iceberg: str, namespace: str, batch_size: Any, version: int
) -> None:
    """A file whose rows are all deleted yields no batch at all; the other file still reads."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    _create(spark, iceberg_name, version)
    spark.range(ROWS, ROWS + 50).selectExpr(*VALUES).coalesce(1).writeTo(iceberg_name).append()
    # not a metadata-only delete: the second file keeps rows, the first loses them all
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id < {ROWS} OR id % 2 = 0")
    for rows in (100, 4096):
        batch_size(rows)
        assert spark_rows(spark, floe_name) == spark_rows(spark, iceberg_name)
        got = spark.sql(f"SELECT id, _pos FROM {floe_name}").collect()
        assert sorted(r[0] for r in got) == [i for i in range(ROWS, ROWS + 50) if i % 2 == 1]
        assert all(r[1] == r[0] - ROWS for r in got)


def test_deletion_vectors_of_many_files_in_one_task(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, batch_size: Any
) -> None:
    """Small files are combined into few read tasks; their vectors share Puffin files, which a
    task reads once for all its files. Every file still gets exactly its own vector."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    location = f"{floe.warehouse_uri(str(warehouse))}/{namespace}/t"
    spark.sql(
        f"CREATE TABLE {iceberg_name} (id BIGINT, p INT, u STRING) USING iceberg "
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version'='3', "
        "'write.delete.mode'='merge-on-read')"
    )
    for k in range(3):
        spark.range(k * 600, (k + 1) * 600).selectExpr(
            "id", "CAST(id % 8 AS INT) AS p", "concat('u', CAST(id AS STRING)) AS u"
        ).writeTo(iceberg_name).append()
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id % 10 IN (1, 4) OR id BETWEEN 700 AND 760")
    dvs = [f for f in inspect.table_files(location) if f["content"] == 1]
    data = [f for f in inspect.table_files(location) if f["content"] == 0]
    assert len(dvs) == len(data) > 8
    assert len({f["file_path"] for f in dvs}) < len(dvs), "vectors share Puffin files"
    for rows in (64, 4096):
        batch_size(rows)
        assert spark_rows(spark, floe_name) == spark_rows(spark, iceberg_name)
        got = {r[0] for r in spark.sql(f"SELECT id FROM {floe_name}").collect()}
        assert got == {i for i in range(1800) if i % 10 not in (1, 4) and not 700 <= i <= 760}
    floe_pos = spark_rows(spark, f"SELECT _file, _pos, id FROM {floe_name}")
    assert floe_pos == spark_rows(spark, f"SELECT _file, _pos, id FROM {iceberg_name}")

    # vectors are read at their manifest offsets only: a damaged Puffin footer does not matter
    expected = spark_rows(spark, iceberg_name)
    for puffin in {f["file_path"] for f in dvs}:
        path = local_path(puffin)
        path.with_name(f".{path.name}.crc").unlink(missing_ok=True)  # Hadoop's checksum file
        content = bytearray(path.read_bytes())
        content[-4:] = b"XXXX"  # the closing magic
        path.write_bytes(bytes(content))
    assert spark_rows(spark, floe_name) == expected


def test_columns_missing_from_the_file(
    spark: SparkSession, iceberg: str, namespace: str, batch_size: Any
) -> None:
    """Columns added after the file was written (a top-level one and a struct child) read as
    nulls in the file's batches, with rows deleted around them."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    _create(spark, iceberg_name, 3)
    spark.sql(f"ALTER TABLE {iceberg_name} ADD COLUMNS (added BIGINT, st.c STRING)")
    spark.sql(f"DELETE FROM {iceberg_name} WHERE id % 3 = 1 OR id BETWEEN 100 AND 180")
    spark.range(ROWS, ROWS + 10).selectExpr(
        *VALUES[:-3],
        "named_struct('a', 1, 'b', 'x', 'c', 'new') AS st",
        *VALUES[-2:],
        "id AS added",
    ).writeTo(iceberg_name).append()
    for rows in (100, 4096):
        batch_size(rows)
        assert spark_rows(spark, floe_name) == spark_rows(spark, iceberg_name)
        query = "SELECT id, added, st.c FROM {} WHERE id % 10 IN (0, 2)"
        assert spark_rows(spark, query.format(floe_name)) == spark_rows(
            spark, query.format(iceberg_name)
        )
