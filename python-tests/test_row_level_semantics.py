"""Row-level DELETE, UPDATE and MERGE INTO: what the statements do to the rows, the files and the
snapshots, in every write mode (copy-on-write v2, merge-on-read v2 with position delete files,
merge-on-read v3 with deletion vectors, a table partitioned by bucket(4, id) and days(ts), an
identity-partitioned one, and one mixing the modes per statement).

The core is one sequence of 20 mixed statements (plus the initial insert) applied in lockstep to a
table in each mode. After every step each table is checked against

- a model of the rows kept in Python (SQL's three-valued logic spelled out), and, when the Apache
  Iceberg runtime is available, against an Iceberg table that ran the identical statement;
- its own files and summary: totals equal the manifests, the operation name fits the counts, the
  statement touched exactly the files holding a matching row, delete files are one per data file
  with the data file's partition, whole-partition deletes stay metadata-only (row_level_tables.py);

and at the end every snapshot is read back by time travel and the last one through pyiceberg.
Focused tests follow: exact summary counts, statements that match nothing (compared with what
Iceberg does), and bad input (MERGE cardinality, type errors, dropped and time-travelled tables,
invalid mode properties), each of which must leave the table exactly as it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import CATALOG, ICEBERG_CATALOG, unique_name
from row_level_tables import (
    COW,
    COW_V2,
    MOR,
    MOR_V2,
    MOR_V3,
    TARGET,
    Gate,
    Mode,
    check_table,
    create_table,
    current_snapshot,
    current_snapshot_id,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
    pyiceberg_rows,
    referenced_data_file,
    snapshots,
    uniform,
)

import floe
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from iceberg_runtime import IcebergRuntime
    from pyspark.sql import SparkSession

# --- the rows -----------------------------------------------------------------------------------

St = tuple[int | None, str | None] | None
Row = tuple[int, str | None, int | None, int, St]  # id, cat, v, ts (micros, UTC), st
Rows = dict[int, Row]

COLUMNS = "id BIGINT, cat STRING, v INT, ts TIMESTAMP, st STRUCT<a: INT, b: STRING>"
READ = (
    "SELECT id, cat, v, unix_micros(ts) AS ts, st.a AS a, st.b AS b, st IS NULL AS st_null FROM {t}"
)
READ_FILES = READ.replace(" FROM ", ", _file FROM ")
MINUTE = 60_000_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR
T0 = 1_704_067_200_000_000  # 2024-01-01 00:00:00 UTC
INITIAL_ROWS = 60

MODES = (
    COW_V2,
    MOR_V2,
    MOR_V3,
    uniform("mor-v3-bucket-days", 3, MOR, "bucket(4, id), days(ts)"),
    uniform("cow-v2-identity", 2, COW, "cat"),
)
BUCKET_DAYS, IDENTITY = "mor-v3-bucket-days", "cow-v2-identity"


def _initial_row(i: int) -> Row:
    cat = None if i % 4 == 3 else f"c{i % 3}"
    v = None if i % 6 == 0 else i % 10
    st: St = None if i % 5 == 4 else (i, None if i % 7 == 0 else str(i % 2))
    return (i, cat, v, T0 + (i % 2) * DAY + i * MINUTE, st)


INITIAL_INSERT = f"""
    INSERT INTO {{t}}
    SELECT id,
           CASE WHEN id % 4 = 3 THEN NULL ELSE concat('c', CAST(id % 3 AS STRING)) END,
           CASE WHEN id % 6 = 0 THEN NULL ELSE CAST(id % 10 AS INT) END,
           timestamp_micros({T0} + (id % 2) * {DAY} + id * {MINUTE}),
           CASE WHEN id % 5 = 4 THEN NULL
                ELSE named_struct('a', CAST(id AS INT),
                                  'b', CASE WHEN id % 7 = 0 THEN NULL
                                            ELSE CAST(id % 2 AS STRING) END) END
    FROM range(0, {INITIAL_ROWS}, 1, 3)
"""


def _sorted(rows: Rows) -> list[Row]:
    return sorted(rows.values(), key=repr)


def _lit(value: int | str | None) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _struct_sql(st: St) -> str:
    if st is None:
        return "CAST(NULL AS STRUCT<a: INT, b: STRING>)"
    return f"named_struct('a', CAST({_lit(st[0])} AS INT), 'b', CAST({_lit(st[1])} AS STRING))"


def _row_sql(row: Row) -> str:
    i, cat, v, ts, st = row
    return (
        f"(CAST({i} AS BIGINT), CAST({_lit(cat)} AS STRING), CAST({_lit(v)} AS INT), "
        f"timestamp_micros({ts}), {_struct_sql(st)})"
    )


# SQL's three-valued logic, for the model
def _and(*values: bool | None) -> bool | None:
    if any(v is False for v in values):
        return False
    return None if any(v is None for v in values) else True


def _or(*values: bool | None) -> bool | None:
    if any(v is True for v in values):
        return True
    return None if any(v is None for v in values) else False


def _cmp(a: Any, b: Any, op: Callable[[Any, Any], bool]) -> bool | None:
    return None if a is None or b is None else op(a, b)


# --- the sequence -------------------------------------------------------------------------------

Model = Callable[[Rows, Counter[str]], Rows]
Pred = Callable[[Row], bool | None]


@dataclass(frozen=True)
class Step:
    name: str
    kind: str  # delete | update | merge | append
    run: Callable[[SparkSession, str], object]
    model: Model
    #: DELETE/UPDATE: the rows it changes; the files holding one are exactly the files it touches
    pred: Pred | None = None
    #: modes in which the statement must only drop whole files from metadata
    metadata_only: frozenset[str] = frozenset()


def _sql(text: str) -> Callable[[SparkSession, str], object]:
    return lambda spark, table: spark.sql(text.replace("{t}", table))


def _deleting(name: str, sql: str, pred: Pred, metadata_only: frozenset[str] = frozenset()) -> Step:
    return Step(name, "delete", _sql(sql), _delete(pred), pred, metadata_only)


def _updating(name: str, sql: str, pred: Pred, change: Callable[[Row], Row]) -> Step:
    return Step(name, "update", _sql(sql), _update(pred, change), pred)


def _delete(pred: Pred) -> Model:
    def model(rows: Rows, hits: Counter[str]) -> Rows:
        kept = {i: r for i, r in rows.items() if pred(r) is not True}
        hits["deleted"] += len(rows) - len(kept)
        return kept

    return model


def _update(pred: Pred, change: Callable[[Row], Row]) -> Model:
    def model(rows: Rows, hits: Counter[str]) -> Rows:
        out: Rows = {}
        for r in rows.values():
            if pred(r) is True:
                hits["updated"] += 1
                r = change(r)
            assert r[0] not in out, f"duplicate id {r[0]} in the model"
            out[r[0]] = r
        return out

    return model


SRC5: list[tuple[int, int | None, str | None, str]] = [
    (2, 20, "x", "u"),
    (4, 40, "y", "d"),
    (8, 80, None, "u"),
    (10, 100, "z", "d"),
    (22, -22, "w", "u"),
    (1006, 1, "q", "u"),
    (35, 35, "k", "d"),
    (70, 7, "n", "i"),
    (71, 8, "n", "skip"),
    (72, None, None, "i"),
]
SRC5_SQL = ", ".join(
    f"(CAST({i} AS BIGINT), CAST({_lit(v)} AS INT), CAST({_lit(b)} AS STRING), '{op}')"
    for i, v, b, op in SRC5
)
MERGE5 = """
    MERGE INTO {t} x USING rl_src5 s ON x.id = s.id
    WHEN MATCHED AND s.op = 'd' THEN DELETE
    WHEN MATCHED THEN UPDATE SET x.v = s.v, x.st.b = s.b
    WHEN NOT MATCHED AND s.op <> 'skip' THEN
      INSERT (id, cat, v, ts, st)
      VALUES (s.id, 'new', s.v, TIMESTAMP'2024-01-02 12:00:00', named_struct('a', CAST(s.id AS INT), 'b', s.b))
