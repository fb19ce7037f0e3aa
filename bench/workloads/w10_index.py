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
a tenth of them; case ``d2 write``), and the btree at most 5% of the data's bytes. Every lookup
also reports the data files each engine opened (``Context.files_opened``, one untimed run); Floe's
miss must open none (BENCH.md) and its needle only the file holding it.
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

from suite_api import Case, Context, Workload, quote_path

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
#: Floe's own goals on the data files a lookup opens: none for a missing id (BENCH.md 9.2, W10),
#: and only the file holding the needle (D2's ids are unique).
FILES_OPENED_GOALS = {
    "a needle": 1,
    "b miss": 0,
    "f needle after": 1,
    # an index entry of a deleted row still names its file, whose deletion vector then drops it
    "g deleted needle after": 1,
    "h appended needle after": 1,
    "i miss after": 0,
}
#: The phase after changes (:func:`after_changes`): engines with row-level DELETE.
ENGINES_AFTER = ("iceberg-default", "iceberg-best", "floe")
DELETED_REMAINDER = 7
#: 1% of D2's rows, scattered over every file (ids are scrambled).
DELETE = f"id % 100 = {DELETED_REMAINDER}"
APPENDS = 6
APPENDS_QUICK = 4
APPEND_ROWS = 10_000
#: Appended rows start this far past D2's, so that the miss (row ``rows + 7``'s id) stays missing.
APPENDED_FROM = 1_000
#: Floe's own goal (the indices issue, bench/indexes.py): appends keeping both indexes current.
APPEND_WITH_OVER_WITHOUT = 1.25
#: Floe's documented configuration of a table that takes row-level changes (row_table.py).
FLOE_ROW_LEVEL = (
    "'format-version' = '3', 'write.delete.mode' = 'merge-on-read', "
    "'write.update.mode' = 'merge-on-read', 'write.merge.mode' = 'merge-on-read'"
)


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
    cases += lookups(ctx, queries(table, datasets.d2_rows(ctx.quick)))
    if ctx.engine in ENGINES_AFTER:
        cases += after_changes(ctx, table, src)
    return cases


def lookups(ctx: Context, sqls: dict[str, str]) -> list[Case]:
    """A query case per lookup, with the data files it opened; Floe's own goals on those."""
    cases = []
    for name, sql in sqls.items():
        case = ctx.query_case(name, sql, files_read=ctx.files_opened(sql))
        if ctx.engine == "floe" and name in FILES_OPENED_GOALS:
            # no single scan node to count: the goal is missed, not left out of the report
            opened = float("inf") if case.files_read is None else case.files_read
            case.extra["own_goal"] = [
                {"metric": "data files opened", "value": opened, "goal": FILES_OPENED_GOALS[name]}
            ]
        cases.append(case)
    return cases


def deleted(n: int) -> bool:
    """Whether :data:`DELETE`'s predicate removes D2's row ``n``."""
    return datasets.d2_id(n) % 100 == DELETED_REMAINDER


def queries_after(table: str, rows: int, appended_end: int) -> dict[str, str]:
    """The lookups after :func:`after_changes`: a needle the DELETE left, one it removed (no row;
    its file still holds it), one in the last append, the miss, the same 100 ids (about one
    deleted) and the tag."""
    kept = next(n for n in range(rows // 2, rows) if not deleted(n))
    gone = next(n for n in range(rows // 3, rows) if deleted(n))
    before = queries(table, rows)
    return {
        "f needle after": f"SELECT * FROM {table} WHERE id = {datasets.d2_id(kept)}",
        "g deleted needle after": f"SELECT * FROM {table} WHERE id = {datasets.d2_id(gone)}",
        "h appended needle after": (
            f"SELECT * FROM {table} WHERE id = {datasets.d2_id(appended_end - 5)}"
        ),
        "i miss after": before["b miss"],
        "j in 100 after": before["c in 100"],
        "k tag after": before["d tag"],
    }


def after_changes(ctx: Context, table: str, src: Path) -> list[Case]:
    """W10 after changes (ported from bench/indexes.py): a DELETE of 1% of D2's rows (every file;
    Floe's table first set to its row-level configuration, deletion vectors, as the other
    row-level workloads use it) and ``appends`` one-file appends of :data:`APPEND_ROWS` new rows
    each, then the lookups again (:func:`queries_after`). The appends are case ``e append``, one
    sample per append after an unmeasured one; Floe's own goal: its appends with both indexes
    kept current at most :data:`APPEND_WITH_OVER_WITHOUT` times the same appends to the same
    table without indexes (imported from the same files and changed the same way), paired
    back to back in ABBA order."""
    rows = datasets.d2_rows(ctx.quick)
    tables = [table]
    if ctx.engine == "floe":
        tables.append(ctx.import_parquet("d2_plain", src))
        for t in tables:
            ctx.spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({FLOE_ROW_LEVEL})")
    for t in tables:
        ctx.spark.sql(f"DELETE FROM {t} WHERE {DELETE}").collect()
    appends = APPENDS_QUICK if ctx.quick else APPENDS
    assert appends % 2 == 0, "ABBA pairs need an even number of measured appends"
    start = rows + APPENDED_FROM
    timed: dict[str, list[float]] = {t: [] for t in tables}
    for i in range(appends + 1):  # the first unmeasured
        # the new rows are generated into a Parquet file first (untimed): each timed INSERT reads
        # that file, so its time is the engine's append, not the rows' generation
        rows_file = ctx.work / f"w10-append-{i}"
        datasets.d2_frame(ctx.spark, start + APPEND_ROWS, start).write.mode("overwrite").parquet(
            str(rows_file)
        )
        for t in tables if i % 2 == 0 else tables[::-1]:
            started = time.perf_counter()
            ctx.spark.sql(f"INSERT INTO {t} SELECT * FROM parquet.{quote_path(rows_file)}")
            if i:
                timed[t].append(time.perf_counter() - started)
        start += APPEND_ROWS
    expected = ctx.spark.sql(
        f"SELECT count(*) FROM parquet.{quote_path(src)} WHERE NOT ({DELETE})"
    ).first()
    assert expected is not None
    for t in tables:
        count = ctx.spark.sql(f"SELECT count(*) FROM {t}").first()
        if count is None or count[0] != expected[0] + (appends + 1) * APPEND_ROWS:
            raise RuntimeError(f"W10 {ctx.engine}: {t} holds {count} rows after the changes")
    append = ctx.case("e append", timed[table], rows_per_append=APPEND_ROWS, repeated=False)
    if ctx.engine == "floe":
        ratios = [a / b for a, b in zip(timed[table], timed[tables[1]], strict=True)]
        append.extra.update(
            without_indexes_seconds=timed[tables[1]],
            own_goal={
                "metric": "append with indexes / without (median of pairs)",
                "value": statistics.median(ratios),
                "goal": APPEND_WITH_OVER_WITHOUT,
            },
        )
        ctx.spark.sql(f"DROP TABLE {tables[1]}")
    return [append, *lookups(ctx, queries_after(table, rows, start))]


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
        "f needle after": {"iceberg": 0.05},
    },
)
