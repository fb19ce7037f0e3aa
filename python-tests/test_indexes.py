"""Secondary indexes end to end (docs/indexes.md): CREATE/DROP INDEX through Spark's own parser,
planning with indexes against the same query on a plain copy, coverage, time travel, deletes,
renames and errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import scan_report, unique_name
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

FILES = 6
ROWS_PER_FILE = 20

# One row per id; ids are spread over the files round-robin, so every file's min/max bounds span
# nearly the whole key range and only an index can tell the files apart.
ROW_SQL = """
SELECT id,
       CASE WHEN id % 12 = 0 THEN NULL ELSE CAST(id % 37 AS INT) END AS k,
       CASE WHEN id % 13 = 4 THEN NULL ELSE concat('v', lpad(CAST(id AS STRING), 3, '0')) END AS s,
       date_add(DATE'2024-01-01', CAST(id AS INT)) AS d,
       timestamp_seconds(1700000000 + id * 3600) AS ts,
       CAST(id / 4 AS DECIMAL(10, 2)) AS dec,
       id % 50 = 7 AS b,
       named_struct('x', id * 10) AS n,
       CAST(concat('b', CAST(id AS STRING)) AS BINARY) AS bin
FROM (SELECT id * {files} + {f} AS id FROM range({rows}))
"""

COLUMNS = (
    "id BIGINT, k INT, s STRING, d DATE, ts TIMESTAMP, dec DECIMAL(10, 2), b BOOLEAN, "
    "n STRUCT<x: BIGINT>, bin BINARY"
)

INDEXES = {
    "by_k": "USING inverted (k)",
    "by_s": "USING btree (s)",
    "by_id": "USING btree (id)",
    "by_d": "(d)",
    "by_ts": "USING inverted (ts)",
    "by_dec": "(dec)",
    "by_b": "(b)",
    "by_nx": "(n.x)",
    "by_bin": "USING btree (bin)",
}

PREDICATES = [
    "k = 13",
    "k IN (3, 30)",
    "k IN (13, 14)",
    "k IS NULL",
    "k IS NOT NULL AND k < 2",
    "k <= 1",
    "k > 35",
    "k >= 36",
    "k BETWEEN 4 AND 5",
    "NOT (k <> 7)",
    "k = 3 OR k = 9",
    "k = 3 AND s = 'v003'",
    "k = 3 OR s = 'v010'",
    "NOT (k IS NOT NULL)",
    "s = 'v042'",
    "s LIKE 'v04%'",
    "s LIKE 'v042%'",
    "s IN ('v001', 'v119', 'nope')",
    "s IS NULL",
    "s > 'v115'",
    "id = 77",
    "id BETWEEN 10 AND 12",
    "d = DATE'2024-01-11'",
    "d < DATE'2024-01-03'",
    "ts = TIMESTAMP'2023-11-14 22:13:20' + INTERVAL 5 HOURS",
    "dec = 2.50",
    "dec >= 29.50",
    "b = true",
    "n.x = 420",
    "bin = CAST('b17' AS BINARY)",
    "k = 1000",
]

# Predicates that the files' bounds cannot narrow but an index can (a boolean or a value outside
# every file's bounds gains nothing from an index).
SELECTIVE = [
    "k = 13",
    "k BETWEEN 4 AND 5",
    "s = 'v042'",
    "s LIKE 'v042%'",
    "id = 77",
    "d = DATE'2024-01-11'",
    "dec = 2.50",
    "n.x = 420",
    "bin = CAST('b17' AS BINARY)",
    "k = 3 AND s = 'v003'",
    "NOT (k <> 7)",
    "k IN (13, 14)",
]


def _rows(spark: SparkSession, sql: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in spark.sql(sql).collect()), key=repr)


def _ids(spark: SparkSession, sql: str) -> list[int]:
    return sorted(int(r[0]) for r in spark.sql(sql).collect())


def _expected_ids(files: int, keep: Any) -> list[int]:
    """The ids of the first {files} files (as _fill writes them) for which keep(id) holds."""
    return sorted(
        r * FILES + f for f in range(files) for r in range(ROWS_PER_FILE) if keep(r * FILES + f)
    )


def _k(i: int) -> int | None:
    return None if i % 12 == 0 else i % 37

def _index_pruned(spark: SparkSession, table: str) -> int:
    return sum(scan_report(spark, table)["index-pruned-files"].values())


def _fill(spark: SparkSession, table: str, first_file: int, files: int) -> None:
    for f in range(first_file, first_file + files):
        spark.sql(ROW_SQL.format(files=FILES, f=f, rows=ROWS_PER_FILE)).coalesce(1).writeTo(
            table
        ).append()


@pytest.fixture(scope="module")
def tables(spark: SparkSession) -> Iterator[tuple[str, str]]:
    """An indexed table and a plain copy of the same rows (both {FILES} files)."""
    ns = unique_name("indexes")
    spark.sql(f"CREATE NAMESPACE floe.{ns}")
    indexed, plain = f"floe.{ns}.indexed", f"floe.{ns}.plain"
    for table in (indexed, plain):
        spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe")
        _fill(spark, table, 0, FILES)
    for name, spec in INDEXES.items():
        spark.sql(f"CREATE INDEX {name} ON {indexed} {spec}")
    yield indexed, plain


def _index_folder(spark: SparkSession, table: str) -> Path:
    """The table's hidden folder of index files (metadata/_floe_indexes)."""
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'").first()
    assert location is not None
    return Path(location[1].replace("file:", "")) / "metadata" / "_floe_indexes"