"""  # noqa: E501


def _merge5(rows: Rows, hits: Counter[str]) -> Rows:
    out = dict(rows)
    for i, v, b, op in SRC5:
        if i in out:
            if op == "d":
                hits["matched-delete"] += 1
                del out[i]
            else:
                hits["matched-update"] += 1
                r = out[i]
                out[i] = (i, r[1], v, r[3], (r[4][0] if r[4] else None, b))
        elif op != "skip":
            hits["inserted"] += 1
            out[i] = (i, "new", v, T0 + DAY + 12 * HOUR, (i, b))
        else:
            hits["not-matched-skipped"] += 1
    return out


def _merge6(rows: Rows, hits: Counter[str]) -> Rows:
    source = {s[0] for s in SRC5}
    out = {}
    for i, r in rows.items():
        if i not in source and 50 < i < 1000:
            hits["not-matched-by-source-delete"] += 1
        else:
            out[i] = r
    return out


SRC7: list[Row] = [
    (5, "c2", 55, T0 + 5 * HOUR, (500, "u")),
    (6, None, None, T0 + DAY + 6 * HOUR, None),
    (12, "c0", 12, T0 + 3 * HOUR, (None, None)),
    (1011, "c1", 11, T0 + DAY, (11, "1")),
    (80, "c0", 8, T0 + 8 * HOUR, (80, "0")),
    (81, None, 1, T0 + DAY + HOUR, (81, None)),
]


def _merge7(rows: Rows, hits: Counter[str]) -> Rows:
    out = dict(rows)
    for r in SRC7:
        hits["matched-update-all" if r[0] in out else "insert-all"] += 1
        out[r[0]] = r
    return out


APPENDED: list[Row] = [
    (90, "c2", 9, T0 + 5 * HOUR, (90, "0")),
    (91, None, None, T0 + DAY + 6 * HOUR, None),
    (92, "c0", 2, T0 + DAY + 7 * HOUR, (None, None)),
    (93, "c1", 3, T0 + 2 * HOUR, (93, "1")),
]


def _append(rows: Rows, hits: Counter[str]) -> Rows:
    hits["appended"] += len(APPENDED)
    return {**rows, **{r[0]: r for r in APPENDED}}


SRC12 = (90, 1016, 25, 999)


def _merge12(rows: Rows, hits: Counter[str]) -> Rows:
    out: Rows = {}
    for i, r in rows.items():
        if i in SRC12:
            hits["matched-delete"] += 1
        elif r[2] is None:
            hits["not-matched-by-source-update"] += 1
            out[i] = (i, r[1], -1, r[3], r[4])
        else:
            out[i] = r
    return out


SRC13: list[tuple[int, int | None]] = [(5, None), (6, 66), (93, 93), (95, 95), (96, None)]


def _merge13_run(spark: SparkSession, table: str) -> None:
    from pyspark.sql.functions import expr, lit

    short = table.rsplit(".", 1)[1]
    source = spark.table("rl_src13").alias("s")
    (
        source.mergeInto(table, expr(f"s.id = {short}.id"))
        .whenMatched(expr("s.v IS NULL"))
        .delete()
        .whenMatched()
        .update({"v": expr("s.v"), "cat": lit("df")})
        .whenNotMatched()
        .insert(
            {
                "id": expr("s.id"),
                "cat": lit("df"),
                "v": expr("s.v"),
                "ts": expr("TIMESTAMP'2024-01-03 00:00:00'"),
                "st": expr("named_struct('a', 0, 'b', 'df')"),
            }
        )
        .whenNotMatchedBySource(expr(f"{short}.id >= 1000 AND {short}.id < 1020"))
        .delete()
        .merge()
    )


def _merge13(rows: Rows, hits: Counter[str]) -> Rows:
    out = dict(rows)
    source = dict(SRC13)
    for i, v in SRC13:
        if i in out and v is None:
            hits["matched-delete"] += 1
            del out[i]
        elif i in out:
            hits["matched-update"] += 1
            r = out[i]
            out[i] = (i, "df", v, r[3], r[4])
        else:
            hits["inserted"] += 1
            out[i] = (i, "df", v, T0 + 2 * DAY, (0, "df"))
    for i in list(out):
        if i not in source and 1000 <= i < 1020:
            hits["not-matched-by-source-delete"] += 1
            del out[i]
    return out


SRC14 = (1, 2, 20, 21, 24, 37, 1021, 500)

SRC18: list[tuple[int, int | None]] = [
    (5, -5),
    (6, 600),
    (23, None),
    (27, -1),
    (29, 290),
    (95, 950),
    (200, 2),
    (201, None),
]


def _merge18(rows: Rows, hits: Counter[str]) -> Rows:
    source = dict(SRC18)
    out: Rows = {}
    for i, r in rows.items():
        if i in source:
            sv = source[i]
            if sv is not None and sv < 0:
                hits["matched-delete"] += 1
                continue
            if sv is not None and sv > 100:
                hits["matched-update"] += 1
                r = (i, "big", sv, r[3], r[4])
            else:
                hits["matched-no-action"] += 1
            out[i] = r
        elif r[2] == 3:
            hits["not-matched-by-source-delete"] += 1
        elif r[2] is None:
            hits["not-matched-by-source-update"] += 1
            out[i] = (i, r[1], 0, r[3], r[4])
        else:
            out[i] = r
    for i, sv in SRC18:
        if i not in rows:
            if sv is not None:
                hits["inserted"] += 1
                out[i] = (i, "ins", sv, T0 + 3 * DAY, None)
            else:
                hits["not-inserted"] += 1
    return out


MERGE18 = """
    MERGE INTO {t} x USING rl_src18 s ON x.id = s.id
    WHEN MATCHED AND s.v < 0 THEN DELETE
    WHEN MATCHED AND s.v > 100 THEN UPDATE SET x.v = s.v, x.cat = 'big'
    WHEN NOT MATCHED AND s.v IS NOT NULL THEN
      INSERT (id, v, cat, ts, st) VALUES (s.id, s.v, 'ins', TIMESTAMP'2024-01-04 00:00:00', NULL)
    WHEN NOT MATCHED BY SOURCE AND x.v = 3 THEN DELETE
    WHEN NOT MATCHED BY SOURCE AND x.v IS NULL THEN UPDATE SET x.v = 0
