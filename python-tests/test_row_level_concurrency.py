"""Row-level DELETE / UPDATE / MERGE racing other writers in one Spark session
(docs/architecture.md, 'Conflict validation and isolation'): isolation levels, automatic retry,
conflicts that must fail cleanly.

Interleavings are deterministic: a Python UDF ``gate`` inside the statement holds it after it
planned its scan and before it commits, while the test commits something else; then the statement
resumes (row_level_tables.Gate). The expected outcomes are Iceberg's validation rules:

- a concurrent append that cannot match the statement's condition is retried over: both commit;
- under ``serializable`` (the default) an append that may match fails the statement with a
  ValidationException naming the table and the conflicting snapshot, and the statement leaves no
  snapshot and no file behind; ``snapshot`` isolation lets that same interleaving commit;
- a concurrent delete of rows the statement rewrites, or of rows in a file it adds deletes to,
  never brings deleted rows back (fails, or merges both deletes);
- two MERGEs inserting the same new keys never both commit (apache/iceberg#12653), a partitioned
  MERGE is validated against the whole scan, not the partitions it wrote (trinodb/trino#31072),
  and a copy-on-write UPDATE with a subquery rewrites only the files holding a match
  (apache/iceberg#18004).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from row_level_tables import (
    COW,
    COW_V2,
    MOR,
    MOR_V2,
    MOR_V3,
    OPERATIONS,
    TARGET,
    Gate,
    Mode,
    check_table,
    create_table,
    current_snapshot,
    current_snapshot_id,
    error_condition,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
    snapshots,
    uniform,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

COLUMNS = "id BIGINT, v INT, p INT"
ROWS = 100


def _isolated(mode: Mode, level: str) -> Mode:
    return mode.with_properties({f"write.{op}.isolation-level": level for op in OPERATIONS})


def _table(spark: SparkSession, warehouse: Path, namespace: str, mode: Mode) -> tuple[str, str]:
    """``t``: ids 0..99 in two data files, v = id, p = id % 4."""
    name = f"{TARGET}.{namespace}.t"
    create_table(spark, name, COLUMNS, mode)
    spark.range(0, ROWS, 1, 2).selectExpr(
        "id", "CAST(id AS INT) AS v", "CAST(id % 4 AS INT) AS p"
    ).writeTo(name).append()
    return name, location(warehouse, namespace, "t")


def _rows(spark: SparkSession, name: str) -> list[tuple[int, int, int]]:
    return sorted(
        (int(r[0]), int(r[1]), int(r[2])) for r in spark.sql(f"SELECT * FROM {name}").collect()
    )


def _append(spark: SparkSession, name: str, rows: list[tuple[int, int, int]]) -> None:
    values = ", ".join(f"({i}, {v}, {p})" for i, v, p in rows)
    spark.sql(f"INSERT INTO {name} VALUES {values}")


class Concurrent:
    """The concurrent commit of a test: runs ``action`` and remembers the snapshot it made."""

    def __init__(self, table_location: str, action: Callable[[], object]) -> None:
        self.location = table_location
        self.action = action
        self.snapshot_id: int | None = None

    def __call__(self) -> None:
        self.action()
        self.snapshot_id = current_snapshot_id(self.location)


def _assert_clean_conflict(
    error: BaseException | None, namespace: str, table_location: str, conflicting: int | None
) -> None:
    """A ValidationException naming the table and the snapshot it conflicts with; the table's
    current snapshot is the conflicting one and nothing of the failed statement is left."""
    assert error is not None, "the conflicting statement committed"
    message = error_text(error)
    assert "ValidationException" in message, message
    assert error_condition(error) == ("FLOE_CONCURRENT_CHANGE_CONFLICT", "40001"), message
    assert f"{namespace}.t" in message, message
    assert str(conflicting) in message, f"conflicting snapshot {conflicting} not named: {message}"
    assert current_snapshot_id(table_location) == conflicting
    assert missing_files(table_location) == []
    assert orphan_files(table_location) == []


# The statements: each holds at the gate, reads ids < 50 (pushed down: the conflict filter), and
# a concurrent append of ids >= 1000 cannot match it.
STATEMENTS = {
    "mor-v2-delete": (
        MOR_V2,
        "DELETE FROM {t} WHERE gate(id) >= 0 AND id < 50 AND id % 2 = 0",
        lambda i, v, p: None if i < 50 and i % 2 == 0 else (i, v, p),
    ),
    "cow-v2-update": (
        COW_V2,
        "UPDATE {t} SET v = -v WHERE gate(id) >= 0 AND id < 50",
        lambda i, v, p: (i, -v, p) if i < 50 else (i, v, p),
    ),
    "mor-v3-merge": (
        MOR_V3,
        "MERGE INTO {t} x USING (SELECT gate(id) AS id FROM range(10, 20)) s "
        "ON x.id = s.id AND x.id < 50 "
        "WHEN MATCHED AND x.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = 0",
        lambda i, v, p: (None if i % 2 == 0 else (i, 0, p)) if 10 <= i < 20 else (i, v, p),
    ),
    "cow-v2-merge": (
        COW_V2,
        "MERGE INTO {t} x USING (SELECT gate(id) AS id FROM range(10, 20)) s "
        "ON x.id = s.id AND x.id < 50 WHEN MATCHED THEN UPDATE SET v = 0",
        lambda i, v, p: (i, 0, p) if 10 <= i < 20 else (i, v, p),
    ),
}
#: A row every statement above would have changed, had it been there when it scanned.
MATCHING_ROW = (12, 1200, 0)


def _expected(change: object, rows: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    assert callable(change)
    out = [change(*r) for r in rows]
    return sorted(r for r in out if r is not None)


@pytest.mark.parametrize("case", list(STATEMENTS))
def test_append_that_cannot_match_is_retried_over(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, case: str
) -> None:
    mode, statement, change = STATEMENTS[case]
    name, loc = _table(spark, warehouse, namespace, mode)
    before = _rows(spark, name)
    gate = Gate(spark, tmp_path)
    appended = [(1000 + k, k, k % 4) for k in range(5)]
    append = Concurrent(loc, lambda: _append(spark, name, appended))

    error = interleave(gate, lambda: spark.sql(statement.replace("{t}", name)), append)

    assert error is None, f"a non-conflicting append failed the statement: {error_text(error)}"
    assert _rows(spark, name) == sorted(_expected(change, before) + appended)
    head = current_snapshot(loc)
    assert head is not None and head.get("parent-snapshot-id") == append.snapshot_id, (
        "the statement did not commit on top of the concurrent append"
    )
    assert not check_table(loc, mode, len(_rows(spark, name)))
    assert orphan_files(loc) == []


@pytest.mark.parametrize("case", list(STATEMENTS))
def test_append_that_may_match_fails_a_serializable_statement(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, case: str
) -> None:
    mode, statement, _ = STATEMENTS[case]
    name, loc = _table(spark, warehouse, namespace, _isolated(mode, "serializable"))
    before = _rows(spark, name)
    gate = Gate(spark, tmp_path)
    append = Concurrent(loc, lambda: _append(spark, name, [MATCHING_ROW]))

    error = interleave(gate, lambda: spark.sql(statement.replace("{t}", name)), append)

    _assert_clean_conflict(error, namespace, loc, append.snapshot_id)
    assert _rows(spark, name) == sorted([*before, MATCHING_ROW])


@pytest.mark.parametrize("case", list(STATEMENTS))
def test_snapshot_isolation_commits_over_an_append_that_may_match(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, case: str
) -> None:
    """The same interleaving under ``snapshot`` isolation commits; the appended row, which the
    statement never saw, is left as it was."""
    mode, statement, change = STATEMENTS[case]
    name, loc = _table(spark, warehouse, namespace, _isolated(mode, "snapshot"))
    before = _rows(spark, name)
    gate = Gate(spark, tmp_path)
    append = Concurrent(loc, lambda: _append(spark, name, [MATCHING_ROW]))

    error = interleave(gate, lambda: spark.sql(statement.replace("{t}", name)), append)

    assert error is None, error_text(error)
    assert _rows(spark, name) == sorted([*_expected(change, before), MATCHING_ROW])
    assert not check_table(loc, mode, len(_rows(spark, name)))
    assert orphan_files(loc) == []


@pytest.mark.parametrize("level", ["serializable", "snapshot"])
@pytest.mark.parametrize("mode", [MOR_V2, MOR_V3], ids=lambda m: m.id)
def test_concurrent_deletes_in_one_file_never_resurrect_rows(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, mode: Mode, level: str
) -> None:
    """Two merge-on-read DELETEs of different rows of one data file: the second to commit either
    fails cleanly or merges the first one's deletes into its own (one delete file per data
    file); a row the first deleted is never visible again."""
    name, loc = _table(spark, warehouse, namespace, _isolated(mode, level))
    gate = Gate(spark, tmp_path)
    other = Concurrent(loc, lambda: spark.sql(f"DELETE FROM {name} WHERE id = 5"))

    error = interleave(
        gate, lambda: spark.sql(f"DELETE FROM {name} WHERE gate(id) >= 0 AND id = 3"), other
    )

    ids = {r[0] for r in _rows(spark, name)}
    assert 5 not in ids, "a concurrent DELETE brought a deleted row back"
    if error is None:
        assert 3 not in ids
    else:
        message = error_text(error)
        assert "ValidationException" in message and f"{namespace}.t" in message, message
        assert 3 in ids and current_snapshot_id(loc) == other.snapshot_id
    assert len(ids) == ROWS - (1 if error else 2)
    assert not check_table(loc, mode, len(ids), one_delete_file_per_data_file=False)
    assert missing_files(loc) == []
    assert orphan_files(loc) == []


MIXED = Mode("mixed-v2", 2, delete=MOR, update=COW, merge=COW)


@pytest.mark.parametrize("level", ["serializable", "snapshot"])
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE {t} SET v = -v WHERE gate(id) >= 0 AND id < 10",
        "MERGE INTO {t} x USING (SELECT gate(id) AS id FROM range(0, 10)) s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET v = -x.v",
    ],
    ids=["update", "merge"],
)
def test_copy_on_write_rewrite_fails_after_a_concurrent_delete_in_its_files(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, statement: str, level: str
) -> None:
    """A copy-on-write rewrite of a data file that meanwhile got a merge-on-read delete would
    bring the deleted row back (apache/iceberg#2865's class): it must fail, at either level."""
    name, loc = _table(spark, warehouse, namespace, _isolated(MIXED, level))
    gate = Gate(spark, tmp_path)
    delete = Concurrent(loc, lambda: spark.sql(f"DELETE FROM {name} WHERE id = 7"))

    error = interleave(gate, lambda: spark.sql(statement.replace("{t}", name)), delete)

    ids = [r[0] for r in _rows(spark, name)]
    assert 7 not in ids, "the rewrite brought a deleted row back"
    _assert_clean_conflict(error, namespace, loc, delete.snapshot_id)
    assert len(ids) == ROWS - 1


@pytest.mark.parametrize(
    "clauses",
    [
        "WHEN NOT MATCHED THEN INSERT *",
        "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
    ],
    ids=["insert-only", "upsert"],
)
def test_two_merges_inserting_the_same_keys_do_not_both_commit(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, clauses: str
) -> None:
    """apache/iceberg#12653: both MERGEs find the new keys missing; the second to commit must
    fail under serializable isolation instead of inserting them a second time."""
    name, loc = _table(spark, warehouse, namespace, MOR_V2)
    gate = Gate(spark, tmp_path)
    source = "SELECT {key} AS id, CAST(id AS INT) AS v, 9 AS p FROM range(500, 505)"
    merge = f"MERGE INTO {name} x USING ({source}) s ON x.id = s.id {clauses}"
    other = Concurrent(loc, lambda: spark.sql(merge.format(key="id")))

    error = interleave(gate, lambda: spark.sql(merge.format(key="gate(id)")), other)

    count = spark.sql(f"SELECT count(*) FROM {name} WHERE id >= 500").collect()[0][0]
    assert count == 5, f"the new keys were inserted {count // 5} times"
    _assert_clean_conflict(error, namespace, loc, other.snapshot_id)


def test_partitioned_merge_conflicts_with_appends_to_partitions_it_did_not_write(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    """trinodb/trino#31072: the MERGE reads every partition but writes only p = 1; an append of
    a matching key into p = 2 must still conflict (the conflict filter is what was scanned)."""
    mode = uniform("mor-v2-p", 2, MOR, "p")
    name, loc = _table(spark, warehouse, namespace, mode)
    gate = Gate(spark, tmp_path)
    append = Concurrent(loc, lambda: _append(spark, name, [(5, 555, 2)]))
    merge = (
        f"MERGE INTO {name} x USING (SELECT gate(id) AS id FROM VALUES (1), (5) AS s(id)) s "
        "ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = -1"
    )

    error = interleave(gate, lambda: spark.sql(merge), append)

    _assert_clean_conflict(error, namespace, loc, append.snapshot_id)
    assert sorted(r for r in _rows(spark, name) if r[0] in (1, 5)) == [
        (1, 1, 1),
        (5, 5, 1),
        (5, 555, 2),
    ]


@pytest.mark.parametrize(
    "condition",
    ["id IN (SELECT id FROM rl_keys)", "EXISTS (SELECT 1 FROM rl_keys k WHERE k.id = t.id)"],
    ids=["in", "exists"],
)
def test_copy_on_write_update_with_a_subquery_rewrites_only_matching_files(
    spark: SparkSession, namespace: str, warehouse: Path, condition: str
) -> None:
    """apache/iceberg#18004: Spark plans such an UPDATE as a union of two branches over one scan,
    both applying the runtime file filter; a race there rewrote every file and duplicated its
    rows. One row per file: each UPDATE must replace exactly one file, every time."""
    name = f"{TARGET}.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    files = 24
    create_table(spark, name, COLUMNS, COW_V2)
    spark.range(0, files, 1, files).selectExpr("id", "0 AS v", "0 AS p").writeTo(name).append()
    head = current_snapshot(loc)
    assert head is not None and head["summary"]["total-data-files"] == str(files)
    spark.sql("CREATE OR REPLACE TEMP VIEW rl_keys AS SELECT CAST(7 AS BIGINT) AS id")
    for round_ in range(1, 5):
        spark.sql(f"UPDATE {name} t SET v = v + 1 WHERE {condition}")
        head = current_snapshot(loc)
        assert head is not None
        summary = head["summary"]
        counts = {
            k: summary.get(k) for k in ("deleted-data-files", "added-records", "total-records")
        }
        assert counts == {
            "deleted-data-files": "1",
            "added-records": "1",
            "total-records": str(files),
        }, f"round {round_}: {summary}"
        rows = spark.sql(f"SELECT id, v FROM {name} ORDER BY id").collect()
        assert [tuple(r) for r in rows] == [(i, round_ if i == 7 else 0) for i in range(files)]


def test_racing_appends_and_row_level_changes_all_commit(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """Two threads of one session, no gate: a loop of appends (ids >= 1000) against a loop of
    merge-on-read DELETEs and copy-on-write UPDATEs of ids < 100. Whatever the interleaving,
    every statement commits (conflicts on a stale base are retried, none is real) and the rows
    add up exactly."""
    mode = Mode("mixed-race", 2, delete=MOR, update=COW, merge=MOR)
    name, loc = _table(spark, warehouse, namespace, mode)
    errors: list[str] = []
    appends, changes = 8, 6

    def appender() -> None:
        for k in range(appends):
            try:
                _append(spark, name, [(1000 + 10 * k + j, -1, 3) for j in range(10)])
            except Exception as e:
                errors.append(f"append {k}: {error_text(e)}")

    def changer() -> None:
        for k in range(changes):
            statement = (
                f"DELETE FROM {name} WHERE id < 100 AND id % {changes} = {k}"
                if k % 2 == 0
                else f"UPDATE {name} SET v = v + 1000 WHERE id < 100 AND id % {changes} = {k}"
            )
            try:
                spark.sql(statement)
            except Exception as e:
                errors.append(f"{statement}: {error_text(e)}")

    threads = [threading.Thread(target=appender), threading.Thread(target=changer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not errors, "\n".join(errors)
    expected = sorted(
        [(i, i + 1000, i % 4) for i in range(ROWS) if i % changes % 2 == 1]
        + [(1000 + 10 * k + j, -1, 3) for k in range(appends) for j in range(10)]
    )
    assert _rows(spark, name) == expected
    ops = [s["summary"]["operation"] for s in snapshots(loc)]
    assert len(ops) == 1 + appends + changes, ops
    assert not check_table(loc, mode, len(expected))
    assert orphan_files(loc) == []
