"""W10 point lookups on D2 (BENCH.md 9.2; ported from bench/indexes.py's lookups): the same
Parquet files imported into every engine; Floe then builds a ``btree`` index on ``id`` and an
``inverted`` index on ``tag`` (case ``index build``, timed once per rep after a DROP).

Lookups (answers checked equal across engines): (a) ``id = needle`` (an id D2 holds), (b) ``id =
miss`` (an id it does not hold), (c) ``id IN (100 ids)``, (d) ``tag = x`` aggregated. D2's ids are
``datasets.d2_id(n)`` for row ``n``, so needles are computed, not read.

Iceberg-best is Iceberg with Parquet bloom filters on ``id`` (BENCH.md's I-best): it writes D2's
rows itself, one file per input file (the same rows in each as the imported files), with
``write.parquet.bloom-filter-enabled.column.id``; the other engines import the input files.

Floe's own goals (BENCH.md 9.2, on case ``index build``): the btree build at most 0.3x the time of
writing D2 (Floe writing the same rows, one file per input file, once, after an unmeasured write of
a tenth of them; case ``d2 write``), and the btree at most 5% of the data's bytes.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

from suite_api import Case, Context, Workload

from workloads import datasets

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

ENGINES = ("parquet", "iceberg-default", "iceberg-best", "floe")
TAG = "tag-4242"
#: Iceberg-best's table: Parquet bloom filters on the looked-up column (BENCH.md 9.2, W10).
BLOOM = {"write.parquet.bloom-filter-enabled.column.id": "true"}
#: Floe's own goals: btree build / D2 write, btree bytes / data bytes (BENCH.md 9.2, W10).
BUILD_OVER_WRITE = 0.3
INDEX_OVER_DATA = 0.05


def queries(table: str, rows: int) -> dict[str, str]:
    needle = datasets.d2_id(rows // 2)
    miss = datasets.d2_id(rows + 7)  # a bijection: no row below `rows` has this id
    many = ", ".join(str(datasets.d2_id(k * rows // 100 + 3)) for k in range(100))
    return {
        "a needle": f"SELECT * FROM {table} WHERE id = {needle}",
        "b miss": f"SELECT * FROM {table} WHERE id = {miss}",
        "c in 100": f"SELECT * FROM {table} WHERE id IN ({many})",
        "d tag": f"SELECT count(*), sum(p_int), min(id), max(id) FROM {table} WHERE tag = '{TAG}'",
    }


@contextmanager
def one_task_per_file(ctx: Context) -> Iterator[None]:
    """Reads of Parquet files inside the block make one task per file (a file's weight, its size
    plus the open cost, then exceeds a task's share), so a write of them writes a file per file."""
    key = "spark.sql.files.openCostInBytes"
    before = ctx.spark.conf.get(key, None)
    ctx.spark.conf.set(key, str(1 << 40))
    try:
        yield
    finally:
        if before is None:
            ctx.spark.conf.unset(key)
        else:
            ctx.spark.conf.set(key, before)


def write_d2(ctx: Context, name: str, src: Path, properties: dict[str, str] | None = None) -> str:
    """D2's input files written by this engine as table ``name``, one file per input file."""
    with one_task_per_file(ctx):
        return ctx.create_table(name, ctx.spark.read.parquet(str(src)), properties=properties)


def d2_write_case(ctx: Context, src: Path) -> Case:
    """Floe writing D2 (one file per input file), timed once after an unmeasured write of a tenth
    of the files; its bytes are the data bytes the index is measured against."""
    inputs = sorted(str(p) for p in src.glob("*.parquet"))
    with one_task_per_file(ctx):
        warm = ctx.spark.read.parquet(*inputs[: max(1, len(inputs) // 10)])
        ctx.create_table("d2_warm_up", warm)
    ctx.spark.sql(f"DROP TABLE {ctx.table('d2_warm_up')}")
    started = time.perf_counter()
    write_d2(ctx, "d2_written", src)
    seconds = time.perf_counter() - started
    table = ctx.table("d2_written")
    row = ctx.spark.sql(f"SELECT count(*), sum(file_size_in_bytes) FROM {table}.files").first()
    assert row is not None
    ctx.spark.sql(f"DROP TABLE {table}")
    return ctx.case("d2 write", [seconds], files_written=int(row[0]), bytes_written=int(row[1]))


def run(ctx: Context) -> list[Case]:
    src = datasets.d2(ctx.spark, ctx.inputs, ctx.quick)
    if ctx.engine == "iceberg-best":
        table = write_d2(ctx, "d2", src, BLOOM)
    else:
        table = ctx.import_parquet("d2", src)
    cases = []
    if ctx.engine == "floe":
        built = [False]

        def drop() -> None:
            if built[0]:
                ctx.spark.sql(f"DROP INDEX by_id ON {table}")

        def build() -> None:
            ctx.spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
            built[0] = True

        build_case = ctx.case("index build", ctx.time(build, setup=drop))
        write_case = d2_write_case(ctx, src)
        sizes = ctx.spark.sql(
            f"SELECT (SELECT size_in_bytes FROM {table}.indexes WHERE name = 'by_id'), "
            f"(SELECT sum(file_size_in_bytes) FROM {table}.files)"
        ).first()
        assert sizes is not None
        index_bytes, data_bytes = int(sizes[0]), int(sizes[1])
        build_case.extra.update(
            d2_write_seconds=write_case.median,
            index_bytes=index_bytes,
            data_bytes=data_bytes,
            own_goal=[
                {
                    "metric": "btree build / D2 write",
                    "value": build_case.median / write_case.median,
                    "goal": BUILD_OVER_WRITE,
                },
                {
                    "metric": "btree bytes / data bytes",
                    "value": index_bytes / data_bytes,
                    "goal": INDEX_OVER_DATA,
                },
            ],
        )
        cases += [build_case, write_case]
        ctx.spark.sql(f"CREATE INDEX by_tag ON {table} USING inverted (tag)")
    for name, sql in queries(table, datasets.d2_rows(ctx.quick)).items():
        cases.append(ctx.query_case(name, sql))
    return cases


WORKLOAD = Workload(
    id="W10",
    title="Point lookups via the index",
    family="index",
    engines=ENGINES,
    prepare=datasets.d2,
    run=run,
    goals={
        "a needle": {"iceberg": 0.05},
        "b miss": {"iceberg": 0.02},
        "c in 100": {"iceberg": 0.1},
        "d tag": {"iceberg": 0.2},
    },
)
