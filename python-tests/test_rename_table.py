"""``ALTER TABLE ... RENAME TO`` keeps every snapshot's rows, in every reader.

A rename moves the table's folder and rewrites every path its metadata holds, including the paths
*inside* delete files: a v2 position delete file names the data files it deletes from in its
``file_path`` column, and a v3 deletion vector's Puffin footer names its data file in the blob
property ``referenced-data-file``. Each test renames a table and then reads its current snapshot
and every older snapshot (``VERSION AS OF`` an id from before the rename, branches and tags)
through Floe SQL, ``floe.inspect.read_table``, pyiceberg and the Apache Iceberg runtime (catalog
``iceberg``), expecting exactly the rows Floe read under the old name (pyiceberg only where it
reads the table at all: it reads no equality deletes). It also checks that every
file each snapshot references exists under the new folder and that no delete file still names a
path of the old one.

Covered: DELETE, UPDATE and MERGE in copy-on-write and merge-on-read, v2 position delete files
and v3 deletion vectors, partitioned and not; position delete files that Iceberg wrote for several
data files; equality deletes; ``ANALYZE TABLE`` statistics; branches and tags; two renames in a
row; and a rename that fails half-way (a delete file of an old snapshot is missing), which leaves
the table under its old name with its old rows and no file of the failed attempt.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from row_level_tables import COW, FILE_PATH_ID, MOR, pyiceberg_table

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Rows = list[tuple[Any, ...]]

COLUMNS = "id BIGINT, cat STRING, v INT"
NAMES = ["id", "cat", "v"]
BOUNDS = ("lower_bounds", "upper_bounds")
SELECT = "SELECT id, cat, v FROM {}"
ROWS_OF = "SELECT id, CAST(id % 4 AS STRING), CAST(id AS INT) FROM range({}, {})"
_files = itertools.count()

# Two statements per operation: the second one meets the first one's deletes, so merge-on-read
# replaces a delete file and older snapshots keep delete files the current one no longer lists.
STATEMENTS = {
    "delete": [
        "DELETE FROM {t} WHERE id < 10",
        "DELETE FROM {t} WHERE id % 7 = 3",
    ],
    "update": [
        "UPDATE {t} SET v = v + 1000 WHERE id < 10",
        "UPDATE {t} SET cat = 'z' WHERE id % 7 = 3",
    ],
    "merge": [
        "MERGE INTO {t} AS tg USING (SELECT id, 'm' AS cat, 0 AS v FROM range(95, 105)) s "
        "ON tg.id = s.id WHEN MATCHED THEN UPDATE SET v = tg.v + 1 WHEN NOT MATCHED THEN INSERT *",
        "MERGE INTO {t} AS tg USING (SELECT id FROM range(0, 20)) s ON tg.id = s.id "
        "WHEN MATCHED AND tg.id % 2 = 0 THEN DELETE",
    ],
}


def _uri(warehouse: Path, namespace: str, name: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{name}"


def _sorted(rows: list[tuple[Any, ...]]) -> Rows:
    return sorted(rows, key=lambda r: (r[0], repr(r)))


def _rows(spark: SparkSession, query: str) -> Rows:
    return _sorted([tuple(r) for r in spark.sql(query).collect()])


def _arrow_rows(table: pa.Table) -> Rows:
    return _sorted([tuple(r[n] for n in NAMES) for r in table.to_pylist()])


def _snapshot_ids(location: str) -> list[int]:
    metadata = inspect.load_table_metadata(location)
    snaps = sorted(metadata.get("snapshots", []), key=lambda s: s["sequence-number"])
    return [int(s["snapshot-id"]) for s in snaps]


def _history(spark: SparkSession, table: str, location: str) -> dict[int | str, Rows]:
    """The rows of every snapshot, through Floe, checked against floe.inspect's reader."""
    history: dict[int | str, Rows] = {}
    for sid in _snapshot_ids(location):
        rows = _rows(spark, f"{SELECT.format(table)} VERSION AS OF {sid}")
        assert _arrow_rows(inspect.read_table(location, sid)) == rows, sid
        history[sid] = rows
    return history