@pytest.mark.parametrize("predicate", PREDICATES)
def test_predicate_gives_the_rows_of_the_plain_table(
    spark: SparkSession, tables: tuple[str, str], predicate: str
) -> None:
    indexed, plain = tables
    expected = _rows(spark, f"SELECT * FROM {plain} WHERE {predicate}")
    assert _rows(spark, f"SELECT * FROM {indexed} WHERE {predicate}") == expected


@pytest.mark.parametrize("predicate", SELECTIVE)
def test_selective_predicate_prunes_files_with_an_index(
    spark: SparkSession, tables: tuple[str, str], predicate: str
) -> None:
    indexed, plain = tables
    spark.sql(f"SELECT * FROM {plain} WHERE {predicate}").collect()
    assert _index_pruned(spark, plain) == 0
    spark.sql(f"SELECT * FROM {indexed} WHERE {predicate}").collect()
    report = scan_report(spark, indexed)
    assert _index_pruned(spark, indexed) > 0, report
    assert report["result-data-files"] < FILES


def test_explain_names_the_index(spark: SparkSession, tables: tuple[str, str]) -> None:
    indexed, _ = tables
    plan = "\n".join(
        r[0] for r in spark.sql(f"EXPLAIN SELECT * FROM {indexed} WHERE k = 13").collect()
    )
    assert "indexes=[by_k (pruned" in plan


def test_or_across_columns_reads_every_file_and_is_right(
    spark: SparkSession, tables: tuple[str, str]
) -> None:
    indexed, plain = tables
    predicate = "k = 3 OR id > 0"
    assert _rows(spark, f"SELECT id FROM {indexed} WHERE {predicate}") == _rows(
        spark, f"SELECT id FROM {plain} WHERE {predicate}"
    )
    assert _index_pruned(spark, indexed) == 0


def test_drop_index_if_exists_and_create_if_not_exists(
    spark: SparkSession, tables: tuple[str, str]
) -> None:
    indexed, _ = tables
    spark.sql(
        f"CREATE INDEX IF NOT EXISTS by_k ON TABLE {indexed} USING btree (s)"
    )  # kept as it was
    spark.sql(f"CREATE INDEX tmp_idx ON {indexed} (k)")
    spark.sql(f"DROP INDEX tmp_idx ON {indexed}")
    spark.sql(f"DROP INDEX IF EXISTS tmp_idx ON {indexed}")
    spark.sql(f"SELECT * FROM {indexed} WHERE k = 13").collect()
    assert set(scan_report(spark, indexed)["index-pruned-files"]) == {"by_k"}


