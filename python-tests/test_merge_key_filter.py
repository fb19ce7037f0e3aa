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


@pytest.mark.usefixtures("job_scans")  # looks at the job's scan nodes
def test_a_source_read_from_a_table_gets_the_filter(spark: SparkSession, namespace: str) -> None:
    """A source that reads a DSv2 table (here a Floe table): the filter's subquery is optimized with
    the session's optimizer, which builds its scan (it failed with "No plan for RelationV2" when the
    subquery was left unoptimized, and then had no filter at all)."""
    name = f"floe.{namespace}.t"
    source = f"floe.{namespace}.src"
    _create(spark, name, MOR)
    _source(spark, "merge_src_view")
    spark.sql(f"CREATE TABLE {source} USING floe AS SELECT * FROM merge_src_view")
    merge = f"MERGE INTO {name} t USING {source} s ON t.id = s.id {UPSERT}"
    plan = _plan(spark, merge)
    assert "might_contain" in plan and "bloom_filter_agg" in plan, plan
    # the subquery reads the source table's key column only
    assert f"BatchScan {source}[id#" in plan.replace("`", ""), plan
    spark.sql(merge)
    assert _rows(spark, name) == _expected_upsert()
    summary = _current_summary(spark, name)
    assert summary["added-position-deletes"] == "10"
    assert summary["added-records"] == "16"


def test_a_source_read_from_an_iceberg_table_gets_the_filter(
    spark: SparkSession, iceberg: str, namespace: str
) -> None:
    """The source is a table of Apache Iceberg's own catalog (another DSv2 source)."""
    name = f"floe.{namespace}.t"
    source = f"{iceberg}.{namespace}.src"
    _create(spark, name, MOR)
    _source(spark, "merge_src_view")
    spark.sql(f"CREATE TABLE {source} USING iceberg AS SELECT * FROM merge_src_view")
    merge = f"MERGE INTO {name} t USING {source} s ON t.id = s.id {UPSERT}"
    plan = _plan(spark, merge)
    assert "might_contain" in plan and "bloom_filter_agg" in plan, plan
    spark.sql(merge)
    assert _rows(spark, name) == _expected_upsert()
    assert _current_summary(spark, name)["added-position-deletes"] == "10"


def test_self_merge_gets_the_filter(spark: SparkSession, namespace: str) -> None:
    """The source reads the target table itself (the same snapshot as the MERGE's scan)."""
    name = f"floe.{namespace}.t"
    _create(spark, name, MOR)
    merge = (
        f"MERGE INTO {name} t USING (SELECT id, k, 'self' AS v FROM {name} WHERE id % 100 = 3) s "
        "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.v = s.v"
    )
    assert "might_contain" in _plan(spark, merge)
    spark.sql(merge)
    expected = sorted(
        ((i, i % 7, "self" if i % 100 == 3 else "old") for i in range(1000)), key=repr
    )
    assert _rows(spark, name) == expected
    assert _current_summary(spark, name)["added-position-deletes"] == "10"


def test_null_safe_composite_keys_with_nulls(spark: SparkSession, namespace: str) -> None:
    """``<=>`` on a nullable key: NULL matches NULL, so the filter must pass target rows whose key
    is NULL when the source has one (Spark joins on coalesce/isnull pairs, hashed on both sides)."""
    name = f"floe.{namespace}.t"
    _create(spark, name, f"{MOR}, 'format-version'='3'", rows=100)
    spark.sql(f"INSERT INTO {name} VALUES (2000, NULL, 'old'), (2001, NULL, 'old')")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_src_ns AS SELECT * FROM VALUES "
        "(2000L, CAST(NULL AS INT), 'new'), (2001L, 3, 'ins'), (0L, 0, 'new'), "
        "(CAST(NULL AS BIGINT), CAST(NULL AS INT), 'ins') AS s(id, k, v)"
    )
    merge = f"MERGE INTO {name} t USING merge_src_ns s ON t.id = s.id AND t.k <=> s.k {UPSERT}"
    assert "might_contain" in _plan(spark, merge)
    spark.sql(merge)
    table: dict[Any, tuple[Any, ...]] = {(i, i % 7): (i, i % 7, "old") for i in range(100)}
    table[(2000, None)] = (2000, None, "new")
    table[(2001, None)] = (2001, None, "old")
    table[(0, 0)] = (0, 0, "new")
    expected = sorted([*table.values(), (2001, 3, "ins"), (None, None, "ins")], key=repr)
    assert _rows(spark, name) == expected


@pytest.mark.parametrize(
    ("threshold", "filtered"), [("0", False), ("-1", False), ("1b", False), ("1PB", True)]
)
def test_creation_side_threshold(
    spark: SparkSession, namespace: str, threshold: str, filtered: bool
) -> None:
    """Spark's own setting, read as Spark reads it: zero or negative means no filter (as for
    Spark's runtime filters), a value Spark cannot parse cannot be set."""
    name = f"floe.{namespace}.t"
    _create(spark, name, MOR, rows=10)
    _source(spark, "merge_src")
    merge = f"MERGE INTO {name} t USING merge_src s ON t.id = s.id {UPSERT}"
    key = "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold"
    try:
        spark.conf.set(key, threshold)
        assert ("might_contain" in _plan(spark, merge)) == filtered
        with pytest.raises(Exception, match=r"(?i)creationSideThreshold"):
            spark.conf.set(key, "ten megabytes")
    finally:
        spark.conf.unset(key)
    spark.sql(merge)
    assert _rows(spark, name) == _expected_upsert(10)


def test_merge_into_a_branch_gets_the_filter(spark: SparkSession, namespace: str) -> None:
    name = f"floe.{namespace}.t"
    _create(spark, name, MOR)
    spark.sql(f"ALTER TABLE {name} CREATE BRANCH audit")
    _source(spark, "merge_src")
    main_before = _rows(spark, name)
    merge = f"MERGE INTO {name}.branch_audit t USING merge_src s ON t.id = s.id {UPSERT}"
    assert "might_contain" in _plan(spark, merge)
    spark.sql(merge)
    assert _rows(spark, f"{name}.branch_audit") == _expected_upsert()
    assert _rows(spark, name) == main_before


@pytest.mark.parametrize("nondeterministic", [False, True])
def test_a_source_calling_python(
    spark: SparkSession, namespace: str, nondeterministic: bool
) -> None:
    """A deterministic Python UDF in the source: the filter's subquery is optimized by the session's
    optimizer, which takes the call out into its own operator (it failed with "Cannot generate code
    for expression" when the subquery was left unoptimized). One marked nondeterministic gets no
    filter (its two evaluations may differ)."""
    from pyspark.sql.functions import udf
    from pyspark.sql.types import LongType

    fn = udf(lambda x: x, LongType())
    if nondeterministic:
        fn = fn.asNondeterministic()
    spark.udf.register("floe_test_plus_zero", fn)
    name = f"floe.{namespace}.t"
    _create(spark, name, MOR)
    _source(spark, "merge_src_py_base")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW merge_src_py AS "
        "SELECT floe_test_plus_zero(id) AS id, k, v FROM merge_src_py_base"
    )
    merge = f"MERGE INTO {name} t USING merge_src_py s ON t.id = s.id {UPSERT}"
    try:
        assert ("might_contain" in _plan(spark, merge)) != nondeterministic
        spark.sql(merge)
        assert _rows(spark, name) == _expected_upsert()
    finally:  # the session is shared: later tests list its functions
        spark.sql("DROP VIEW IF EXISTS merge_src_py")
        spark.sql("DROP TEMPORARY FUNCTION IF EXISTS floe_test_plus_zero")