def _check_readers(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    name: str,
    location: str,
    current: Rows,
    history: dict[int | str, Rows],
    *,
    pyiceberg: bool = True,
) -> None:
    """Floe, floe.inspect, pyiceberg (unless not ``pyiceberg``) and Iceberg read ``current`` now
    and ``history[version]`` at each snapshot id, branch or tag."""
    floe_name, iceberg_name = f"floe.{namespace}.{name}", f"{iceberg}.{namespace}.{name}"
    assert _rows(spark, SELECT.format(floe_name)) == current
    assert _arrow_rows(inspect.read_table(location)) == current
    static = pyiceberg_table(location) if pyiceberg else None
    if static is not None:
        assert _arrow_rows(static.scan(selected_fields=tuple(NAMES)).to_arrow()) == current
    assert _rows(spark, SELECT.format(iceberg_name)) == current
    refs = inspect.load_table_metadata(location).get("refs", {})
    for version, rows in history.items():
        sid = int(refs[version]["snapshot-id"]) if isinstance(version, str) else version
        as_of = f"'{version}'" if isinstance(version, str) else str(version)
        assert _rows(spark, f"{SELECT.format(floe_name)} VERSION AS OF {as_of}") == rows, version
        assert _arrow_rows(inspect.read_table(location, sid)) == rows, version
        if static is not None:
            scan = static.scan(snapshot_id=sid, selected_fields=tuple(NAMES))
            assert _arrow_rows(scan.to_arrow()) == rows, version
        assert _rows(spark, f"{SELECT.format(iceberg_name)} VERSION AS OF {as_of}") == rows, version


def _check_paths(location: str) -> None:
    """Every file of every snapshot exists under the table's folder, and every delete file names
    only data files under it (Parquet ``file_path`` column, Puffin ``referenced-data-file``)."""
    root = location + "/"
    metadata = inspect.load_table_metadata(location)
    assert metadata["location"] == location
    for snap in metadata.get("snapshots", []):
        assert snap["manifest-list"].startswith(root)
        for f in inspect.table_files(location, snap["snapshot-id"]):
            path = f["file_path"]
            assert path.startswith(root) and local_path(path).is_file(), path
            if f.get("referenced_data_file") is not None:
                assert f["referenced_data_file"].startswith(root), f
            if f["content"] != 1:
                continue
            if str(f["file_format"]).upper() == "PUFFIN":
                blobs = inspect.read_puffin(path)["blobs"]
                blob = next(b for b in blobs if b["offset"] == f["content_offset"])
                assert blob["length"] == f["content_size_in_bytes"]
                assert blob["properties"]["referenced-data-file"] == f["referenced_data_file"]
                assert f["file_size_in_bytes"] == local_path(path).stat().st_size
            else:
                named = set(pq.read_table(local_path(path)).column("file_path").to_pylist())
                assert all(p.startswith(root) for p in named), (path, named)
                bounds = [(f.get(k) or {}).get(FILE_PATH_ID) for k in BOUNDS]
                assert all(b is None or b.decode().startswith(root) for b in bounds), bounds
    for stats in (*metadata.get("statistics", []), *metadata.get("partition-statistics", [])):
        path = stats["statistics-path"]
        assert path.startswith(root) and local_path(path).is_file(), path


def _create(spark: SparkSession, table: str, version: int, mode: str, partitioned: bool) -> None:
    partitioning = "PARTITIONED BY (cat)" if partitioned else ""
    spark.sql(
        f"CREATE TABLE {table} ({COLUMNS}) USING floe {partitioning} TBLPROPERTIES "
        f"('format-version'='{version}', 'write.delete.mode'='{mode}', "
        f"'write.update.mode'='{mode}', 'write.merge.mode'='{mode}')"
    )
    spark.sql(f"INSERT INTO {table} {ROWS_OF.format(0, 60)}")
    spark.sql(f"INSERT INTO {table} {ROWS_OF.format(60, 100)}")