def _table(spark: SparkSession, namespace: str, name: str, props: str = "") -> str:
    table = f"floe.{namespace}.{name}"
    spark.sql(f"CREATE TABLE {table} ({COLUMNS}) USING floe {props}")
    return table


def test_files_appended_after_the_build_are_scanned(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {table} (k) OPTIONS ('maintenance' = 'deferred')")
    _fill(spark, table, 3, 3)  # uncovered files (deferred), with ids the index has never seen
    assert _ids(spark, f"SELECT id FROM {table} WHERE id IN (5, 4, 119)") == [4, 5, 119]
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == _expected_ids(
        FILES, lambda i: _k(i) == 13
    )
    report = scan_report(spark, table)
    assert report["index-pruned-files"]["by_k"] > 0
    assert report["result-data-files"] >= 3  # the three uncovered files are always read


def test_time_travel_before_and_after_the_build(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    before = spark.sql(
        f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC"
    ).first()
    assert before is not None
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    _fill(spark, table, 3, 3)
    old = before[0]
    assert _rows(spark, f"SELECT id FROM {table} VERSION AS OF {old} WHERE id = 7") == [(7,)]
    assert _index_pruned(spark, table) > 0
    assert _rows(spark, f"SELECT id FROM {table} VERSION AS OF {old} WHERE id = 9") == []
    assert _rows(spark, f"SELECT id FROM {table} WHERE id IN (7, 9)") == [(7,), (9,)]


@pytest.mark.parametrize("version", [2, 3])
def test_merge_on_read_deletes_never_hide_rows(
    spark: SparkSession, namespace: str, version: int
) -> None:
    table = _table(
        spark,
        namespace,
        f"t{version}",
        f"TBLPROPERTIES ('format-version' = '{version}', "
        "'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')",
    )
    _fill(spark, table, 0, 3)
    spark.sql(f"DELETE FROM {table} WHERE id = 13")  # k = 13, in the second file
    deleted = spark.sql(
        f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC"
    ).first()
    assert deleted is not None
    parent = spark.sql(
        f"SELECT parent_id FROM {table}.snapshots WHERE snapshot_id = {deleted[0]}"
    ).first()
    assert parent is not None
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"DELETE FROM {table} WHERE id = 50")  # k = 13 too, after the build
    assert _rows(spark, f"SELECT id FROM {table} WHERE k = 13") == []
    assert _rows(spark, f"SELECT id FROM {table} WHERE k = 14") == [(14,)]
    # the index holds what the files hold, so the deleted rows come back at the older snapshot
    assert _rows(spark, f"SELECT id FROM {table} VERSION AS OF {parent[0]} WHERE k = 13") == [
        (13,),
        (50,),
    ]
    assert _index_pruned(spark, table) > 0
    spark.sql(f"UPDATE {table} SET k = 99 WHERE id = 14")
    assert _rows(spark, f"SELECT id FROM {table} WHERE k = 99") == [(14,)]
    assert _rows(spark, f"SELECT id FROM {table} WHERE k = 14") == []


def test_rename_keeps_the_index_and_drop_column_drops_it(
    spark: SparkSession, namespace: str
) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"ALTER TABLE {table} RENAME COLUMN k TO key")
    assert _ids(spark, f"SELECT id FROM {table} WHERE key = 2") == _expected_ids(
        3, lambda i: _k(i) == 2
    )
    assert scan_report(spark, table)["index-pruned-files"]["by_k"] > 0
    spark.sql(f"ALTER TABLE {table} DROP COLUMN key")
    with pytest.raises(AnalysisException, match="by_k"):
        spark.sql(f"DROP INDEX by_k ON {table}")
    spark.sql(f"ALTER TABLE {table} ADD COLUMN k INT")  # a new column, a new field id: no index
    spark.sql(f"SELECT id FROM {table} WHERE k = 2").collect()
    assert scan_report(spark, table)["index-pruned-files"] == {}


