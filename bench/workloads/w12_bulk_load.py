"""W12 bulk load (docs/benchmarks.md; ported from bench/write_scan.py's write phase): a third of D1
(12 of its 36 months) read from its Parquet files and written as a new table of each engine:
(a) unpartitioned, (b) partitioned by month, (c) unpartitioned with Floe's write-time extras
(an inverted index on ``ss_item_sk`` maintained by the write; the plain Parquet write is the
baseline). Every engine writes zstd with 128 MB row groups. Goals: Floe/Parquet <= 1/0.9 (at
least 90% of Parquet's throughput) and Floe/Iceberg <= 0.95 on (a) and (b); (c) Floe/Parquet
<= 1/0.8. Bytes and files written are reported; the written rows are checked equal."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

from suite_api import ENGINES, Case, Context, Workload, answer_digest, bytes_and_files

from workloads import datasets

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

MONTHS = 12
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
    ctx: Context, case: str, name: str, partition_cols: tuple[str, ...] = (), index: bool = False
) -> Case:
    df = source(ctx)

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


def run(ctx: Context) -> list[Case]:
    cases = [
        measure(ctx, "a unpartitioned", "load_a"),
        measure(ctx, "b partitioned", "load_b", (datasets.D1_PARTITION,)),
    ]
    if ctx.engine in ("floe", "parquet"):
        cases.append(measure(ctx, "c with index", "load_c", index=ctx.engine == "floe"))
    return cases


WORKLOAD = Workload(
    id="W12",
    title="Bulk load",
    family="load",
    engines=ENGINES,
    prepare=datasets.d1,
    run=run,
    goals={
        "a unpartitioned": {"parquet": round(1 / 0.9, 3), "iceberg": 0.95},
        "b partitioned": {"parquet": round(1 / 0.9, 3), "iceberg": 0.95},
        "c with index": {"parquet": 1.25},
    },
)