def test_rename_after_a_merge_on_read_delete_keeps_the_rows_deleted(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """The reported case: 90 rows before the rename, 90 after (not 100)."""
    spark.sql(
        f"CREATE TABLE floe.{namespace}.r2 (id BIGINT) USING floe "
        "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO floe.{namespace}.r2 SELECT id FROM range(100)")
    spark.sql(f"DELETE FROM floe.{namespace}.r2 WHERE id < 10")
    assert spark.table(f"floe.{namespace}.r2").count() == 90
    spark.sql(f"ALTER TABLE floe.{namespace}.r2 RENAME TO {namespace}.r2_new")
    location = _uri(warehouse, namespace, "r2_new")
    expected = list(range(10, 100))
    assert sorted(r.id for r in spark.table(f"floe.{namespace}.r2_new").collect()) == expected
    assert sorted(inspect.read_table(location).column("id").to_pylist()) == expected
    assert sorted(pyiceberg_table(location).scan().to_arrow().column("id").to_pylist()) == expected
    assert sorted(r.id for r in spark.table(f"{iceberg}.{namespace}.r2_new").collect()) == expected
    _check_paths(location)


MODES = [
    pytest.param(2, COW, False, id="cow-v2"),
    pytest.param(2, MOR, False, id="mor-v2"),
    pytest.param(3, MOR, False, id="mor-v3"),
]


@pytest.mark.parametrize("operation", sorted(STATEMENTS))
@pytest.mark.parametrize(("version", "mode", "partitioned"), MODES)
def test_rename_keeps_every_snapshot_after_row_level_changes(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    warehouse: Path,
    operation: str,
    version: int,
    mode: str,
    partitioned: bool,
) -> None:
    _rename_after_statements(
        spark, iceberg, namespace, warehouse, operation, version, mode, partitioned
    )


@pytest.mark.parametrize("version", [2, 3])
def test_rename_keeps_every_snapshot_of_a_partitioned_merge_on_read_table(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, version: int
) -> None:
    _rename_after_statements(spark, iceberg, namespace, warehouse, "update", version, MOR, True)


def _rename_after_statements(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    warehouse: Path,
    operation: str,
    version: int,
    mode: str,
    partitioned: bool,
) -> None:
    old, new = f"floe.{namespace}.t", f"floe.{namespace}.renamed"
    old_location, location = _uri(warehouse, namespace, "t"), _uri(warehouse, namespace, "renamed")
    _create(spark, old, version, mode, partitioned)
    for statement in STATEMENTS[operation]:
        spark.sql(statement.format(t=old))
    if mode == MOR:
        files = inspect.table_files(old_location)
        assert any(f["content"] == 1 for f in files), "the statements wrote no delete file"
    current = _rows(spark, SELECT.format(old))
    history = _history(spark, old, old_location)
    assert len(history) == 4

    spark.sql(f"ALTER TABLE {old} RENAME TO {namespace}.renamed")
    assert not local_path(old_location).exists()
    _check_paths(location)
    _check_readers(spark, iceberg, namespace, "renamed", location, current, history)

    # the renamed table takes new row-level changes, which merge the rewritten deletes
    spark.sql(f"DELETE FROM {new} WHERE id IN (40, 41, 97)")
    current = [r for r in current if r[0] not in (40, 41, 97)]
    assert _rows(spark, SELECT.format(new)) == current
    assert _arrow_rows(pyiceberg_table(location).scan(selected_fields=tuple(NAMES)).to_arrow()) == (
        current
    )
    _check_paths(location)


def test_rename_rewrites_position_delete_files_that_cover_several_data_files(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """Iceberg with ``write.delete.granularity=partition`` writes one position delete file for
    several data files (no ``referenced_data_file``); every path in it moves."""
    source = f"{iceberg}.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {source} ({COLUMNS}) USING iceberg TBLPROPERTIES ('format-version'='2', "
        "'write.delete.mode'='merge-on-read', 'write.delete.granularity'='partition')"
    )
    spark.sql(f"INSERT INTO {source} {ROWS_OF.format(0, 50)}")
    spark.sql(f"INSERT INTO {source} {ROWS_OF.format(50, 100)}")
    spark.sql(f"DELETE FROM {source} WHERE id % 10 = 1")
    old_location = _uri(warehouse, namespace, "t")
    deletes = [f["file_path"] for f in inspect.table_files(old_location) if f["content"] == 1]
    named = [set(pq.read_table(local_path(d)).column("file_path").to_pylist()) for d in deletes]
    assert any(len(paths) > 1 for paths in named), named
    current = _rows(spark, SELECT.format(f"floe.{namespace}.t"))
    assert len(current) == 90
    history = _history(spark, f"floe.{namespace}.t", old_location)

    spark.sql(f"ALTER TABLE floe.{namespace}.t RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    _check_paths(location)
    _check_readers(spark, iceberg, namespace, "renamed", location, current, history)


def test_rename_keeps_equality_deletes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """An equality delete file (committed with Iceberg's API, as Flink would) names values, not
    paths: it only moves. Floe's position deletes on top are rewritten. pyiceberg is left out:
    it reads no equality deletes."""
    source = f"{iceberg}.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {source} ({COLUMNS}) USING iceberg TBLPROPERTIES ('format-version'='2', "
        "'write.delete.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO {source} {ROWS_OF.format(0, 100)}")
    old_location = _uri(warehouse, namespace, "t")
    jvm: Any = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, source)
    field_id = int(table.schema().findField("id").fieldId())
    field = pa.field("id", pa.int64(), metadata={"PARQUET:field_id": str(field_id)})
    path = local_path(old_location) / "data" / f"eq-deletes-{next(_files):05d}.parquet"
    pq.write_table(pa.table({"id": [3, 5, 77]}, schema=pa.schema([field])), path)
    ids = jvm.java.util.ArrayList()
    ids.add(field_id)
    delete_file = (
        jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(table.spec())
        .ofEqualityDeletes(jvm.org.apache.iceberg.util.ArrayUtil.toIntArray(ids))
        .withPath(path.as_uri())
        .withFormat("PARQUET")
        .withFileSizeInBytes(path.stat().st_size)
        .withRecordCount(3)
        .build()
    )
    table.newRowDelta().addDeletes(delete_file).commit()
    spark.sql(f"DELETE FROM floe.{namespace}.t WHERE id < 3")
    current = _rows(spark, SELECT.format(f"floe.{namespace}.t"))
    assert [r[0] for r in current] == [i for i in range(3, 100) if i not in (3, 5, 77)]
    history = _history(spark, f"floe.{namespace}.t", old_location)

    spark.sql(f"ALTER TABLE floe.{namespace}.t RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    assert any(f["content"] == 2 for f in inspect.table_files(location))
    _check_paths(location)
    # pyiceberg 0.12 reads no equality deletes ("does not yet support equality deletes")
    _check_readers(
        spark, iceberg, namespace, "renamed", location, current, history, pyiceberg=False
    )


def test_rename_keeps_branches_tags_and_their_deletes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """A tag and a branch (with a delete of its own, by Iceberg) read the same rows after the
    rename, and the branch still takes commits."""
    old_location = _uri(warehouse, namespace, "t")
    _create(spark, f"floe.{namespace}.t", 3, MOR, False)
    spark.sql(f"DELETE FROM floe.{namespace}.t WHERE id < 10")
    jvm: Any = spark._jvm
    source = f"{iceberg}.{namespace}.t"
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, source)
    head = table.currentSnapshot().snapshotId()
    table.manageSnapshots().createTag("t1", head).createBranch("b1", head).commit()
    spark.sql(f"DELETE FROM {source}.branch_b1 WHERE id >= 90")
    spark.sql(f"DELETE FROM floe.{namespace}.t WHERE id BETWEEN 50 AND 59")
    current = _rows(spark, SELECT.format(f"floe.{namespace}.t"))
    history = _history(spark, f"floe.{namespace}.t", old_location)
    for ref in ("t1", "b1"):
        history[ref] = _rows(spark, f"{SELECT.format(f'floe.{namespace}.t')} VERSION AS OF '{ref}'")
    assert [r[0] for r in history["b1"]] == list(range(10, 90))
    assert [r[0] for r in history["t1"]] == list(range(10, 100))

    spark.sql(f"ALTER TABLE floe.{namespace}.t RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    assert set(inspect.load_table_metadata(location)["refs"]) == {"main", "t1", "b1"}
    _check_paths(location)
    _check_readers(spark, iceberg, namespace, "renamed", location, current, history)
    spark.sql(f"DELETE FROM {iceberg}.{namespace}.renamed.branch_b1 WHERE id = 10")
    branch = _rows(spark, f"{SELECT.format(f'floe.{namespace}.renamed')} VERSION AS OF 'b1'")
    assert [r[0] for r in branch] == list(range(11, 90))


def test_rename_keeps_statistics_files(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """The statistics Puffin file moves with the table and stays usable. An incremental ANALYZE
    after the rename builds on its sketches and on the files that the appends since then added
    (so the rename must keep those manifest entries ADDED): every id is counted."""
    old, new = f"floe.{namespace}.t", f"floe.{namespace}.renamed"
    _create(spark, old, 2, MOR, False)
    spark.sql(f"DELETE FROM {old} WHERE id < 10")
    spark.sql(f"ANALYZE TABLE {old} COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    before = inspect.load_table_metadata(_uri(warehouse, namespace, "t"))["statistics"]
    assert _distinct_count(spark, old, "id") == "90"
    spark.sql(f"INSERT INTO {old} {ROWS_OF.format(100, 150)}")
    current = _rows(spark, SELECT.format(old))
    history = _history(spark, old, _uri(warehouse, namespace, "t"))

    spark.sql(f"ALTER TABLE {old} RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    after = inspect.load_table_metadata(location)["statistics"]
    assert [s["snapshot-id"] for s in after] == [s["snapshot-id"] for s in before]
    assert after[0]["statistics-path"].startswith(location + "/")
    footer = inspect.read_puffin(after[0]["statistics-path"])
    assert [b["properties"] for b in footer["blobs"]] == [
        b["properties"] for b in before[0]["blob-metadata"]
    ]
    _check_paths(location)
    _check_readers(spark, iceberg, namespace, "renamed", location, current, history)

    spark.sql(f"ANALYZE TABLE {new} COMPUTE STATISTICS FOR ALL COLUMNS").collect()
    assert len(inspect.load_table_metadata(location)["statistics"]) == 2
    assert _distinct_count(spark, new, "id") == "140"
    _check_paths(location)


def _distinct_count(spark: SparkSession, table: str, column: str) -> str:
    described = {
        r.info_name: r.info_value
        for r in spark.sql(f"DESCRIBE EXTENDED {table} {column}").collect()
    }
    return str(described["distinct_count"])


def test_two_renames_in_a_row(
    spark: SparkSession,
    iceberg: str,
    namespace: str,
    new_namespace: Callable[[], str],
    warehouse: Path,
) -> None:
    other = new_namespace()
    _create(spark, f"floe.{namespace}.a", 2, MOR, False)
    spark.sql(f"DELETE FROM floe.{namespace}.a WHERE id < 10")
    current = _rows(spark, SELECT.format(f"floe.{namespace}.a"))
    history = _history(spark, f"floe.{namespace}.a", _uri(warehouse, namespace, "a")
    )
    spark.sql(f"ALTER TABLE floe.{namespace}.a RENAME TO {namespace}.b")
    spark.sql(f"ALTER TABLE floe.{namespace}.b RENAME TO {other}.c")
    location = _uri(warehouse, other, "c")
    _check_paths(location)
    _check_readers(spark, iceberg, other, "c", location, current, history)
    names = [Path(f["file_path"]).name for f in inspect.table_files(location) if f["content"]]
    assert names and all(n.count("-r") == 1 for n in names), names  # no suffix per rename

    # the superseded originals are orphans; nothing the renamed table reads is (every file aged)
    hour_ago = dt.datetime.now(dt.UTC).timestamp() - 3600
    for file in local_path(location).rglob("*"):
        os.utime(file, (hour_ago, hour_ago))
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(minutes=30)
    orphans = spark.sql(
        f"CALL floe.system.remove_orphan_files(table => '{other}.c', "
        f"older_than => TIMESTAMP '{now:%Y-%m-%d %H:%M:%S}', allow_short_interval => true)"
    ).collect()
    removed = {Path(r.orphan_file_location).name for r in orphans}
    assert {n.split("-r")[0] + ".parquet" for n in names} <= removed, removed
    _check_paths(location)
    _check_readers(spark, iceberg, other, "c", location, current, history)


def test_failed_rename_leaves_the_table_under_its_old_name(
    spark: SparkSession, namespace: str, warehouse: Path
) -> None:
    """An old snapshot's delete file is gone, so it cannot be rewritten: the rename fails naming
    it, the table keeps its name, metadata and rows, and no file of the attempt is left."""
    old = f"floe.{namespace}.t"
    old_location = _uri(warehouse, namespace, "t")
    _create(spark, old, 2, MOR, False)
    spark.sql(f"DELETE FROM {old} WHERE id < 10")
    first_deletes = {f["file_path"] for f in inspect.table_files(old_location) if f["content"]}
    spark.sql(f"DELETE FROM {old} WHERE id % 7 = 3")
    live = {f["file_path"] for f in inspect.table_files(old_location) if f["content"]}
    replaced = sorted(first_deletes - live)
    assert replaced, "the second DELETE replaced no delete file"
    local_path(replaced[0]).unlink()
    current = _rows(spark, SELECT.format(old))
    root = local_path(old_location)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    metadata = inspect.load_table_metadata(old_location)

    with pytest.raises(Exception, match=Path(replaced[0]).name) as failure:
        spark.sql(f"ALTER TABLE {old} RENAME TO {namespace}.renamed")
    assert f"{namespace}.t" in str(failure.value)
    assert not (local_path(_uri(warehouse, namespace, "renamed"))).exists()
    assert sorted(p for p in root.rglob("*") if p.is_file()) == files
    assert inspect.load_table_metadata(old_location) == metadata
    assert _rows(spark, SELECT.format(old)) == current
    assert not spark.catalog.tableExists(f"floe.{namespace}.renamed")


@pytest.mark.parametrize("version", [2, 3])
def test_rename_through_hadoop_file_io(
    spark: SparkSession, namespace: str, warehouse: Path, version: int
) -> None:
    """The same rename with every metadata and Puffin read and write through Hadoop's FileSystem
    (``io-impl=hadoop``, as for hdfs:// or s3a://)."""
    catalog = "floe_rename_hadoop"
    spark.conf.set(f"spark.sql.catalog.{catalog}", "io.floe.spark.FloeCatalog")
    spark.conf.set(f"spark.sql.catalog.{catalog}.warehouse", floe.warehouse_uri(str(warehouse)))
    spark.conf.set(f"spark.sql.catalog.{catalog}.io-impl", "hadoop")
    old = f"{catalog}.{namespace}.t"
    _create(spark, old, version, MOR, True)
    spark.sql(f"DELETE FROM {old} WHERE id < 10")
    spark.sql(f"UPDATE {old} SET v = -v WHERE id % 7 = 3")
    current = _rows(spark, SELECT.format(old))
    history = _history(spark, old, _uri(warehouse, namespace, "t"))

    spark.sql(f"ALTER TABLE {old} RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    _check_paths(location)
    new = f"{catalog}.{namespace}.renamed"
    assert _rows(spark, SELECT.format(new)) == current
    assert _arrow_rows(inspect.read_table(location)) == current
    for sid, rows in history.items():
        assert _rows(spark, f"{SELECT.format(new)} VERSION AS OF {sid}") == rows


def test_rename_of_a_table_with_its_data_elsewhere_writes_nothing_there(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, tmp_path: Path
) -> None:
    """A table created with LOCATION keeps its data and delete files where they are: only its
    metadata folder in the warehouse moves, and nothing is rewritten or added outside it."""
    external = tmp_path / "external"
    old = f"floe.{namespace}.t"
    spark.sql(
        f"CREATE TABLE {old} ({COLUMNS}) USING floe LOCATION '{external}' TBLPROPERTIES "
        "('format-version'='2', 'write.delete.mode'='merge-on-read')"
    )
    spark.sql(f"INSERT INTO {old} {ROWS_OF.format(0, 100)}")
    spark.sql(f"DELETE FROM {old} WHERE id < 10")
    outside = sorted(p for p in external.rglob("*") if p.is_file())
    current = _rows(spark, SELECT.format(old))
    history = _history(spark, old, _uri(warehouse, namespace, "t"))

    spark.sql(f"ALTER TABLE {old} RENAME TO {namespace}.renamed")
    location = _uri(warehouse, namespace, "renamed")
    assert sorted(p for p in external.rglob("*") if p.is_file()) == outside
    assert local_path(inspect.load_table_metadata(location)["location"]) == external
    new = f"floe.{namespace}.renamed"
    assert _rows(spark, SELECT.format(new)) == current
    assert _arrow_rows(inspect.read_table(location)) == current
    for sid, rows in history.items():
        assert _rows(spark, f"{SELECT.format(new)} VERSION AS OF {sid}") == rows
    assert _rows(spark, SELECT.format(f"{iceberg}.{namespace}.renamed")) == current