def test_missing_segment_falls_back_to_a_full_scan(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    folder = _index_folder(spark, table) / "by_k"
    segments = list(folder.glob("*.puffin"))
    assert len(segments) == 1
    with segments[0].open("r+b") as f:
        f.write(b"garbage!")
    expected = _expected_ids(3, lambda i: _k(i) == 2)
    assert expected
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 2") == expected
    assert _index_pruned(spark, table) == 0


def test_errors_name_the_table_index_and_column(spark: SparkSession, namespace: str) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, x DOUBLE, arr ARRAY<STRUCT<y: INT>>) USING floe")
    spark.sql(f"INSERT INTO {table} VALUES (1, 1.0, array(named_struct('y', 1)))")
    with pytest.raises(AnalysisException, match="nope"):
        spark.sql(f"CREATE INDEX i ON {table} (nope)")
    with pytest.raises(
        AnalysisException, match=r"Cannot index column x of table .*t with index i: type double"
    ):
        spark.sql(f"CREATE INDEX i ON {table} (x)")
    with pytest.raises(AnalysisException, match="unknown index type 'hash'"):
        spark.sql(f"CREATE INDEX i ON {table} USING hash (id)")
    with pytest.raises(AnalysisException, match="exactly one column, found 2"):
        spark.sql(f"CREATE INDEX i ON {table} (id, x)")
    with pytest.raises(AnalysisException, match="unknown option 'pages=3'"):
        spark.sql(f"CREATE INDEX i ON {table} (id) OPTIONS ('pages' = '3')")
    spark.sql(f"CREATE INDEX i ON {table} (id) OPTIONS ('maintenance' = 'deferred')")
    with pytest.raises(
        AnalysisException, match=r"index i on table .*\.t because it already exists"
    ):
        spark.sql(f"CREATE INDEX i ON {table} (id)")
    with pytest.raises(AnalysisException, match=r"index j on table .*\.t"):
        spark.sql(f"DROP INDEX j ON {table}")
    with pytest.raises(
        AnalysisException, match=r"Cannot set or remove table property floe\.indexes"
    ):
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('floe.indexes' = '/tmp/x.json')")
    with pytest.raises(
        AnalysisException, match=r"Cannot set or remove table property floe\.indexes"
    ):
        spark.sql(f"ALTER TABLE {table} UNSET TBLPROPERTIES ('floe.indexes')")
    assert _rows(spark, f"SELECT id FROM {table} WHERE id = 1") == [(1,)]


def test_indexes_metadata_table_and_procedures(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 2)
    assert spark.sql(f"SELECT * FROM {table}.indexes").collect() == []
    created = spark.sql(
        f"CALL floe.system.create_index(table => '{namespace}.t', name => 'by_x', column => 'n.x', "
        "type => 'btree')"
    ).collect()
    assert [tuple(r) for r in created] == [("by_x", "btree", 1)]
    _fill(spark, table, 2, 2)  # each append adds a segment for its file (a nested field)
    row = spark.sql(
        "SELECT name, type, columns, covered_files, live_files, segments, problem "
        f"FROM {table}.indexes"
    ).first()
    assert row is not None
    assert tuple(row) == ("by_x", "btree", ["n.x"], 4, 4, 3, None)
    spark.sql(f"DELETE FROM {table} WHERE id = 6")  # copy-on-write: file 0 is replaced
    assert _listed_covered_files(spark, table, "by_x") == 5  # the replaced file is still listed
    rewritten = spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_x')").first()
    assert rewritten is not None
    assert tuple(rewritten) == (4, 1, 4, 0)  # 4 segments -> 1; 4 live covered, none added
    row = spark.sql(f"SELECT covered_files, live_files, segments FROM {table}.indexes").first()
    assert row is not None
    assert tuple(row) == (4, 4, 1)
    assert _listed_covered_files(spark, table, "by_x") == 4  # the replaced file dropped out
    assert _ids(spark, f"SELECT id FROM {table} WHERE n.x = 190") == [19]
    assert _index_pruned(spark, table) == 3
    with pytest.raises(AnalysisException, match=r"Index nope does not exist on table .*\.t"):
        spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'nope')")
    spark.sql(f"CALL floe.system.drop_index(table => '{namespace}.t', name => 'by_x')")
    assert spark.sql(f"SELECT * FROM {table}.indexes").collect() == []
    with pytest.raises(AnalysisException, match=r"Index by_x does not exist on table .*\.t"):
        spark.sql(f"CALL floe.system.drop_index('{namespace}.t', 'by_x')")