"""

DAY2 = T0 + DAY

STEPS: tuple[Step, ...] = (
    _deleting(
        "delete rows scattered over every file",
        "DELETE FROM {t} WHERE id % 7 = 3",
        lambda r: r[0] % 7 == 3,
    ),
    _deleting(
        "delete keeps the rows whose condition is NULL",
        "DELETE FROM {t} WHERE v <> 5 AND id < 20",
        lambda r: _and(_cmp(r[2], 5, lambda a, b: a != b), r[0] < 20),
    ),
    _updating(
        "update a partition source column (identity): rows move",
        "UPDATE {t} SET v = v + 100, cat = upper(cat) WHERE cat = 'c1'",
        lambda r: _cmp(r[1], "c1", lambda a, b: a == b),
        lambda r: (r[0], "C1", None if r[2] is None else r[2] + 100, r[3], r[4]),
    ),
    _updating(
        "update the bucket and day source columns: rows move",
        "UPDATE {t} SET id = id + 1000, ts = ts + INTERVAL 1 DAY WHERE id % 5 = 1",
        lambda r: r[0] % 5 == 1,
        lambda r: (r[0] + 1000, r[1], r[2], r[3] + DAY, r[4]),
    ),
    Step(
        "merge: matched delete, matched update of a nested field, conditional insert",
        "merge",
        _sql(MERGE5),
        _merge5,
    ),
    Step(
        "merge: not matched by source delete",
        "merge",
        _sql(
            "MERGE INTO {t} x USING (SELECT id FROM rl_src5) s ON x.id = s.id "
            "WHEN NOT MATCHED BY SOURCE AND x.id > 50 AND x.id < 1000 THEN DELETE"
        ),
        _merge6,
    ),
    Step(
        "merge: update set * and insert *",
        "merge",
        _sql(
            "MERGE INTO {t} x USING rl_src7 s ON x.id = s.id "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        ),
        _merge7,
    ),
    _deleting(
        "delete whole identity partitions",
        "DELETE FROM {t} WHERE cat = 'c0'",
        lambda r: _cmp(r[1], "c0", lambda a, b: a == b),
        metadata_only=frozenset({IDENTITY}),
    ),
    _updating(
        "update a nested struct field",
        "UPDATE {t} SET st.a = -st.a WHERE st.b = '1'",
        lambda r: None if r[4] is None else _cmp(r[4][1], "1", lambda a, b: a == b),
        lambda r: (
            r[0],
            r[1],
            r[2],
            r[3],
            (None if r[4] is None or r[4][0] is None else -r[4][0], "1"),
        ),
    ),
    _deleting(
        "delete by null struct and null or large value",
        "DELETE FROM {t} WHERE st IS NULL AND (v IS NULL OR v > 100)",
        lambda r: _and(r[4] is None, _or(r[2] is None, _cmp(r[2], 100, int.__gt__))),
    ),
    Step(
        "append",
        "append",
        _sql("INSERT INTO {t} VALUES " + ", ".join(_row_sql(r) for r in APPENDED)),
        _append,
    ),
    Step(
        "merge: matched delete, not matched by source update",
        "merge",
        _sql(
            "MERGE INTO {t} x USING rl_src12 s ON x.id = s.id WHEN MATCHED THEN DELETE "
            "WHEN NOT MATCHED BY SOURCE AND x.v IS NULL THEN UPDATE SET x.v = -1"
        ),
        _merge12,
    ),
    Step("DataFrame mergeInto with every clause kind", "merge", _merge13_run, _merge13),
    _updating(
        "update with an IN subquery",
        "UPDATE {t} SET v = NULL WHERE id IN (SELECT id FROM rl_src14)",
        lambda r: r[0] in SRC14,
        lambda r: (r[0], r[1], None, r[3], r[4]),
    ),
    _deleting(
        "delete with a correlated EXISTS subquery",
        "DELETE FROM {t} AS x WHERE EXISTS (SELECT 1 FROM rl_src14 s WHERE s.id + 1 = x.id)",
        lambda r: r[0] - 1 in SRC14,
    ),
    _updating(
        "update a partition column to NULL",
        "UPDATE {t} SET cat = NULL WHERE cat IS NOT NULL AND id % 3 = 0",
        lambda r: r[1] is not None and r[0] % 3 == 0,
        lambda r: (r[0], None, r[2], r[3], r[4]),
    ),
    _deleting(
        "delete whole days",
        "DELETE FROM {t} WHERE ts < TIMESTAMP'2024-01-02 00:00:00'",
        lambda r: r[3] < DAY2,
        metadata_only=frozenset({BUCKET_DAYS}),
    ),
    Step("merge with every clause kind, some matching nothing", "merge", _sql(MERGE18), _merge18),
    _updating(
        "update a whole struct from other columns",
        "UPDATE {t} SET st = named_struct('a', v, 'b', cat) "
        "WHERE v IS NOT NULL AND id BETWEEN 20 AND 60",
        lambda r: r[2] is not None and 20 <= r[0] <= 60,
        lambda r: (r[0], r[1], r[2], r[3], (r[2], r[1])),
    ),
    _deleting(
        "delete by an OR over two columns",
        "DELETE FROM {t} WHERE id >= 1000 OR cat = 'big'",
        lambda r: _or(r[0] >= 1000, _cmp(r[1], "big", lambda a, b: a == b)),
    ),
)


def _create_source_views(spark: SparkSession) -> None:
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW rl_src5 AS SELECT * FROM VALUES {SRC5_SQL} AS s(id, v, b, op)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW rl_src7 AS SELECT * FROM VALUES "
        + ", ".join(_row_sql(r) for r in SRC7)
        + " AS s(id, cat, v, ts, st)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW rl_src12 AS SELECT * FROM VALUES "
        + ", ".join(f"(CAST({i} AS BIGINT))" for i in SRC12)
        + " AS s(id)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW rl_src13 AS SELECT * FROM VALUES "
        + ", ".join(f"(CAST({i} AS BIGINT), CAST({_lit(v)} AS INT))" for i, v in SRC13)
        + " AS s(id, v)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW rl_src14 AS SELECT * FROM VALUES "
        + ", ".join(f"(CAST({i} AS BIGINT))" for i in SRC14)
        + " AS s(id)"
    )
    spark.sql(
        "CREATE OR REPLACE TEMP VIEW rl_src18 AS SELECT * FROM VALUES "
        + ", ".join(f"(CAST({i} AS BIGINT), CAST({_lit(v)} AS INT))" for i, v in SRC18)
        + " AS s(id, v)"
    )


@dataclass
class Subject:
    """One table of the sequence and what happened to it."""

    mode: Mode
    name: str
    location: str
    history: list[tuple[int, list[Row]]]  # (snapshot id, rows) after each step
    rows_in_files: list[tuple[Row, str]] = field(default_factory=list)  # after the last step
    failure: str | None = None
    # state before the step being checked
    before_snapshot: int | None = None
    before_files: dict[tuple[str, int | None], dict[str, Any]] = field(default_factory=dict)


@dataclass
class SequenceRun:
    subjects: dict[str, Subject]
    model_hits: list[Counter[str]]
    reference_problems: list[str]
    reference_ran: bool


def _row_of(r: Any) -> Row:
    st = None if r["st_null"] else (r["a"], r["b"])
    return (int(r["id"]), r["cat"], r["v"], int(r["ts"]), st)


def _read_all(spark: SparkSession, subjects: list[Subject]) -> dict[str, list[tuple[Row, str]]]:
    """Rows and their data files of every subject, in one query; subject by subject if that
    query fails (so that one broken table does not hide the others' results)."""

    def query(subject: Subject) -> str:
        return READ_FILES.format(t=subject.name).replace(
            "SELECT ", f"SELECT '{subject.mode.id}' AS subject, ", 1
        )

    def collect(sql: str) -> dict[str, list[tuple[Row, str]]]:
        out: dict[str, list[tuple[Row, str]]] = {s.mode.id: [] for s in subjects}
        for r in spark.sql(sql).collect():
            out[r["subject"]].append((_row_of(r), str(r["_file"])))
        return out

    try:
        return collect(" UNION ALL ".join(query(s) for s in subjects))
    except Exception:
        out: dict[str, list[tuple[Row, str]]] = {}
        for subject in subjects:
            try:
                out.update(collect(query(subject)))
            except Exception as e:
                subject.failure = f"reading: {error_text(e)}"
        return out


def _key(f: dict[str, Any]) -> tuple[str, int | None]:
    """A live file's identity: deletion vectors share a Puffin file, told apart by offset."""
    return (str(f["file_path"]), f.get("content_offset"))


def _before(subject: Subject) -> None:
    from floe import inspect

    subject.before_snapshot = current_snapshot_id(subject.location)
    subject.before_files = {_key(f): f for f in inspect.table_files(subject.location)}


def _check_step(
    subject: Subject, step: Step, expected: list[Row], rows_in_files: list[tuple[Row, str]]
) -> None:
    """The rows, the one new snapshot, the table's invariants, and the files the step touched."""
    from floe import inspect

    actual = sorted((r for r, _ in rows_in_files), key=repr)
    assert actual == expected, _row_diff(actual, expected)
    new = [
        s
        for s in snapshots(subject.location)
        if s["sequence-number"] > _seq(subject, subject.before_snapshot)
    ]
    assert len(new) == 1, f"{len(new)} snapshots committed: {[s['summary'] for s in new]}"
    snap = new[0]
    assert snap.get("parent-snapshot-id") == subject.before_snapshot
    assert current_snapshot_id(subject.location) == snap["snapshot-id"]
    problems = check_table(subject.location, subject.mode, len(expected))
    assert not problems, "\n".join(problems)

    summary = snap["summary"]
    before = subject.before_files
    after = {_key(f): f for f in inspect.table_files(subject.location)}
    removed_data = {k[0] for k, f in before.items() if f["content"] == 0 and k not in after}
    added = {k: f for k, f in after.items() if k not in before}
    before_data = {k[0] for k, f in before.items() if f["content"] == 0}
    if step.kind == "delete" and subject.mode.delete == MOR:
        added_data = [k for k, f in added.items() if f["content"] == 0]
        assert not added_data, f"a merge-on-read DELETE added data files: {summary}"
    if subject.mode.id in step.metadata_only:
        assert not added, f"metadata-only DELETE added files: {sorted(added)}"
        assert summary["operation"] == "delete", summary
        assert removed_data, "nothing removed"
    elif step.pred is not None:
        pred = step.pred
        matching = {path for row, path in subject.rows_in_files if pred(row) is True}
        new_delete_refs = {
            ref
            for f in added.values()
            if f["content"] == 1 and (ref := referenced_data_file(f)) in before_data
        }
        touched = removed_data | new_delete_refs
        assert touched == matching, (
            f"touched {len(touched)} files, {len(matching)} hold a matching row; "
            f"extra {sorted(touched - matching)}, missed {sorted(matching - touched)}"
        )


def _seq(subject: Subject, snapshot_id: int | None) -> int:
    if snapshot_id is None:
        return 0
    return int(
        next(s for s in snapshots(subject.location) if s["snapshot-id"] == snapshot_id)[
            "sequence-number"
        ]
    )


def _row_diff(actual: list[Row], expected: list[Row]) -> str:
    a, e = Counter(actual), Counter(expected)
    unexpected = sorted((a - e).elements(), key=repr)[:8]
    missing = sorted((e - a).elements(), key=repr)[:8]
    return (
        f"{len(actual)} rows, expected {len(expected)}; unexpected {unexpected}; missing {missing}"
    )


#: Time travel reads every third snapshot of each table, a different third per table: together
#: the tables cover every step, at a third of the cost.
TIME_TRAVEL_STRIDE = 3


def _time_travel_problems(spark: SparkSession, subject: Subject, offset: int) -> list[str]:
    """Snapshots of the sequence, read back by time travel in one query."""
    chosen = [
        (k, sid, rows)
        for k, (sid, rows) in enumerate(subject.history)
        if k % TIME_TRAVEL_STRIDE == offset % TIME_TRAVEL_STRIDE
    ]
    parts = [
        READ.format(t=f"{subject.name} VERSION AS OF {sid}").replace(
            "SELECT ", f"SELECT {k} AS step, ", 1
        )
        for k, sid, _ in chosen
    ]
    by_step: dict[int, list[Row]] = {k: [] for k, _, _ in chosen}
    for r in spark.sql(" UNION ALL ".join(parts)).collect():
        by_step[int(r["step"])].append(_row_of(r))
    problems = []
    for k, sid, expected in chosen:
        actual = sorted(by_step[k], key=repr)
        if actual != expected:
            problems.append(f"VERSION AS OF {sid} (after step {k}): {_row_diff(actual, expected)}")
    return problems


@pytest.fixture(scope="module")
def sequence_run(
    spark: SparkSession, iceberg_runtime: IcebergRuntime, warehouse: Path
) -> SequenceRun:
    namespace = unique_name("row_level_sequence")
    spark.sql(f"CREATE NAMESPACE {CATALOG}.{namespace}")
    _create_source_views(spark)
    subjects: dict[str, Subject] = {}
    for mode in MODES:
        table = re.sub(r"[^a-z0-9]", "_", mode.id)
        name = f"{TARGET}.{namespace}.{table}"
        create_table(spark, name, COLUMNS, mode)
        subjects[mode.id] = Subject(mode, name, location(warehouse, namespace, table), [])
    reference = None
    if iceberg_runtime.jar is not None:
        ref_name = f"{ICEBERG_CATALOG}.{namespace}.reference"
        create_table(spark, ref_name, COLUMNS, COW_V2, using="iceberg")
        ref_mode = Mode("iceberg-reference", 2, COW, COW, COW)
        reference = Subject(ref_mode, ref_name, location(warehouse, namespace, "reference"), [])

    model: Rows = {i: _initial_row(i) for i in range(INITIAL_ROWS)}
    init = Step("initial insert", "append", _sql(INITIAL_INSERT), lambda rows, hits: model)
    hits_per_step: list[Counter[str]] = []
    reference_problems: list[str] = []
    for k, step in enumerate((init, *STEPS)):
        hits: Counter[str] = Counter()
        model = step.model(dict(model), hits) if k else model
        hits_per_step.append(hits)
        expected = _sorted(model)
        live = [s for s in subjects.values() if s.failure is None]
        if reference is not None:
            live.append(reference)
        for subject in live:
            try:
                _before(subject)
                step.run(spark, subject.name)
            except Exception as e:  # recorded per mode, reported by its test
                subject.failure = f"step {k} ({step.name}): {error_text(e)}"
        live = [s for s in live if s.failure is None]
        read = _read_all(spark, live) if live else {}
        if reference is not None and reference.failure is None:
            live.remove(reference)
            got = sorted((r for r, _ in read[reference.mode.id]), key=repr)
            if got != expected:
                reference_problems.append(f"step {k} ({step.name}): {_row_diff(got, expected)}")
        elif reference is not None:
            reference_problems.append(f"Iceberg failed: {reference.failure}")
            reference = None
        for subject in live:
            if subject.failure is not None:
                continue
            try:
                if k == 0:
                    actual = sorted((r for r, _ in read[subject.mode.id]), key=repr)
                    assert actual == expected, _row_diff(actual, expected)
                else:
                    _check_step(subject, step, expected, read[subject.mode.id])
                subject.rows_in_files = read[subject.mode.id]
                sid = current_snapshot_id(subject.location)
                assert sid is not None
                subject.history.append((sid, expected))
            except Exception as e:
                subject.failure = f"step {k} ({step.name}): {error_text(e)}"
    for offset, subject in enumerate(subjects.values()):
        if subject.failure is not None:
            continue
        try:
            problems = _time_travel_problems(spark, subject, offset)
            assert not problems, "\n".join(problems)
            final = subject.history[-1][1]
            cols = ("id", "cat", "v")
            assert pyiceberg_rows(subject.location, cols) == sorted(
                (r[:3] for r in final), key=repr
            ), "pyiceberg reads other rows"
        except Exception as e:
            subject.failure = f"after the sequence: {error_text(e)}"
    return SequenceRun(subjects, hits_per_step, reference_problems, reference is not None)


@pytest.mark.parametrize("mode", MODES, ids=[m.id for m in MODES])
def test_mixed_sequence(sequence_run: SequenceRun, mode: Mode) -> None:
    subject = sequence_run.subjects[mode.id]
    assert subject.failure is None, f"{mode.id}: {subject.failure}"
    assert len(subject.history) == len(STEPS) + 1


def test_sequence_exercises_every_clause(sequence_run: SequenceRun) -> None:
    """Guards the sequence itself: every step changes rows, and every MERGE clause fires."""
    for k, (step, hits) in enumerate(zip(STEPS, sequence_run.model_hits[1:], strict=True)):
        assert sum(hits.values()) > 0, f"step {k + 1} ({step.name}) changes nothing"
    merges = {
        step.name: hits for step, hits in zip(STEPS, sequence_run.model_hits[1:], strict=True)
    }
    for name, hits in merges.items():
        assert all(n > 0 for n in hits.values()), f"{name}: {hits}"
    assert merges["merge with every clause kind, some matching nothing"].keys() >= {
        "matched-delete",
        "matched-update",
        "matched-no-action",
        "inserted",
        "not-inserted",
        "not-matched-by-source-delete",
        "not-matched-by-source-update",
    }
    assert (
        merges["merge: matched delete, matched update of a nested field, conditional insert"][
            "not-matched-skipped"
        ]
        == 1
    )


def test_sequence_reference_agrees_with_model(sequence_run: SequenceRun, iceberg: str) -> None:
    """The Apache Iceberg runtime, running the identical statements, ends every step with the
    model's rows: the model encodes Spark's semantics, not a guess."""
    assert sequence_run.reference_ran
    assert not sequence_run.reference_problems, "\n".join(sequence_run.reference_problems)


# --- focused tests ------------------------------------------------------------------------------

SMALL = "id BIGINT, v INT, p INT"


def _small_table(
    spark: SparkSession, warehouse: Path, namespace: str, mode: Mode
) -> tuple[str, str]:
    """Table ``t`` with two data files: ids 1..5 (v = id, p = 0) and 6..10 (p = 1)."""
    name = f"{TARGET}.{namespace}.t"
    create_table(spark, name, SMALL, mode)
    for start in (1, 6):
        spark.range(start, start + 5, 1, 1).selectExpr(
            "id", "CAST(id AS INT) AS v", f"{start // 6} AS p"
        ).writeTo(name).append()
    loc = location(warehouse, namespace, "t")
    assert _summary(loc)["total-data-files"] == "2"
    return name, loc


def _summary(table_location: str) -> dict[str, str]:
    snap = current_snapshot(table_location)
    assert snap is not None
    return dict(snap["summary"])


def _ids(spark: SparkSession, name: str) -> list[int]:
    return sorted(int(r[0]) for r in spark.sql(f"SELECT id FROM {name}").collect())


def _assert_summary(
    table_location: str, expected: dict[str, int | str], zero: tuple[str, ...]
) -> None:
    summary = _summary(table_location)
    got = {k: summary.get(k) for k in expected}
    assert got == {k: str(v) for k, v in expected.items()}, summary
    nonzero = {k: summary[k] for k in zero if int(summary.get(k, "0")) != 0}
    assert not nonzero, f"expected no {nonzero} in {summary}"


ADDED_DATA = ("added-data-files", "deleted-data-files", "added-records", "deleted-records")


@pytest.mark.parametrize("mode", [MOR_V2, MOR_V3], ids=lambda m: m.id)
def test_merge_on_read_summary_counts(
    spark: SparkSession, namespace: str, warehouse: Path, mode: Mode
) -> None:
    """Position deletes (v2) / deletion vectors (v3) are counted like Iceberg counts them; a new
    delete on a file replaces its delete file (merged), a removed data file takes its deletes."""
    mode = uniform(mode.id, mode.version, MOR, "p")
    name, loc = _small_table(spark, warehouse, namespace, mode)
    files = "dvs" if mode.version >= 3 else "position-delete-files"
    other = "position-delete-files" if mode.version >= 3 else "dvs"

    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 2, 7)")
    assert _ids(spark, name) == [3, 4, 5, 6, 8, 9, 10]
    _assert_summary(
        loc,
        {
            "operation": "delete",
            f"added-{files}": 2,
            "added-delete-files": 2,
            "added-position-deletes": 3,
            "total-delete-files": 2,
            "total-position-deletes": 3,
            "total-data-files": 2,
            "total-records": 10,
        },
        (*ADDED_DATA, f"added-{other}", "removed-delete-files"),
    )

    spark.sql(f"DELETE FROM {name} WHERE id = 3")
    assert _ids(spark, name) == [4, 5, 6, 8, 9, 10]
    _assert_summary(
        loc,
        {
            "operation": "delete",
            f"added-{files}": 1,
            f"removed-{files}": 1,
            "added-delete-files": 1,
            "removed-delete-files": 1,
            "added-position-deletes": 3,
            "removed-position-deletes": 2,
            "total-delete-files": 2,
            "total-position-deletes": 4,
            "total-records": 10,
        },
        ADDED_DATA,
    )

    spark.sql(f"UPDATE {name} SET v = 0 WHERE id = 4")
    assert spark.sql(f"SELECT id, v FROM {name} WHERE id < 6 ORDER BY id").collect() == [
        (4, 0),
        (5, 5),
    ]
    _assert_summary(
        loc,
        {
            "operation": "overwrite",
            "added-data-files": 1,
            "added-records": 1,
            "added-delete-files": 1,
            "removed-delete-files": 1,
            "added-position-deletes": 4,
            "removed-position-deletes": 3,
            "total-data-files": 3,
            "total-delete-files": 2,
            "total-position-deletes": 5,
            "total-records": 11,
        },
        ("deleted-data-files", "deleted-records"),
    )

    # partition p = 1 is one data file: dropped from metadata with its delete file
    spark.sql(f"DELETE FROM {name} WHERE p = 1")
    assert _ids(spark, name) == [4, 5]
    _assert_summary(
        loc,
        {
            "operation": "delete",
            "deleted-data-files": 1,
            "deleted-records": 5,
            "removed-delete-files": 1,
            "removed-position-deletes": 1,
            "total-data-files": 2,
            "total-delete-files": 1,
            "total-position-deletes": 4,
            "total-records": 6,
        },
        ("added-data-files", "added-delete-files"),
    )
    assert not check_table(loc, mode, 2)
    assert orphan_files(loc) == []


