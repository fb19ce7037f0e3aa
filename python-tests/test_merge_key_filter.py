"""A merge-on-read MERGE filters the target by a Bloom filter of the source's join keys.

Floe's optimizer rule (MergeTargetKeyFilter, README 'DELETE, UPDATE and MERGE') puts
``might_contain(bloom_filter_agg(source keys))`` on the target side of the MERGE's join, so target
rows that cannot match are dropped before Spark's shuffle. These tests check that the plan has
it where it is safe (INNER / RIGHT OUTER join, deterministic small source) and not elsewhere,
and that results, snapshot contents and error behaviour are those of a MERGE without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MOR = (
    "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
    "'write.merge.mode'='merge-on-read'"
)
UPSERT = "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"


def _create(spark: SparkSession, name: str, props: str, rows: int = 1000) -> None:
    """Ids 0..rows-1 (``v`` = 'old'), in 4 files."""
    spark.sql(
        f"CREATE TABLE {name} (id BIGINT, k INT, v STRING) USING floe TBLPROPERTIES ({props})"
    )
    spark.sql(
        f"INSERT INTO {name} SELECT /*+ REPARTITION(4) */ id, CAST(id % 7 AS INT), 'old' "
        f"FROM range({rows})"
    )


def _source(spark: SparkSession, view: str) -> None:
    """10 updates scattered over the table, 5 new ids and one NULL id (never matches)."""
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW {view} AS "
        "SELECT id * 97 AS id, CAST(id * 97 % 7 AS INT) AS k, 'new' AS v FROM range(10) "
        "UNION ALL SELECT 5000 + id, 0, 'ins' FROM range(5) "
        "UNION ALL SELECT CAST(NULL AS BIGINT), 1, 'null-key'"
    )


def _plan(spark: SparkSession, sql: str) -> str:
    return str(spark.sql(f"EXPLAIN {sql}").collect()[0][0])


def _rows(spark: SparkSession, name: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(f"SELECT id, k, v FROM {name}").collect()), key=repr)


def _expected_upsert(rows: int = 1000) -> list[tuple[Any, ...]]:
    table: dict[Any, tuple[Any, ...]] = {i: (i, i % 7, "old") for i in range(rows)}
    for i in range(10):
        table[i * 97] = (i * 97, i * 97 % 7, "new")
    for i in range(5):
        table[5000 + i] = (5000 + i, 0, "ins")
    out = [*table.values(), (None, 1, "null-key")]
    return sorted(out, key=repr)


def _current_summary(spark: SparkSession, name: str) -> dict[str, str]:
    location = next(
        r[1] for r in spark.sql(f"DESCRIBE TABLE EXTENDED {name}").collect() if r[0] == "Location"
    )
    metadata = inspect.load_table_metadata(str(location))
    snap = next(
        s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"]
    )
    return dict(snap["summary"])


@pytest.mark.parametrize("version", ["2", "3"])
def test_mor_merge_filters_target_by_source_keys(
    spark: SparkSession, namespace: str, version: str
) -> None:
    name = f"floe.{namespace}.t"
    _create(spark, name, f"{MOR}, 'format-version'='{version}'")
    _source(spark, "merge_src")
    merge = f"MERGE INTO {name} t USING merge_src s ON t.id = s.id {UPSERT}"
    plan = _plan(spark, merge)
    assert "might_contain" in plan and "bloom_filter_agg" in plan, plan
    spark.sql(merge)
    assert _rows(spark, name) == _expected_upsert()
    summary = _current_summary(spark, name)
    # exactly the 10 matched rows deleted, 10 updated + 5 new + 1 NULL-key rows added
    assert summary["added-position-deletes"] == "10"
    assert summary["added-records"] == "16"
    assert summary["total-records"] == str(1000 + 16)
    assert summary["total-position-deletes"] == "10"


def test_filter_keeps_every_match_with_composite_and_cast_keys(
    spark: SparkSession, namespace: str
) -> None:
    """Two join keys, one compared across types (INT source key against the BIGINT id)."""
    name = f"floe.{namespace}.t"
    _create(spark, name, f"{MOR}, 'format-version'='3'")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_src2 AS SELECT CAST(id * 31 AS INT) AS id, "
        "CAST(id * 31 % 7 AS INT) AS k, 'new' AS v FROM range(30)"
    )
    merge = (
        f"MERGE INTO {name} t USING merge_src2 s ON t.id = s.id AND t.k = s.k "
        "WHEN MATCHED THEN UPDATE SET t.v = s.v"
    )
    assert "might_contain" in _plan(spark, merge)
    spark.sql(merge)
    got: dict[str, int] = dict(spark.sql(f"SELECT v, count(*) FROM {name} GROUP BY v").collect())
    assert got == {"new": 30, "old": 970}


def test_duplicate_source_matches_still_fail_and_change_nothing(
    spark: SparkSession, namespace: str
) -> None:
    name = f"floe.{namespace}.t"
    _create(spark, name, f"{MOR}, 'format-version'='3'")
    before = _rows(spark, name)
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_dup AS "
        "SELECT 7L AS id, 0 AS k, 'a' AS v UNION ALL SELECT 7L, 0, 'b'"
    )
    with pytest.raises(Exception, match=r"(?i)MERGE_CARDINALITY_VIOLATION|multiple source rows"):
        spark.sql(f"MERGE INTO {name} t USING merge_dup s ON t.id = s.id {UPSERT}")
    assert _rows(spark, name) == before


@pytest.mark.parametrize(
    "case",
    ["copy-on-write", "not-matched-by-source", "too-large", "disabled"],
)
def test_no_filter_where_it_is_unsafe_or_unwanted(
    spark: SparkSession, namespace: str, case: str
) -> None:
    name = f"floe.{namespace}.t"
    props = "'format-version'='3'" if case == "copy-on-write" else f"{MOR}, 'format-version'='3'"
    _create(spark, name, props)
    _source(spark, "merge_src")
    source = "merge_src"
    clauses = UPSERT
    conf: dict[str, str] = {}
    if case == "not-matched-by-source":  # full outer join: every target row is needed
        clauses += " WHEN NOT MATCHED BY SOURCE AND t.id >= 990 THEN DELETE"
    elif case == "too-large":
        conf = {"spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold": "1b"}
    elif case == "disabled":
        conf = {"spark.sql.optimizer.runtime.bloomFilter.enabled": "false"}
    merge = f"MERGE INTO {name} t USING {source} s ON t.id = s.id {clauses}"
    try:
        for key, value in conf.items():
            spark.conf.set(key, value)
        assert "might_contain" not in _plan(spark, merge)
        spark.sql(merge)
    finally:
        for key in conf:
            spark.conf.unset(key)
    expected = _expected_upsert()
    if case == "not-matched-by-source":
        updated = {i * 97 for i in range(10)}
        expected = [
            r
            for r in expected
            if not (r[0] is not None and 990 <= r[0] < 1000 and r[0] not in updated)
        ]
    assert _rows(spark, name) == expected


def test_a_source_read_from_a_table_merges_without_the_filter(
    spark: SparkSession, namespace: str
) -> None:
    """A source that reads a DSv2 table (here a Floe table) is planned by Spark's scan push-down,
    which does not reach the filter's subquery: the rule leaves such a MERGE alone, and the
    MERGE plans and runs (it failed with "No plan for RelationV2" before)."""
    name = f"floe.{namespace}.t"
    source = f"floe.{namespace}.src"
    _create(spark, name, MOR)
    _source(spark, "merge_src_view")
    spark.sql(f"CREATE TABLE {source} USING floe AS SELECT * FROM merge_src_view")
    merge = f"MERGE INTO {name} t USING {source} s ON t.id = s.id {UPSERT}"
    assert "might_contain" not in _plan(spark, merge)
    spark.sql(merge)
    assert _rows(spark, name) == _expected_upsert()


def test_a_source_calling_python_merges_without_the_filter(
    spark: SparkSession, namespace: str
) -> None:
    """A Python UDF in the source is taken out of the plan by Spark, but not out of the filter's
    subquery (and may have effects a second evaluation would repeat): no filter, and the MERGE
    runs (it failed with "Cannot generate code for expression" before)."""
    from pyspark.sql.types import LongType

    spark.udf.register("floe_test_plus_zero", lambda x: x, LongType())
    name = f"floe.{namespace}.t"
    _create(spark, name, MOR)
    _source(spark, "merge_src_py_base")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_src_py AS "
        "SELECT floe_test_plus_zero(id) AS id, k, v FROM merge_src_py_base"
    )
    merge = f"MERGE INTO {name} t USING merge_src_py s ON t.id = s.id {UPSERT}"
    try:
        assert "might_contain" not in _plan(spark, merge)
        spark.sql(merge)
        assert _rows(spark, name) == _expected_upsert()
    finally:  # the session is shared: later tests list its functions
        spark.sql("DROP VIEW IF EXISTS merge_src_py")
        spark.sql("DROP TEMPORARY FUNCTION IF EXISTS floe_test_plus_zero")