def _listed_covered_files(spark: SparkSession, table: str, index: str) -> int:
    """The files the segments of {index} cover, as the index list records them (dead ones too)."""
    props = {r[0]: r[1] for r in spark.sql(f"SHOW TBLPROPERTIES {table}").collect()}
    listed = json.loads(Path(props["floe.indexes"].replace("file:", "")).read_text())
    entry = next(i for i in listed["indexes"] if i["name"] == index)
    return sum(int(s["covered-file-count"]) for s in entry["segments"])


def test_rewrite_index_repairs_a_corrupt_segment(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    folder = _index_folder(spark, table) / "by_k"
    segment = next(folder.glob("*.puffin"))
    segment.write_bytes(b"not a puffin file")
    row = spark.sql(f"SELECT covered_files, problem FROM {table}.indexes").first()
    assert row is not None
    assert row[0] is None
    assert "segment" in row[1] and "by_k" in row[1]
    spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_k')")
    row = spark.sql(f"SELECT covered_files, live_files, problem FROM {table}.indexes").first()
    assert row is not None
    assert tuple(row) == (3, 3, None)
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == _expected_ids(
        3, lambda i: _k(i) == 13
    )
    assert _index_pruned(spark, table) > 0


def test_drop_table_purge_removes_the_index_files(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 2)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    folder = _index_folder(spark, table)
    assert len(list(folder.rglob("*.puffin"))) == 1
    spark.sql(f"DROP TABLE {table} PURGE")
    assert not folder.exists()


def test_expire_snapshots_deletes_only_unreferenced_index_files(
    spark: SparkSession, namespace: str
) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 2)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"CREATE INDEX gone ON {table} (id)")
    folder = _index_folder(spark, table)
    gone = list((folder / "gone").glob("*.puffin"))
    assert len(gone) == 1
    spark.sql(f"DROP INDEX gone ON {table}")
    _fill(spark, table, 2, 1)
    spark.sql(f"CALL floe.system.rewrite_index('{namespace}.t', 'by_k')")
    # keep only the newest metadata file, so that only the current index list is retained
    spark.sql(
        f"ALTER TABLE {table} SET TBLPROPERTIES ('write.metadata.previous-versions-max' = '1', "
        "'write.metadata.delete-after-commit.enabled' = 'true')"
    )
    spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => TIMESTAMP '9999-01-01 00:00:00', retain_last => 1)"
    ).collect()
    assert not gone[0].exists()
    assert not (folder / "gone").exists() or not list((folder / "gone").iterdir())
    row = spark.sql(
        f"SELECT covered_files, live_files, segments, problem FROM {table}.indexes"
    ).first()
    assert row is not None
    # the append added a segment in its commit; rewrite_index merged both into one
    assert tuple(row) == (3, 3, 1, None)
    assert len(list((folder / "by_k").glob("*.puffin"))) == 1  # the merged ones are deleted
    assert len(list(folder.glob("index-list-*.json"))) == 1
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == _expected_ids(
        3, lambda i: _k(i) == 13
    )