def test_copy_on_write_summary_counts(spark: SparkSession, namespace: str, warehouse: Path) -> None:
    name, loc = _small_table(spark, warehouse, namespace, uniform("cow-p", 2, COW, "p"))
    spark.sql(f"DELETE FROM {name} WHERE id IN (1, 2, 7)")
    _assert_summary(
        loc,
        {
            "operation": "overwrite",
            "deleted-data-files": 2,
            "added-data-files": 2,
            "deleted-records": 10,
            "added-records": 7,
            "total-records": 7,
            "total-data-files": 2,
            "total-delete-files": 0,
        },
        ("added-delete-files",),
    )
    spark.sql(f"UPDATE {name} SET v = 0 WHERE id = 4")
    summary = _summary(loc)
    assert (summary["operation"], summary["deleted-data-files"]) == ("overwrite", "1")
    assert (summary["deleted-records"], summary["added-records"], summary["total-records"]) == (
        "3",
        "3",
        "7",
    )
    # partition p = 1 is one data file: dropped from metadata, nothing rewritten
    spark.sql(f"DELETE FROM {name} WHERE p = 1")
    _assert_summary(
        loc,
        {"operation": "delete", "deleted-data-files": 1, "deleted-records": 4, "total-records": 3},
        ("added-data-files", "added-records"),
    )
    assert spark.sql(f"SELECT id, v FROM {name} ORDER BY id").collect() == [(3, 3), (4, 0), (5, 5)]
    assert orphan_files(loc) == []


