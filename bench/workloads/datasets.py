"""Shared inputs of the benchmark suite, generated once (and reused while their parameters hold)
under the suite's inputs directory; every engine reads the very same Parquet files.

D1 "store_sales-like" (scaled to this 2-core box): 12 columns (6 BIGINT/INT, 2
DECIMAL, 1 DATE, 3 STRING), Hive-partitioned by ``ss_month`` (36 months, yyyymm; directories
``ss_month=yyyymm``, and the files hold the column too), one zstd file per month, rows sorted
by ``ss_item_sk`` within each file (clustered). 6M rows (quick: 600K) instead of 30M so that
W1-W9 fit their time budgets.

D2 "lookup": ``id`` unique (a bijective scramble of 0..n-1, random-looking BIGINT), ``tag`` (1e5
distinct values, STRING) and 6 payload columns; 5M rows in 100 files (quick: 500K in 20 files).

Many files (W12's import): D2's first 1M rows in 1,000 files (quick: 200K in 200).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

D1_ROWS = 6_000_000
D1_ROWS_QUICK = 600_000
D1_MONTHS = 36
D1_PARTITION = "ss_month"
D1_COLUMNS = [
    "ss_item_sk", "ss_customer_sk", "ss_ticket_number", "ss_store_sk", "ss_quantity",
    "ss_sales_price", "ss_net_profit", "ss_sold_date", "ss_channel", "ss_customer_name",
    "ss_comment", D1_PARTITION,
]  # fmt: skip
#: Distinct items; ``ss_item_sk BETWEEN 0 AND D1_ITEMS // 100 - 1`` selects about 1% of rows.
D1_ITEMS = 200_000

D2_ROWS = 5_000_000
D2_ROWS_QUICK = 500_000
D2_FILES = 100
D2_FILES_QUICK = 20
D2_TAGS = 100_000
#: D2's ``id`` of row ``n`` is ``n * D2_MULTIPLIER mod D2_MODULUS`` (:func:`d2_id`): the
#: multiplier is odd, so this is a bijection on 0 .. 2^62 - 1.
D2_MULTIPLIER = 6364136223846793005
D2_MODULUS = 2**62

#: W12's import case: how many small files it adds to a table (D2's columns), rows in each.
MANY_FILES = 1_000
MANY_FILES_QUICK = 200
MANY_FILES_ROWS = 1_000

#: Versions of the generators: bump one to regenerate that dataset everywhere.
D1_VERSION = 2
D2_VERSION = 2
MARKER = "_DATASET.json"


def _ready(path: Path, params: dict[str, object]) -> bool:
    marker = path / MARKER
    return marker.is_file() and json.loads(marker.read_text(encoding="utf-8")) == params


def _mark(path: Path, params: dict[str, object]) -> None:
    (path / MARKER).write_text(json.dumps(params), encoding="utf-8")


def d1_rows(quick: bool) -> int:
    return D1_ROWS_QUICK if quick else D1_ROWS


def d1(spark: SparkSession, inputs: Path, quick: bool) -> Path:
    """D1's directory (Hive layout ``ss_month=yyyymm/part-*.parquet``), generating it when it is
    missing or was generated with other parameters. Idempotent."""
    rows = d1_rows(quick)
    path = inputs / ("d1-quick" if quick else "d1")
    params: dict[str, object] = {"dataset": "D1", "version": D1_VERSION, "rows": rows}
    if _ready(path, params):
        return path
    shutil.rmtree(path, ignore_errors=True)
    month = f"CAST(id % {D1_MONTHS} AS INT)"
    df = spark.range(rows).selectExpr(
        f"CAST(abs(xxhash64(id, 1)) % {D1_ITEMS} AS BIGINT) AS ss_item_sk",
        "CAST(abs(xxhash64(id, 2)) % 2000000 AS BIGINT) AS ss_customer_sk",
        "id DIV 4 AS ss_ticket_number",
        "CAST(abs(xxhash64(id, 3)) % 400 AS INT) AS ss_store_sk",
        "CAST(1 + abs(xxhash64(id, 4)) % 100 AS INT) AS ss_quantity",
        "CAST((abs(xxhash64(id, 5)) % 20000) / 100 AS DECIMAL(7, 2)) AS ss_sales_price",
        "CAST(((xxhash64(id, 6)) % 1000000) / 100 AS DECIMAL(9, 2)) AS ss_net_profit",
        f"date_add(add_months(DATE '2021-01-01', {month}), CAST(abs(xxhash64(id, 7)) % 28 AS INT))"
        " AS ss_sold_date",
        "element_at(array('store', 'web', 'catalog', 'phone'),"
        " CAST(1 + abs(xxhash64(id, 8)) % 4 AS INT)) AS ss_channel",
        "concat('customer-', CAST(abs(xxhash64(id, 2)) % 2000000 AS STRING)) AS ss_customer_name",
        "concat('c', hex(xxhash64(id, 9)), CASE WHEN id % 7 = 0 THEN ' gift' ELSE '' END)"
        " AS ss_comment",
        f"CAST(year(add_months(DATE '2021-01-01', {month})) * 100"
        f" + month(add_months(DATE '2021-01-01', {month})) AS INT) AS {D1_PARTITION}",
    )
    # The files keep ss_month (Spark's partitionBy would drop it): Floe's add_files, like a
    # table written by any engine, wants every table column in the file.
    (
        df.withColumn("month_dir", df[D1_PARTITION])
        .repartition(D1_MONTHS, D1_PARTITION)
        .sortWithinPartitions(D1_PARTITION, "ss_item_sk")
        .write.option("compression", "zstd")
        .partitionBy("month_dir")
        .parquet(str(path))
    )
    for directory in sorted(path.glob("month_dir=*")):
        directory.rename(path / directory.name.replace("month_dir=", f"{D1_PARTITION}=", 1))
    _mark(path, params)
    return path


def d2_rows(quick: bool) -> int:
    return D2_ROWS_QUICK if quick else D2_ROWS


def d2_id(n: int) -> int:
    """The ``id`` of D2's row ``n`` (what :func:`d2_frame` computes in SQL)."""
    return n * D2_MULTIPLIER % D2_MODULUS


