"""R2b (docs/reliability.md, 'R2: conflicts'): Spark SQL interleavings of DELETE, UPDATE, MERGE
and compaction, each pair in copy-on-write and merge-on-read, serializable and snapshot isolation,
same and disjoint partitions, driven by the product's test hook io.floe.spark.util.CommitGate:
statement A runs its scan and writes its files, then waits before its commit while statement B
commits; then A commits (row_level_tables.CommitHold, like Delta's ExecutionPhaseLock).

The oracle per case: the outcome Iceberg's validation rules give (``expected_outcome``), and

- committed: the table holds both effects (A and B touch different rows, so the order does not
  matter), A's snapshot sits on B's, every referenced file exists and nothing is orphaned;
- conflict: A raised FLOE_CONCURRENT_CHANGE_CONFLICT (SQLSTATE 40001) naming the table, left no
  snapshot and no file, and the table holds exactly B's effect at B's snapshot.

CI runs every A/B pair in a covering sample of the mode x isolation x placement combinations;
``FLOE_R2_FULL=1`` runs all 136 cases. test_row_level_concurrency.py holds the UDF-gated cases
(a gate inside the scan); this file holds the commit-gated ones.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from reliability_figures import record
from row_level_tables import (
    COW,
    MOR,
    CommitHold,
    Mode,
    check_table,
    current_snapshot,
    current_snapshot_id,
    error_condition,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Rows = dict[int, tuple[int, int]]  # id -> (v, p)
SERIALIZABLE, SNAPSHOT = "serializable", "snapshot"
SAME, DISJOINT = "same", "disjoint"
COMMIT, CONFLICT, EITHER = "commit", "conflict", "either"


@dataclass(frozen=True)
class Op:
    """A statement on partition ``p`` (p = id // 20 of ids 0..39) and its effect on the rows."""

    sql: str
    effect: Callable[[Rows], Rows]


def _where(rows: Rows, p: int, residue: int, change: Callable[[int, int], int | None]) -> Rows:
    out: Rows = {}
    for i, (v, q) in rows.items():
        new = change(i, v) if q == p and i % 10 == residue else v
        if new is not None:
            out[i] = (new, q)
    return out


def op(kind: str, p: int, *, second: bool = False) -> Op:
    """A's ops use residues 3-5, B's (``second``) residues 6-8 of partition ``p``: the two never
    touch the same row, but share the data file when both are in one partition."""
    if kind == "append":
        key = 1000 + 20 * p + 7  # may match A's condition by the file's statistics, never by value
        return Op(f"INSERT INTO {{t}} VALUES ({key}, 7, {p})", lambda r: {**r, key: (7, p)})
    if kind == "compaction":
        return Op(
            "CALL floe.system.rewrite_data_files(table => '{ns}.t', where => 'p = "
            f"{p}', options => map('rewrite-all', 'true'))",
            dict,
        )
    residue = {"delete": 3, "update": 4, "merge": 5}[kind] + (3 if second else 0)
    if kind == "delete":
        return Op(
            f"DELETE FROM {{t}} WHERE p = {p} AND id % 10 = {residue}",
            lambda r: _where(r, p, residue, lambda i, v: None),
        )
    if kind == "update":
        return Op(
            f"UPDATE {{t}} SET v = v + 100 WHERE p = {p} AND id % 10 = {residue}",
            lambda r: _where(r, p, residue, lambda i, v: v + 100),
        )
    return Op(
        f"MERGE INTO {{t}} x USING (SELECT id FROM range(0, 40) WHERE id % 10 = {residue}) s "
        f"ON x.id = s.id AND x.p = {p} WHEN MATCHED THEN UPDATE SET v = x.v + 1000",
        lambda r: _where(r, p, residue, lambda i, v: v + 1000),
    )


def expected_outcome(a: str, b: str, mode: str, level: str, placement: str) -> str:
    """Iceberg's validation rules for A committing after B (docs/reliability.md,
    'R2: conflicts')."""
    if placement == DISJOINT:
        return COMMIT  # A's conflict filter and files are in partition 0, B's in partition 1
    if a == "compaction":
        return COMMIT if b == "append" else CONFLICT  # B removed or added deletes to A's file
    if b == "append":
        return CONFLICT if level == SERIALIZABLE else COMMIT  # data that may match A's filter
    if b == "compaction" or mode == COW:
        return CONFLICT  # B removed the data file A rewrites or deletes from
    if b != "delete" and level == SERIALIZABLE:
        return CONFLICT  # B's UPDATE/MERGE added data in A's partition
    return EITHER  # both added position deletes to one file: conflict, or merged into one


ROW_LEVEL = ("delete", "update", "merge")
B_OPS = ("append", "delete", "update", "merge", "compaction")
COMBOS = list(itertools.product((COW, MOR), (SERIALIZABLE, SNAPSHOT), (SAME, DISJOINT)))


def _cases() -> list[tuple[str, str, str, str, str]]:
    every = [
        (a, b, mode, level, placement)
        for a in (*ROW_LEVEL, "compaction")
        for b in (B_OPS if a != "compaction" else B_OPS[:4])
        for mode, level, placement in COMBOS
        if not (a == "compaction" and level == SNAPSHOT)  # compaction has no isolation level
    ]
    if os.environ.get("FLOE_R2_FULL") == "1":
        return every
    # Named regressions always run: apache/iceberg#2865 (compaction vs a merge-on-read delete).
    chosen = [("compaction", "delete", MOR, SERIALIZABLE, SAME)]
    # CI: every pair once, the mode and isolation combinations spread over the pairs.
    for k, (a, b) in enumerate(sorted({(c[0], c[1]) for c in every})):
        placement = DISJOINT if k % 3 == 2 else SAME  # the same partition is where conflicts are
        pool = [c for c in every if (c[0], c[1], c[4]) == (a, b, placement)]
        chosen += [c for c in [pool[k % len(pool)]] if c not in chosen]
    return chosen


CASES = _cases()
_tally: dict[str, float] = {"cases": 0, COMMIT: 0, CONFLICT: 0, "seconds": 0.0}


def _mode(mode: str, level: str) -> Mode:
    props = {f"write.{o}.isolation-level": level for o in ROW_LEVEL}
    return Mode(f"{mode}-{level}", 2, mode, mode, mode, "p", props)


def _create(spark: SparkSession, name: str, mode: Mode) -> Rows:
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, v INT, p INT) USING floe PARTITIONED BY (p) "
        "TBLPROPERTIES (" + ", ".join(f"'{k}'='{v}'" for k, v in mode.properties.items()) + ")"
    )
    spark.range(0, 40, 1, 1).selectExpr(
        "id", "CAST(id AS INT) AS v", "CAST(id DIV 20 AS INT) AS p"
    ).writeTo(name).append()
    return {i: (i, i // 20) for i in range(40)}


def read_rows(spark: SparkSession, name: str) -> Rows:
    rows = spark.sql(f"SELECT id, v, p FROM {name}").collect()
    ids = [int(r[0]) for r in rows]
    assert len(ids) == len(set(ids)), f"duplicate keys in {name}"
    return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


def assert_clean_conflict(
    error: BaseException | None, table: str, loc: str, conflicting: int | None
) -> None:
    """A conflict error naming the table; the table at the conflicting snapshot, nothing left."""
    assert error is not None, "the conflicting statement committed"
    message = error_text(error)
    assert error_condition(error) == ("FLOE_CONCURRENT_CHANGE_CONFLICT", "40001"), message
    assert table.split(".", 1)[1] in message, message
    assert current_snapshot_id(loc) == conflicting, "the failed statement left a snapshot"
    assert missing_files(loc) == []
    assert orphan_files(loc) == [], "the failed statement left files"


def run_pair(
    spark: SparkSession, name: str, loc: str, a_sql: str, b_sql: str
) -> tuple[BaseException | None, int | None]:
    """A held at its commit while B commits; returns A's error and B's snapshot id."""
    b_snapshot: list[int | None] = []

    def b() -> None:
        spark.sql(b_sql)
        b_snapshot.append(current_snapshot_id(loc))

    error = interleave(CommitHold(spark, name), lambda: spark.sql(a_sql).collect(), b)
    return error, b_snapshot[0]


@pytest.mark.parametrize(
    ("a", "b", "mode", "level", "placement"), CASES, ids=["-".join(c) for c in CASES]
)
def test_interleaving(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    a: str,
    b: str,
    mode: str,
    level: str,
    placement: str,
) -> None:
    started = time.monotonic()
    name, loc = f"floe.{namespace}.t", location(warehouse, namespace, "t")
    table_mode = _mode(mode, level)
    before = _create(spark, name, table_mode)
    op_a, op_b = op(a, 0), op(b, 0 if placement == SAME else 1, second=True)

    def sql(o: Op) -> str:
        return o.sql.replace("{t}", name).replace("{ns}", namespace)

    error, b_snapshot = run_pair(spark, name, loc, sql(op_a), sql(op_b))

    expected = expected_outcome(a, b, mode, level, placement)
    rows = read_rows(spark, name)
    if error is None:
        assert expected != CONFLICT, f"A committed over a conflicting {b}"
        assert rows == op_a.effect(op_b.effect(before)) == op_b.effect(op_a.effect(before))
        head = current_snapshot(loc)
        assert head is not None and head.get("parent-snapshot-id") == b_snapshot
        problems = check_table(loc, table_mode, len(rows), one_delete_file_per_data_file=False)
        # check_table knows the row-level operations; a compaction commits a 'replace'
        assert [p for p in problems if not p.startswith("operation 'replace'")] == []
        assert missing_files(loc) == [] and orphan_files(loc) == []
    else:
        assert expected != COMMIT, f"A failed over a {b} it may commit over: {error_text(error)}"
        assert_clean_conflict(error, name, loc, b_snapshot)
        assert rows == op_b.effect(before)
    _tally["cases"] += 1
    _tally[COMMIT if error is None else CONFLICT] += 1
    _tally["seconds"] += time.monotonic() - started
    record(
        "R2",
        interleaving_cases=int(_tally["cases"]),
        interleaving_committed=int(_tally[COMMIT]),
        interleaving_conflicts=int(_tally[CONFLICT]),
        interleaving_seconds=round(_tally["seconds"], 1),
    )


# --- the regressions of docs/reliability.md, 'R2: conflicts' (commit-gated; the UDF-gated
# --- versions of the same bugs are in test_row_level_concurrency.py and test_rewrite_data_files.py)


def _table(
    spark: SparkSession, warehouse: Path, namespace: str, mode: str, level: str
) -> tuple[str, str, Rows]:
    name = f"floe.{namespace}.t"
    return name, location(warehouse, namespace, "t"), _create(spark, name, _mode(mode, level))


def _count(kind: str) -> None:
    _tally["regressions"] = _tally.get("regressions", 0) + 1
    record("R2", interleaving_regression_cases=int(_tally["regressions"]))


@pytest.mark.parametrize("mode", [COW, MOR])
def test_two_merges_inserting_the_same_new_keys(
    spark: SparkSession, namespace: str, warehouse: Path, mode: str
) -> None:
    """apache/iceberg#12653: two MERGEs with only WHEN NOT MATCHED both find keys 500..504
    missing; the one held at its commit must fail, not insert them a second time."""
    name, loc, before = _table(spark, warehouse, namespace, mode, SERIALIZABLE)
    merge = (
        f"MERGE INTO {name} x USING (SELECT id, 5 AS v, 0 AS p FROM range(500, 505)) s "
        "ON x.id = s.id WHEN NOT MATCHED THEN INSERT *"
    )
    error, b_snapshot = run_pair(spark, name, loc, merge, merge)
    assert_clean_conflict(error, name, loc, b_snapshot)
    assert read_rows(spark, name) == {**before, **{i: (5, 0) for i in range(500, 505)}}
    _count("dual-not-matched-merge")


@pytest.mark.parametrize(
    ("mode", "level"), [(COW, SERIALIZABLE), (MOR, SERIALIZABLE), (MOR, SNAPSHOT)]
)
def test_partitioned_merge_is_validated_against_what_it_read(
    spark: SparkSession, namespace: str, warehouse: Path, mode: str, level: str
) -> None:
    """trinodb/trino#31072: the MERGE reads every partition but writes only p = 0; a concurrent
    append of a matching key into p = 1 must conflict under serializable isolation (and is left
    alone under snapshot isolation)."""
    name, loc, _ = _table(spark, warehouse, namespace, mode, level)
    merge = (
        f"MERGE INTO {name} x USING (SELECT 3L AS id) s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = -1"
    )
    error, b_snapshot = run_pair(spark, name, loc, merge, f"INSERT INTO {name} VALUES (3, 333, 1)")
    rows = sorted(
        tuple(r) for r in spark.sql(f"SELECT id, v, p FROM {name} WHERE id = 3").collect()
    )
    if level == SERIALIZABLE:
        assert_clean_conflict(error, name, loc, b_snapshot)
        assert rows == [(3, 3, 0), (3, 333, 1)]
    else:
        assert error is None, error_text(error)
        assert rows == [(3, -1, 0), (3, 333, 1)]
    _count("partitioned-merge")


@pytest.mark.parametrize(
    ("mode", "level", "concurrent", "expected"),
    [
        (COW, SNAPSHOT, "delete", COMMIT),
        (MOR, SERIALIZABLE, "delete", COMMIT),
        (COW, SERIALIZABLE, "delete", CONFLICT),
        (COW, SERIALIZABLE, "append", CONFLICT),
    ],
)
def test_update_with_a_subquery_under_a_concurrent_commit(
    spark: SparkSession,
    namespace: str,
    warehouse: Path,
    mode: str,
    level: str,
    concurrent: str,
    expected: str,
) -> None:
    """apache/iceberg#18004: a copy-on-write UPDATE ... WHERE id IN (subquery) plans the table
    twice. Held at its commit while a DELETE in the other partition commits, it commits over it
    and rewrites only its own file; but its filter is known only at run time (the conflict filter
    is ``true``), so under serializable isolation any data the concurrent commit added fails it:
    an append, or the copy-on-write DELETE's rewritten file."""
    name, loc, before = _table(spark, warehouse, namespace, mode, level)
    update = (
        f"UPDATE {name} SET v = v + 100 WHERE id IN (SELECT id FROM VALUES (4L), (14L) AS k(id))"
    )
    other = op(concurrent, 1 if concurrent == "delete" else 0, second=True)
    error, b_snapshot = run_pair(spark, name, loc, update, other.sql.replace("{t}", name))
    after_b = other.effect(before)
    if expected == CONFLICT:
        assert_clean_conflict(error, name, loc, b_snapshot)
        assert read_rows(spark, name) == after_b
    else:
        assert error is None, error_text(error)
        updated = {i: (v + 100 if i in (4, 14) else v, p) for i, (v, p) in after_b.items()}
        assert read_rows(spark, name) == updated
        head = current_snapshot(loc)
        assert head is not None and head.get("parent-snapshot-id") == b_snapshot
        if mode == COW:
            assert head["summary"].get("deleted-data-files") == "1", head["summary"]
        assert orphan_files(loc) == []
    _count("update-with-subquery")