@pytest.mark.parametrize("mode", [MOR_V2, MOR_V3], ids=lambda m: m.id)
def test_delete_of_whole_files_by_column_bounds_is_metadata_only(
    spark: SparkSession, namespace: str, warehouse: Path, mode: Mode
) -> None:
    """Unpartitioned: the second file's id bounds (6..10) prove every row matches ``id >= 6``,
    so, as in Iceberg, the file is dropped from metadata rather than covered by a delete file."""
    name, loc = _small_table(spark, warehouse, namespace, mode)
    spark.sql(f"DELETE FROM {name} WHERE id >= 6")
    assert _ids(spark, name) == [1, 2, 3, 4, 5]
    _assert_summary(
        loc,
        {"operation": "delete", "deleted-data-files": 1, "deleted-records": 5, "total-records": 5},
        ("added-data-files", "added-delete-files"),
    )


NO_MATCH = (
    "DELETE FROM {t} WHERE id = -1",
    "DELETE FROM {t} WHERE id % 100 = 99",
    "UPDATE {t} SET v = 1 WHERE id % 100 = 99",
    "MERGE INTO {t} x USING (SELECT CAST(-1 AS BIGINT) AS id) s ON x.id = s.id "
    "WHEN MATCHED THEN DELETE",
    "MERGE INTO {t} x USING (SELECT CAST(-1 AS BIGINT) AS id) s ON x.id = s.id "
    "WHEN MATCHED THEN UPDATE SET v = 0 WHEN NOT MATCHED BY SOURCE AND x.id < 0 THEN DELETE",
    "DELETE FROM {t} WHERE false",
)


