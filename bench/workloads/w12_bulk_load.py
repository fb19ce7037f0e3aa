"""W12 bulk load (docs/benchmarks.md; ported from bench/write_scan.py's write phase): a third of D1
(12 of its 36 months) read from its Parquet files and written as a new table of each engine:
(a) unpartitioned, (b) partitioned by month, (c) unpartitioned with Floe's write-time extras
(an inverted index on ``ss_item_sk`` maintained by the write; the plain Parquet write is the
baseline). Every engine writes zstd with 128 MB row groups. Goals: Floe/Parquet <= 1/0.9 (at
least 90% of Parquet's throughput) and Floe/Iceberg <= 0.95 on (a) and (b); (c) Floe/Parquet
<= 1/0.8. Bytes and files written are reported; the written rows are checked equal. (d) imports
many small Parquet files without rewriting them (1,000; quick: 200): Iceberg's and Floe's
``add_files``, Delta's ``CONVERT TO DELTA``; no goal (BENCH.md sets none), the answers are
checked equal. (e) copies (b)'s table, as (b) left it, into a new table of the same engine
partitioned the same way (``ctx.create_table`` over a read of it): a table copied or rewritten
partition by partition, where Floe's scan reads each month's files in one task and the write
needs no shuffle (README "Writing"); no goal, the answers are checked equal."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from suite_api import (
    ENGINES,
    Case,
    Context,
    Workload,
    answer_digest,
    bytes_and_files,
    data_files,
)

from workloads import datasets

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MONTHS = 12
IMPORT_CASE = "d import small files"
COPY_CASE = "e copy partitioned"
IMPORT_CHECK = "SELECT count(*), sum(id % 1000003), sum(p_int), sum(length(tag)) FROM {table}"
CHECK = """SELECT count(*), sum(ss_item_sk), sum(ss_sales_price), sum(length(ss_comment)),
    count(DISTINCT ss_month) FROM {table}"""


def source(ctx: Context) -> DataFrame:
    path = datasets.d1(ctx.spark, ctx.inputs, ctx.quick)
    months = sorted(path.glob(f"{datasets.D1_PARTITION}=*"))[:MONTHS]
    # only the chosen months' directories: the write reads no other file
    return ctx.spark.read.option("basePath", str(path)).parquet(*(str(m) for m in months))


def drop(ctx: Context, name: str) -> None:
    if ctx.engine in ("parquet", "delta"):
        shutil.rmtree(ctx.table_path(name), ignore_errors=True)
    else:
        ctx.spark.sql(f"DROP TABLE IF EXISTS {ctx.table(name)} PURGE")


def measure(
    ctx: Context,
    case: str,
    name: str,
    partition_cols: tuple[str, ...] = (),
    index: bool = False,
    copy_of: str | None = None,
) -> Case:
    df = source(ctx) if copy_of is None else ctx.spark.sql(f"SELECT * FROM {ctx.table(copy_of)}")

    def write() -> None:
        if index:  # Floe: an empty table with an index, then the rows (the write maintains it)
            table = ctx.table(name)
            ctx.spark.sql(f"INSERT INTO {table} SELECT * FROM src_w12")
        else:
            ctx.create_table(name, df, partition_cols)

    def setup() -> None:
        drop(ctx, name)
        if index:
            ctx.create_table(name, df.limit(0), partition_cols)
            ctx.spark.sql(
                f"CALL floe.system.create_index(table => 'bench.{name}', name => 'by_item', "
                "column => 'ss_item_sk')"
            )

    df.createOrReplaceTempView("src_w12")
    seconds = ctx.time(write, setup=setup)
    ctx.refresh(name)
    answer = answer_digest(ctx.spark.sql(CHECK.format(table=ctx.table(name))).collect())
    written, files = bytes_and_files(ctx.table_location(name))
    return ctx.case(case, seconds, answer=answer, bytes_written=written, files_written=files)


def import_files(ctx: Context) -> Case:
    """(d): the many small files made a table without rewriting them: ``add_files`` into an empty
    table (Iceberg, Floe), ``CONVERT TO DELTA`` (Delta, which also reads every row for its file
    statistics, as it does by default). Each repetition links the files afresh and creates the
    empty table first (untimed); only the import statement is timed."""
    source = datasets.many_files(ctx.spark, ctx.inputs, ctx.quick)
    name = "load_d"
    statement: list[str] = []

    def setup() -> None:
        drop(ctx, name)
        ready = ctx.import_statement(name, source)
        assert ready is not None
        statement[:] = [ready]

    seconds = ctx.time(lambda: ctx.spark.sql(statement[0]).collect(), setup=setup)
    table = ctx.table(name)
    answer = answer_digest(ctx.spark.sql(IMPORT_CHECK.format(table=table)).collect())
    files = len(data_files(source))
    return ctx.case(IMPORT_CASE, seconds, answer=answer, files_imported=files)


def prepare(spark: SparkSession, inputs: Path, quick: bool) -> None:
    datasets.d1(spark, inputs, quick)
    datasets.many_files(spark, inputs, quick)


def run(ctx: Context) -> list[Case]:
    cases = [
        measure(ctx, "a unpartitioned", "load_a"),
        measure(ctx, "b partitioned", "load_b", (datasets.D1_PARTITION,)),
        measure(ctx, COPY_CASE, "load_e", (datasets.D1_PARTITION,), copy_of="load_b"),
    ]
    if ctx.engine in ("floe", "parquet"):
        cases.append(measure(ctx, "c with index", "load_c", index=ctx.engine == "floe"))
    if ctx.engine != "parquet":
        cases.append(import_files(ctx))
    return cases


WORKLOAD = Workload(
    id="W12",
    title="Bulk load",
    family="load",
    engines=ENGINES,
    prepare=prepare,
    run=run,
    goals={
        "a unpartitioned": {"parquet": round(1 / 0.9, 3), "iceberg": 0.95},
        "b partitioned": {"parquet": round(1 / 0.9, 3), "iceberg": 0.95},
        "c with index": {"parquet": 1.25},
    },
)