def d2_frame(spark: SparkSession, end: int, start: int | None = None) -> DataFrame:
    """D2's rows ``start`` .. ``end - 1``: without ``start`` its first ``end`` rows (what :func:`d2`
    writes), with it one partition of the rows past them (W10's appends)."""
    # The product is taken in DECIMAL(38, 0): a BIGINT product overflows, an error under ANSI.
    numbered = spark.range(end) if start is None else spark.range(start, end, 1, 1)
    return numbered.selectExpr(
        f"CAST(pmod(CAST(id AS DECIMAL(38, 0)) * {D2_MULTIPLIER}, {D2_MODULUS}) AS BIGINT) AS id",
        f"concat('tag-', CAST(abs(xxhash64(id, 11)) % {D2_TAGS} AS STRING)) AS tag",
        "CAST(abs(xxhash64(id, 12)) % 1000000 AS BIGINT) AS p_bigint",
        "CAST(abs(xxhash64(id, 13)) % 1000 AS INT) AS p_int",
        "CAST(abs(xxhash64(id, 14)) % 100000 AS DOUBLE) / 7 AS p_double",
        "date_add(DATE '2022-01-01', CAST(abs(xxhash64(id, 15)) % 1000 AS INT)) AS p_date",
        "hex(xxhash64(id, 16)) AS p_str",
        "CAST((abs(xxhash64(id, 17)) % 1000000) / 100 AS DECIMAL(10, 2)) AS p_decimal",
    )


def many_files(spark: SparkSession, inputs: Path, quick: bool) -> Path:
    """W12's import input: D2's first rows in ``MANY_FILES`` small zstd files of
    ``MANY_FILES_ROWS`` rows each (quick: ``MANY_FILES_QUICK``), generated when needed."""
    files = MANY_FILES_QUICK if quick else MANY_FILES
    path = inputs / ("many-files-quick" if quick else "many-files")
    return _d2_files(spark, path, "many files", files * MANY_FILES_ROWS, files)


def d2(spark: SparkSession, inputs: Path, quick: bool) -> Path:
    """D2's directory (unpartitioned, ``D2_FILES`` files), generating it when needed."""
    files = D2_FILES_QUICK if quick else D2_FILES
    path = inputs / ("d2-quick" if quick else "d2")
    return _d2_files(spark, path, "D2", d2_rows(quick), files)


def _d2_files(spark: SparkSession, path: Path, dataset: str, rows: int, files: int) -> Path:
    """D2's first ``rows`` rows in ``files`` zstd files under ``path``, unless already there."""
    params: dict[str, object] = {
        "dataset": dataset, "version": D2_VERSION, "rows": rows, "files": files,
    }  # fmt: skip
    if _ready(path, params):
        return path
    shutil.rmtree(path, ignore_errors=True)
    d2_frame(spark, rows).repartition(files).write.option("compression", "zstd").parquet(str(path))
    _mark(path, params)
    return path