@pytest.mark.parametrize("mode", [COW_V2, MOR_V3], ids=lambda m: m.id)
def test_statements_matching_nothing_commit_no_snapshot(
    spark: SparkSession, namespace: str, warehouse: Path, mode: Mode
) -> None:
    """A statement that matches no row changes no row and, unlike Iceberg (which commits an
    empty snapshot), commits nothing: the table stays at its snapshot (README)."""
    name, loc = _small_table(spark, warehouse, namespace, mode)
    for statement in NO_MATCH:
        if mode is COW_V2 and "NOT MATCHED BY SOURCE" in statement:
            continue  # copy-on-write rewrites every file such a clause reads, as Iceberg does
        before = current_snapshot_id(loc)
        spark.sql(statement.replace("{t}", name))
        assert current_snapshot_id(loc) == before, statement
        assert _ids(spark, name) == list(range(1, 11))
        assert not check_table(loc, mode, 10)


CARDINALITY_VIOLATIONS = (
    "WHEN MATCHED THEN UPDATE SET v = -1",
    "WHEN MATCHED AND s.id = 2 THEN DELETE WHEN MATCHED THEN UPDATE SET v = -1",
    "WHEN MATCHED THEN UPDATE SET v = -1 WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 0)",
)


@pytest.mark.parametrize("mode", [COW_V2, MOR_V3], ids=lambda m: m.id)
def test_merge_cardinality_violation_changes_nothing(
    spark: SparkSession, namespace: str, warehouse: Path, mode: Mode
) -> None:
    """Several source rows matching one target row: Spark's MERGE_CARDINALITY_VIOLATION, and the
    table keeps its snapshot, its rows, and no file of the failed write."""
    name, loc = _small_table(spark, warehouse, namespace, mode)
    before = current_snapshot_id(loc)
    source = "(SELECT CAST(id % 3 AS BIGINT) AS id FROM range(0, 9))"  # keys 0, 1, 2, three times
    for clauses in CARDINALITY_VIOLATIONS:
        with pytest.raises(Exception, match="MERGE_CARDINALITY_VIOLATION"):
            spark.sql(f"MERGE INTO {name} x USING {source} s ON x.id = s.id {clauses}")
        assert current_snapshot_id(loc) == before, clauses
        assert spark.sql(f"SELECT sum(v), count(*) FROM {name}").collect() == [(55, 10)]
        assert orphan_files(loc) == [], clauses
        assert missing_files(loc) == [], clauses
    # an unconditional DELETE is the one action Spark allows for repeated matches: each target
    # row goes once, and its position is not counted twice
    spark.sql(f"MERGE INTO {name} x USING {source} s ON x.id = s.id WHEN MATCHED THEN DELETE")
    assert _ids(spark, name) == list(range(3, 11))
    assert not check_table(loc, mode, 8)


