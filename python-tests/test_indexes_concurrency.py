"""Index builds racing other commits (docs/indexes.md, "Keeping it current"), with threads in the
shared session: a build racing a stream of INSERTs commits and covers what it saw, while every
INSERT commits; two builds of one index name conflict cleanly: one index, no stray file."""

from __future__ import annotations

import re
import threading

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from test_indexes import (
    ROWS_PER_FILE,
    _coverage,
    _expected_ids,
    _fill,
    _ids,
    _index_folder,
    _index_pruned,
    _k,
    _table,
)


def test_build_racing_inserts_covers_what_it_saw(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    built = threading.Event()
    errors: list[BaseException] = []

    def build() -> None:
        try:
            spark.sql(f"CREATE INDEX by_k ON {table} (k)")
        except BaseException as e:  # reported by the assertion below
            errors.append(e)
        finally:
            built.set()

    thread = threading.Thread(target=build)
    thread.start()
    inserted: list[int] = []
    after = 0
    try:
        while after < 2:  # append while the build runs, then twice more
            after += built.is_set()
            inserted.append(1000 + len(inserted))
            spark.sql(f"INSERT INTO {table} (id, k) VALUES ({inserted[-1]}, 13)")
    finally:
        thread.join()
    assert errors == []
    covered, live, _, problem = _coverage(spark, table, "by_k")
    assert problem is None
    assert live == 3 + len(inserted)
    # it covers the files it saw and the appends committed after it (their own segments); the
    # appends that raced it stay uncovered, and at least one did race it
    assert 3 <= covered < live, (covered, live, len(inserted))
    expected = [*_expected_ids(3, lambda i: _k(i) == 13), *inserted]
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == expected
    assert _index_pruned(spark, table) > 0
    spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_k')").collect()
    assert _coverage(spark, table, "by_k")[:2] == (live, live)
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == expected
    assert spark.sql(f"SELECT count(*) FROM {table}").first() == (
        3 * ROWS_PER_FILE + len(inserted),
    )


def _race(spark: SparkSession, *statements: str) -> list[str | None]:
    """Runs the statements at once, one thread each; returns each one's error message or None."""
    start = threading.Barrier(len(statements))
    outcomes: list[str | None] = [None] * len(statements)

    def run(i: int) -> None:
        start.wait()
        try:
            spark.sql(statements[i])
        except AnalysisException as e:
            outcomes[i] = str(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(statements))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_two_builds_of_one_index_conflict_cleanly(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    columns = ["k", "id"]
    outcomes = _race(spark, *(f"CREATE INDEX by_x ON {table} USING btree ({c})" for c in columns))
    winners = [c for c, error in zip(columns, outcomes, strict=True) if error is None]
    assert len(winners) == 1, outcomes
    # Spark's own error, as when the index existed before the statement (whichever check saw it)
    (error,) = [e for e in outcomes if e is not None]
    assert re.search(r"index by_x on table .*\.t because it already exists", error), error
    selected = "name, columns, covered_files, live_files, problem"
    rows = spark.sql(f"SELECT {selected} FROM {table}.indexes").collect()
    assert [tuple(r) for r in rows] == [("by_x", winners, 3, 3, None)]
    # the loser's segments are deleted: only the winner's one segment is left
    assert len(list((_index_folder(spark, table) / "by_x").glob("*.puffin"))) == 1
    value = 13 if winners == ["k"] else 14
    expected = _expected_ids(3, lambda i: (_k(i) if winners == ["k"] else i) == value)
    assert _ids(spark, f"SELECT id FROM {table} WHERE {winners[0]} = {value}") == expected
    assert _index_pruned(spark, table) > 0
    spark.sql(f"INSERT INTO {table} (id, k) VALUES (77, 13)")
    assert _coverage(spark, table, "by_x") == (4, 4, 2, None)

    # IF NOT EXISTS / IF EXISTS make the loser of the same races a no-op
    outcomes = _race(spark, *[f"CREATE INDEX IF NOT EXISTS by_s ON {table} (s)"] * 2)
    assert outcomes == [None, None]
    assert _coverage(spark, table, "by_s") == (4, 4, 1, None)
    assert len(list((_index_folder(spark, table) / "by_s").glob("*.puffin"))) == 1
    assert _race(spark, *[f"DROP INDEX IF EXISTS by_s ON {table}"] * 2) == [None, None]
    names = [r[0] for r in spark.sql(f"SELECT name FROM {table}.indexes").collect()]
    assert names == ["by_x"]