@pytest.mark.parametrize("mode", ["copy-on-write", "merge-on-read"])
def test_row_level_operations_scan_only_the_files_the_index_names(
    spark: SparkSession, namespace: str, mode: str
) -> None:
    table = _table(
        spark,
        namespace,
        "t",
        f"TBLPROPERTIES ('write.delete.mode' = '{mode}', 'write.update.mode' = '{mode}')",
    )
    _fill(spark, table, 0, FILES)
    spark.sql(f"CREATE INDEX by_id ON {table} USING btree (id)")
    spark.sql(f"DELETE FROM {table} WHERE id = 77")
    assert scan_report(spark, table)["index-pruned-files"]["by_id"] == FILES - 1
    spark.sql(f"UPDATE {table} SET k = -1 WHERE id = 78")
    # copy-on-write replaced the file of id 77 with one its commit added to the index: it is pruned
    assert scan_report(spark, table)["index-pruned-files"]["by_id"] == FILES - 1
    assert _ids(spark, f"SELECT id FROM {table} WHERE id IN (77, 78)") == [78]
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = -1") == [78]
    # the files the DELETE and UPDATE wrote were added to the index in their commits
    covered, live, _, problem = _coverage(spark, table, "by_id")
    assert (covered, problem) == (live, None)
    assert _ids(spark, f"SELECT id FROM {table} WHERE id = 78") == [78]
    # merge-on-read reads the old file of id 78 (row deleted by a deletion vector) and the new one
    assert scan_report(spark, table)["index-pruned-files"]["by_id"] == FILES - 1
    assert spark.sql(f"SELECT count(*) FROM {table}").first() == (FILES * ROWS_PER_FILE - 1,)


def _coverage(spark: SparkSession, table: str, index: str) -> tuple[Any, ...]:
    row = spark.sql(
        f"SELECT covered_files, live_files, segments, problem FROM {table}.indexes "
        f"WHERE name = '{index}'"
    ).first()
    assert row is not None
    return tuple(row)


def test_appends_keep_sync_indexes_current_in_the_same_commit(
    spark: SparkSession, namespace: str
) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 3)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    spark.sql(f"CREATE INDEX by_s ON {table} USING btree (s)")
    spark.sql(f"CREATE INDEX later ON {table} (id) OPTIONS ('maintenance' = 'deferred')")
    assert _coverage(spark, table, "by_k") == (3, 3, 1, None)
    snapshots = spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()
    _fill(spark, table, 3, 1)  # DataFrame append
    # one file whose k bounds span every old value: only the index can skip it
    spark.sql(
        f"INSERT INTO {table} (id, k, s) SELECT /*+ COALESCE(1) */ * "
        "FROM VALUES (1000L, 0, 'v050x'), (1001L, 36, 'v050y')"
    )
    assert _coverage(spark, table, "by_k") == (5, 5, 3, None)
    assert _coverage(spark, table, "by_s") == (5, 5, 3, None)
    assert _coverage(spark, table, "later") == (3, 5, 1, None)  # deferred: left to rewrite_index
    # the segments came with the data commits: no extra commits
    after = spark.sql(f"SELECT count(*) FROM {table}.snapshots").first()
    assert snapshots is not None and after is not None and after[0] == snapshots[0] + 2
    assert _ids(spark, f"SELECT id FROM {table} WHERE s = 'v050x'") == [1000]
    assert scan_report(spark, table)["index-pruned-files"]["by_s"] == 4
    expected = _expected_ids(4, lambda i: _k(i) == 20)
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 20") == expected
    assert scan_report(spark, table)["index-pruned-files"]["by_k"] == 5 - len(
        {i % FILES for i in expected}
    )
    assert _ids(spark, f"SELECT id FROM {table} WHERE k IS NULL") == _expected_ids(
        4, lambda i: _k(i) is None
    )
    spark.sql(f"INSERT OVERWRITE {table} SELECT * FROM {table} WHERE id < 30")
    covered, live, _, problem = _coverage(spark, table, "by_k")
    assert (covered, problem) == (live, None)
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 13") == _expected_ids(
        4, lambda i: i < 30 and _k(i) == 13
    )


def test_unreadable_index_list_does_not_fail_a_write(spark: SparkSession, namespace: str) -> None:
    table = _table(spark, namespace, "t")
    _fill(spark, table, 0, 1)
    spark.sql(f"CREATE INDEX by_k ON {table} (k)")
    for listed in _index_folder(spark, table).glob("index-list-*.json"):
        listed.write_text("{not json")
    spark.sql(f"INSERT INTO {table} (id, k) VALUES (1000, 1000)")
    assert _ids(spark, f"SELECT id FROM {table} WHERE k = 1000") == [1000]
    assert spark.sql(f"SELECT count(*) FROM {table}").first() == (ROWS_PER_FILE + 1,)