BAD_STATEMENTS = (
    ("UPDATE {t} SET v = 'abc' WHERE id = 1", "INCOMPATIBLE_DATA_FOR_TABLE"),
    ("UPDATE {t} SET v = DATE'2024-01-01'", "INCOMPATIBLE_DATA_FOR_TABLE"),
    ("UPDATE {t} SET nope = 1 WHERE id = 1", "UNRESOLVED_COLUMN"),
    ("UPDATE {t} SET v = 1 WHERE nope = 1", "UNRESOLVED_COLUMN"),
    ("DELETE FROM {t} WHERE nope = 1", "UNRESOLVED_COLUMN"),
    (
        "MERGE INTO {t} x USING (SELECT 1 AS id) s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET x.nope = 1",
        "UNRESOLVED_COLUMN",
    ),
    (
        "MERGE INTO {t} x USING (SELECT 100 AS id) s ON x.id = s.id "
        "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'abc')",
        "INCOMPATIBLE_DATA_FOR_TABLE",
    ),
    # fails at run time, in the write tasks, after rows 1..4 of the file were written
    (
        "UPDATE {t} SET v = CASE WHEN id = 5 THEN 10000000000 ELSE v + 1 END WHERE id <= 5",
        "CAST_OVERFLOW",
    ),
    (
        "MERGE INTO {t} x USING (SELECT CAST(id AS BIGINT) AS id FROM range(1, 6)) s "
        "ON x.id = s.id WHEN MATCHED THEN UPDATE SET v = 10000000000 / (6 - s.id)",
        "CAST_OVERFLOW",
    ),
)


@pytest.mark.parametrize("mode", [COW_V2, MOR_V2], ids=lambda m: m.id)
def test_type_errors_and_unknown_columns_commit_nothing(
    spark: SparkSession, namespace: str, warehouse: Path, mode: Mode
) -> None:
    name, loc = _small_table(spark, warehouse, namespace, mode)
    before = current_snapshot_id(loc)
    for statement, error in BAD_STATEMENTS:
        with pytest.raises(Exception, match=error):
            spark.sql(statement.replace("{t}", name)).collect()
        assert current_snapshot_id(loc) == before, statement
        assert orphan_files(loc) == [], statement
        assert missing_files(loc) == [], statement
    assert spark.sql(f"SELECT sum(v), count(*) FROM {name}").collect() == [(55, 10)]


