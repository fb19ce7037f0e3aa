"""Branches and tags with Iceberg's SQL, and write-audit-publish (docs/branches.md).

Checked here: ``ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG [IF NOT EXISTS] ... [AS OF VERSION]
[RETAIN ...] [WITH SNAPSHOT RETENTION ...]``, ``REPLACE``, ``DROP [IF EXISTS]`` write the refs and
retention fields of the spec into the metadata file (read back with the pure-Python
``floe.inspect``) and refuse what Iceberg refuses with errors naming the table and the ref; a
branch is read through ``VERSION AS OF``, ``t.branch_b`` and the ``branch`` read option, a tag
through ``t.tag_x``; INSERT, DELETE, UPDATE and MERGE on ``t.branch_b`` and the ``branch`` write
option commit to the branch and leave main as it was; a tag refuses writes; ``fast_forward``
publishes a branch and refuses diverged ones; with ``write.wap.enabled`` every write path goes to
``spark.wap.branch`` (and reads follow it) or is staged with ``spark.wap.id``, then published
with ``cherrypick_snapshot``; ``expire_snapshots`` keeps what a branch's own retention keeps; and
refs made by Floe are used by Apache Iceberg's runtime and the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pyspark.errors import AnalysisException

import floe
import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _metadata(warehouse: Path, namespace: str, table: str = "t") -> dict[str, Any]:
    return inspect.load_table_metadata(f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}")


def _ids(spark: SparkSession, query: str) -> list[int]:
    return sorted(r[0] for r in spark.sql(query).collect())


@pytest.fixture
def table(spark: SparkSession, namespace: str) -> str:
    """floe.<ns>.t (id, p) partitioned by p, two appends: ids [1, 2] then [3]."""
    t = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING floe PARTITIONED BY (p)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a')")
    return t


def test_branch_and_tag_ddl_write_the_spec_refs(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    snapshots = _metadata(warehouse, namespace)["snapshots"]
    first_id = min(snapshots, key=lambda s: s["sequence-number"])["snapshot-id"]
    spark.sql(
        f"ALTER TABLE {table} CREATE BRANCH audit AS OF VERSION {first_id} RETAIN 7 DAYS "
        "WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 HOURS"
    )
    spark.sql(f"ALTER TABLE {table} CREATE TAG `v1.0` RETAIN 30 MINUTES")
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH IF NOT EXISTS audit")  # no-op
    refs = _metadata(warehouse, namespace)["refs"]
    current = _metadata(warehouse, namespace)["current-snapshot-id"]
    assert refs["audit"] == {
        "snapshot-id": first_id,
        "type": "branch",
        "max-ref-age-ms": 7 * 86_400_000,
        "min-snapshots-to-keep": 3,
        "max-snapshot-age-ms": 2 * 3_600_000,
    }
    assert refs["v1.0"] == {"snapshot-id": current, "type": "tag", "max-ref-age-ms": 1_800_000}

    with pytest.raises(AnalysisException, match=r"branch 'audit' .*already exists \(at snapshot"):
        spark.sql(f"ALTER TABLE {table} CREATE BRANCH audit")
    # REPLACE moves the branch and keeps the retention it does not set
    spark.sql(f"ALTER TABLE {table} REPLACE BRANCH audit WITH SNAPSHOT RETENTION 5 SNAPSHOTS")
    audit = _metadata(warehouse, namespace)["refs"]["audit"]
    assert audit["snapshot-id"] == current
    assert (audit["min-snapshots-to-keep"], audit["max-snapshot-age-ms"]) == (5, 7_200_000)
    assert audit["max-ref-age-ms"] == 7 * 86_400_000
    spark.sql(f"ALTER TABLE {table} CREATE OR REPLACE TAG `v1.0` AS OF VERSION {first_id}")
    assert _metadata(warehouse, namespace)["refs"]["v1.0"]["snapshot-id"] == first_id

    refusals = {
        f"ALTER TABLE {table} REPLACE BRANCH nope": "has no branch named 'nope'",
        f"ALTER TABLE {table} CREATE TAG audit": "a branch has that name",
        f"ALTER TABLE {table} DROP TAG audit": "'audit' is a branch; use DROP BRANCH",
        f"ALTER TABLE {table} DROP BRANCH main": "main is the table's current state",
        f"ALTER TABLE {table} DROP BRANCH nope": "has no branch named 'nope'",
        f"ALTER TABLE {table} CREATE BRANCH b2 AS OF VERSION 42": "no snapshot has id 42",
    }
    for statement, message in refusals.items():
        with pytest.raises(AnalysisException, match=message) as e:
            spark.sql(statement)
        assert table in str(e.value)
    with pytest.raises(Exception, match="WITH SNAPSHOT RETENTION"):
        spark.sql(f"ALTER TABLE {table} CREATE BRANCH b3 WITH SNAPSHOT RETENTION")
    spark.sql(f"ALTER TABLE {table} DROP BRANCH IF EXISTS nope")
    spark.sql(f"ALTER TABLE {table} DROP TAG `v1.0`")
    spark.sql(f"ALTER TABLE {table} DROP BRANCH audit")
    assert set(_metadata(warehouse, namespace)["refs"]) == {"main"}


def test_a_branch_of_an_empty_table_starts_at_an_empty_snapshot(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    t = f"floe.{namespace}.e"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING floe")
    with pytest.raises(AnalysisException, match="the table has no snapshot yet"):
        spark.sql(f"ALTER TABLE {t} CREATE TAG x")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH b RETAIN 1 DAYS")
    metadata = _metadata(warehouse, namespace, "e")
    assert metadata.get("current-snapshot-id", -1) == -1
    assert set(metadata["refs"]) == {"b"}
    assert metadata["refs"]["b"]["max-ref-age-ms"] == 86_400_000
    spark.sql(f"INSERT INTO {t}.branch_b VALUES (1)")
    assert _ids(spark, f"SELECT id FROM {t}.branch_b") == [1]
    assert _ids(spark, f"SELECT id FROM {t}") == []


def test_branch_reads_and_writes_leave_main_alone(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH dev")
    spark.sql(f"ALTER TABLE {table} CREATE TAG before")
    main_before = _metadata(warehouse, namespace)["current-snapshot-id"]
    spark.sql(f"INSERT INTO {table}.branch_dev VALUES (10, 'a'), (11, 'c')")
    spark.sql(f"DELETE FROM {table}.branch_dev WHERE id = 1")  # row-level, copy-on-write
    spark.sql(f"DELETE FROM {table}.branch_dev WHERE p = 'c'")  # metadata-only
    spark.sql(f"UPDATE {table}.branch_dev SET id = 20 WHERE id = 2")
    spark.sql(
        f"MERGE INTO {table}.branch_dev x USING (SELECT 3L AS id, 'a' AS p UNION ALL "
        "SELECT 4L, 'd') s ON x.id = s.id WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *"
    )
    expected = [4, 10, 20]
    assert _ids(spark, f"SELECT id FROM {table}.branch_dev") == expected
    assert _ids(spark, f"SELECT id FROM {table} VERSION AS OF 'dev'") == expected
    by_option = spark.read.option("branch", "dev").table(table)
    assert sorted(r.id for r in by_option.collect()) == expected
    assert _ids(spark, f"SELECT id FROM {table}.tag_before") == [1, 2, 3]
    assert _ids(spark, f"SELECT id FROM {table}") == [1, 2, 3]
    metadata = _metadata(warehouse, namespace)
    assert metadata["current-snapshot-id"] == main_before
    dev_head = metadata["refs"]["dev"]["snapshot-id"]
    history = {s["snapshot-id"]: s for s in metadata["snapshots"]}
    chain = []
    s: dict[str, Any] | None = history[dev_head]
    while s is not None and s["snapshot-id"] != main_before:
        chain.append(s["summary"]["operation"])
        s = history.get(s.get("parent-snapshot-id", -1))
    assert s is not None, "the branch's snapshots descend from main's"
    assert len(chain) == 5

    # the DataFrame branch write option, onto a branch that does not exist yet: created from main
    df = spark.createDataFrame([(7, "a")], "id BIGINT, p STRING")
    df.writeTo(table).option("branch", "fresh").append()
    assert _ids(spark, f"SELECT id FROM {table}.branch_fresh") == [1, 2, 3, 7]
    df.write.format("floe").option("branch", "fresh").mode("append").save(table)
    assert _ids(spark, f"SELECT id FROM {table}.branch_fresh") == [1, 2, 3, 7, 7]
    assert _metadata(warehouse, namespace)["current-snapshot-id"] == main_before

    # a tag takes no writes
    for write in (
        lambda: spark.sql(f"INSERT INTO {table}.tag_before VALUES (5, 'a')"),
        lambda: spark.sql(f"DELETE FROM {table}.tag_before WHERE id = 1"),
        lambda: df.writeTo(table).option("branch", "before").append(),
    ):
        with pytest.raises(AnalysisException, match="Cannot write to tag 'before' of table"):
            write()
    with pytest.raises(AnalysisException, match="has no branch named 'nope'"):
        spark.sql(f"SELECT * FROM {table}.branch_nope").collect()
    assert _metadata(warehouse, namespace)["refs"]["before"]["snapshot-id"] == main_before


def test_fast_forward_publishes_a_branch_and_refuses_a_diverged_one(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH audit")
    before = _metadata(warehouse, namespace)["current-snapshot-id"]
    spark.sql(f"INSERT INTO {table}.branch_audit VALUES (4, 'a')")
    head = _metadata(warehouse, namespace)["refs"]["audit"]["snapshot-id"]
    row = spark.sql(
        f"CALL floe.system.fast_forward(table => '{namespace}.t', branch => 'main', to => 'audit')"
    ).collect()[0]
    assert (row.branch_updated, row.previous_ref, row.updated_ref) == ("main", before, head)
    assert _ids(spark, f"SELECT id FROM {table}") == [1, 2, 3, 4]
    # main moves on: audit is behind, and fast-forwarding main to it would go back
    spark.sql(f"INSERT INTO {table} VALUES (5, 'b')")
    spark.sql(f"INSERT INTO {table}.branch_audit VALUES (6, 'b')")
    with pytest.raises(AnalysisException, match="is not an ancestor of the head of 'audit'"):
        spark.sql(f"CALL floe.system.fast_forward('{namespace}.t', 'main', 'audit')")
    assert _ids(spark, f"SELECT id FROM {table}") == [1, 2, 3, 4, 5]


@pytest.fixture
def wap_table(spark: SparkSession, table: str) -> Iterator[str]:
    """The table with write.wap.enabled; spark.wap.id / spark.wap.branch unset afterwards."""
    spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.wap.enabled' = 'true')")
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW src AS "
        "SELECT * FROM VALUES (1L, 'z'), (30L, 'a') AS s(id, p)"
    )
    try:
        yield table
    finally:
        spark.conf.unset("spark.wap.id")
        spark.conf.unset("spark.wap.branch")


WRITES: dict[str, Callable[[SparkSession, str], object]] = {
    "insert": lambda s, t: s.sql(f"INSERT INTO {t} VALUES (40, 'a')"),
    "overwrite partitions": lambda s, t: (
        s.createDataFrame([(41, "b")], "id BIGINT, p STRING").writeTo(t).overwritePartitions()
    ),
    "metadata delete": lambda s, t: s.sql(f"DELETE FROM {t} WHERE p = 'b'"),
    "row-level delete": lambda s, t: s.sql(f"DELETE FROM {t} WHERE id = 1"),
    "update": lambda s, t: s.sql(f"UPDATE {t} SET id = 10 WHERE id = 3"),
    "merge": lambda s, t: s.sql(
        f"MERGE INTO {t} x USING src s ON x.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    ),
    "dataframe append": lambda s, t: (
        s.createDataFrame([(50, "a")], "id BIGINT, p STRING").writeTo(t).append()
    ),
}


def test_wap_branch_takes_every_write_and_the_session_reads_it(
    spark: SparkSession, warehouse: Path, namespace: str, wap_table: str
) -> None:
    main_before = _metadata(warehouse, namespace)["current-snapshot-id"]
    spark.conf.set("spark.wap.branch", "etl")
    expected = {1, 2, 3}
    changes: dict[str, Callable[[set[int]], set[int]]] = {
        "insert": lambda e: e | {40},
        "overwrite partitions": lambda e: (e - {2}) | {41},
        "metadata delete": lambda e: e - {41},
        "row-level delete": lambda e: e - {1},
        "update": lambda e: (e - {3}) | {10},
        "merge": lambda e: e | {1, 30},
        "dataframe append": lambda e: e | {50},
    }
    for name, write in WRITES.items():
        write(spark, wap_table)
        expected = changes[name](expected)
        # the session reads the WAP branch
        assert set(_ids(spark, f"SELECT id FROM {wap_table}")) == expected, name
    metadata = _metadata(warehouse, namespace)
    assert metadata["current-snapshot-id"] == main_before
    assert "etl" in metadata["refs"]
    spark.conf.unset("spark.wap.branch")
    assert _ids(spark, f"SELECT id FROM {wap_table}") == [1, 2, 3]
    spark.sql(f"CALL floe.system.fast_forward('{namespace}.t', 'main', 'etl')")
    assert set(_ids(spark, f"SELECT id FROM {wap_table}")) == expected


def test_wap_id_stages_writes_and_cherrypick_publishes_them(
    spark: SparkSession, warehouse: Path, namespace: str, wap_table: str
) -> None:
    main_before = _metadata(warehouse, namespace)["current-snapshot-id"]
    spark.conf.set("spark.wap.id", "job-7")
    for name in ("insert", "row-level delete", "metadata delete"):
        WRITES[name](spark, wap_table)
        assert _ids(spark, f"SELECT id FROM {wap_table}") == [1, 2, 3], name
    metadata = _metadata(warehouse, namespace)
    assert metadata["current-snapshot-id"] == main_before
    staged = [s for s in metadata["snapshots"] if s["summary"].get("wap.id") == "job-7"]
    assert len(staged) == 3
    assert all(s["parent-snapshot-id"] == main_before for s in staged)
    assert set(metadata["refs"]) == {"main"}
    spark.conf.set("spark.wap.branch", "x")
    with pytest.raises(AnalysisException, match=r"sets both spark\.wap\.id=job-7 and spark\.wap"):
        WRITES["insert"](spark, wap_table)
    spark.conf.unset("spark.wap.branch")
    spark.conf.unset("spark.wap.id")
    append = next(s for s in staged if s["summary"]["operation"] == "append")
    spark.sql(
        f"CALL floe.system.cherrypick_snapshot('{namespace}.t', {append['snapshot-id']})"
    ).collect()
    assert _ids(spark, f"SELECT id FROM {wap_table}") == [1, 2, 3, 40]
    published = _metadata(warehouse, namespace)
    assert published["current-snapshot-id"] == append["snapshot-id"]  # fast-forward


def test_expire_snapshots_keeps_what_a_branch_retention_keeps(
    spark: SparkSession, warehouse: Path, namespace: str, table: str
) -> None:
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH keep3 WITH SNAPSHOT RETENTION 3 SNAPSHOTS")
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH keep1")
    for i in (7, 8):
        spark.sql(f"INSERT INTO {table}.branch_keep3 VALUES ({i}, 'a')")
        spark.sql(f"INSERT INTO {table}.branch_keep1 VALUES ({i}, 'a')")
    metadata = _metadata(warehouse, namespace)
    by_id = {s["snapshot-id"]: s for s in metadata["snapshots"]}

    def ancestors(head: int) -> list[int]:
        out = []
        s: dict[str, Any] | None = by_id[head]
        while s is not None:
            out.append(s["snapshot-id"])
            s = by_id.get(s.get("parent-snapshot-id", -1))
        return out

    keep3 = ancestors(metadata["refs"]["keep3"]["snapshot-id"])
    keep1 = ancestors(metadata["refs"]["keep1"]["snapshot-id"])
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)"
    ).collect()
    kept = {s["snapshot-id"] for s in _metadata(warehouse, namespace)["snapshots"]}
    assert set(keep3[:3]) <= kept
    assert keep1[1] not in kept
    assert _ids(spark, f"SELECT id FROM {table}.branch_keep3") == [1, 2, 3, 7, 8]
    assert _ids(spark, f"SELECT id FROM {table}") == [1, 2, 3]


def test_refs_are_shared_with_the_iceberg_runtime(
    spark: SparkSession, iceberg: str, warehouse: Path, namespace: str, table: str
) -> None:
    ice = f"{iceberg}.{namespace}.t"
    # Floe's refs, read and written by Iceberg
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH floe_b RETAIN 2 DAYS")
    spark.sql(f"INSERT INTO {table}.branch_floe_b VALUES (4, 'a')")
    spark.sql(f"ALTER TABLE {table} CREATE TAG floe_t")
    assert _ids(spark, f"SELECT id FROM {ice}.branch_floe_b") == [1, 2, 3, 4]
    assert _ids(spark, f"SELECT id FROM {ice} VERSION AS OF 'floe_t'") == [1, 2, 3]
    spark.sql(f"INSERT INTO {ice}.branch_floe_b VALUES (5, 'b')")
    assert _ids(spark, f"SELECT id FROM {table}.branch_floe_b") == [1, 2, 3, 4, 5]
    jvm: Any = spark._jvm
    ice_table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, ice)
    ice_ref = ice_table.refs().get("floe_b")
    assert ice_ref.isBranch() and ice_ref.maxRefAgeMs() == 2 * 86_400_000

    # Iceberg's refs, read, written and published by Floe
    current = ice_table.currentSnapshot().snapshotId()
    ice_table.manageSnapshots().createBranch("ice_b", current).createTag("ice_t", current).commit()
    spark.sql(f"INSERT INTO {ice}.branch_ice_b VALUES (6, 'c')")
    assert _ids(spark, f"SELECT id FROM {table}.branch_ice_b") == [1, 2, 3, 6]
    spark.sql(f"UPDATE {table}.branch_ice_b SET id = 60 WHERE id = 6")
    assert _ids(spark, f"SELECT id FROM {table}.tag_ice_t") == [1, 2, 3]
    spark.sql(f"CALL floe.system.fast_forward('{namespace}.t', 'main', 'ice_b')")
    assert _ids(spark, f"SELECT id FROM {ice}") == [1, 2, 3, 60]
    # and Iceberg fast-forwards a branch Floe made
    spark.sql(f"ALTER TABLE {table} CREATE BRANCH floe_late")
    spark.sql(f"INSERT INTO {table} VALUES (7, 'a')")
    spark.sql(
        f"CALL {iceberg}.system.fast_forward(table => '{namespace}.t', branch => 'floe_late', "
        "to => 'main')"
    ).collect()
    assert _ids(spark, f"SELECT id FROM {table}.branch_floe_late") == [1, 2, 3, 7, 60]


def test_a_stream_into_a_branch_is_refused_not_sent_to_main(
    spark: SparkSession, warehouse: Path, namespace: str, table: str, tmp_path: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    source = tmp_path / "in"
    spark.createDataFrame([(9, "a")], "id BIGINT, p STRING").write.parquet(str(source))
    main_before = _metadata(warehouse, namespace)["current-snapshot-id"]
    query = (
        spark.readStream.schema("id BIGINT, p STRING")
        .parquet(str(source))
        .writeStream.format("floe")
        .option("branch", "s")
        .option("checkpointLocation", str(tmp_path / "ck"))
        .trigger(availableNow=True)
        .toTable(table)
    )
    try:
        with pytest.raises(StreamingQueryException, match=r"Cannot stream into .* to branch 's'"):
            query.awaitTermination()
    finally:
        query.stop()
    assert _metadata(warehouse, namespace)["current-snapshot-id"] == main_before