@pytest.mark.parametrize(
    ("mode", "statement"),
    [
        (MOR_V2, "DELETE FROM {t} WHERE gate(id) >= 0 AND id % 2 = 0"),
        (COW_V2, "DELETE FROM {t} WHERE gate(id) >= 0 AND id % 2 = 0"),
        # the gate in SET holds the rewrite after it read its files: the commit finds no table
        (COW_V2, "UPDATE {t} SET v = CAST(gate(v) AS INT) WHERE id % 2 = 0"),
    ],
    ids=["mor-delete", "cow-delete", "cow-update"],
)
def test_row_level_change_on_a_table_another_writer_dropped(
    spark: SparkSession, namespace: str, warehouse: Path, tmp_path: Path, mode: Mode, statement: str
) -> None:
    """The table is dropped through a second catalog (another writer) after the statement loaded
    and scanned it: the statement fails with an error naming the table (or its missing files),
    and does not bring the table back or leave files where it was."""
    name, loc = _small_table(spark, warehouse, namespace, mode)
    gate = Gate(spark, tmp_path / "gate")
    jvm: Any = spark._jvm
    fmt = jvm.io.floe.format
    other_catalog = fmt.catalog.FileSystemCatalog(
        fmt.io.LocalFileIO(), floe.warehouse_uri(str(warehouse))
    )
    ident = fmt.catalog.TableIdentifier.of(jvm.java.util.List.of(namespace), "t")

    error = interleave(
        gate,
        lambda: spark.sql(statement.replace("{t}", name)),
        lambda: other_catalog.dropTable(ident, False),
    )
    assert error is not None, "a row-level change to a dropped table succeeded"
    left = [str(p) for p in local_path(loc).rglob("*") if p.is_file()]
    assert not left, f"files left where the dropped table was: {left}"
    tables = [r["tableName"] for r in spark.sql(f"SHOW TABLES IN {CATALOG}.{namespace}").collect()]
    assert "t" not in tables
    message = error_text(error)
    assert f"{namespace}.t" in message or f"{namespace}/t/" in message, message
    assert re.search(r"(?i)dropped|does not exist|no such table|not found|cannot find", message), (
        message
    )


def test_row_level_statements_on_a_time_travelled_table_fail(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    name, loc = _small_table(spark, warehouse, namespace, MOR_V2)
    first = snapshots(loc)[0]["snapshot-id"]
    before = current_snapshot_id(loc)
    spark.sql(
        f"CREATE OR REPLACE TEMP VIEW rl_travelled AS SELECT * FROM {name} VERSION AS OF {first}"
    )
    try:
        for statement in (
            "UPDATE rl_travelled SET v = 0",
            "DELETE FROM rl_travelled WHERE id = 1",
            "DELETE FROM rl_travelled WHERE id % 2 = 1",
            "MERGE INTO rl_travelled x USING (SELECT 1 AS id) s ON x.id = s.id "
            "WHEN MATCHED THEN DELETE",
        ):
            with pytest.raises(Exception) as raised:
                spark.sql(statement)
            message = error_text(raised.value)
            assert re.search(
                r"(?i)time travel|past snapshot|does not support (UPDATE|DELETE|MERGE)", message
            ), f"{statement}: {message}"
            assert current_snapshot_id(loc) == before
    finally:
        spark.catalog.dropTempView("rl_travelled")
    assert _ids(spark, name) == list(range(1, 11))


@pytest.mark.parametrize(
    ("key", "value", "statement"),
    [
        ("write.delete.mode", "sideways", "DELETE FROM {t} WHERE id % 2 = 0"),
        ("write.update.mode", "copy_on_write", "UPDATE {t} SET v = 0 WHERE id = 1"),
        (
            "write.merge.isolation-level",
            "chaos",
            "MERGE INTO {t} x USING (SELECT CAST(1 AS BIGINT) AS id) s ON x.id = s.id "
            "WHEN MATCHED THEN DELETE",
        ),
    ],
)
def test_invalid_mode_or_isolation_level_is_a_clear_error(
    spark: SparkSession, namespace: str, warehouse: Path, key: str, value: str, statement: str
) -> None:
    """Refused either when set or when used, naming the property and the value (and, when used,
    the table); nothing is committed."""
    name, loc = _small_table(spark, warehouse, namespace, MOR_V2)
    before = current_snapshot_id(loc)
    try:
        spark.sql(f"ALTER TABLE {name} SET TBLPROPERTIES ('{key}'='{value}')")
    except Exception as e:
        message = error_text(e)
        assert key in message and value in message, message
        return
    with pytest.raises(Exception) as raised:
        spark.sql(statement.replace("{t}", name))
    message = error_text(raised.value)
    assert key in message and value in message and f"{namespace}.t" in message, message
    assert current_snapshot_id(loc) == before
    assert orphan_files(loc) == []


def test_merge_with_schema_evolution_keeps_every_row(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """delta-io/delta#2128 dropped rows in a MERGE with schema evolution. Whether or not the new
    source column is added to the table, every row must come out right."""
    name, loc = _small_table(spark, warehouse, namespace, MOR_V2)
    spark.sql(
        f"MERGE WITH SCHEMA EVOLUTION INTO {name} x USING (SELECT CAST(id AS BIGINT) AS id, "
        "CAST(id * 10 AS INT) AS v, CAST(id % 2 AS INT) AS p, concat('e', id) AS extra "
        "FROM range(8, 13)) s ON x.id = s.id WHEN MATCHED THEN UPDATE SET * "
        "WHEN NOT MATCHED THEN INSERT *"
    )
    rows = spark.sql(f"SELECT id, v FROM {name} ORDER BY id").collect()
    assert [tuple(r) for r in rows] == [(i, i * 10 if i >= 8 else i) for i in range(1, 13)]
    if "extra" in spark.table(name).columns:
        extra = spark.sql(f"SELECT id, extra FROM {name} WHERE extra IS NOT NULL").collect()
        assert sorted(tuple(r) for r in extra) == [(i, f"e{i}") for i in range(8, 13)]
    assert not check_table(loc, MOR_V2, 12)
