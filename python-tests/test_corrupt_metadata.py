"""Missing or corrupt metadata: a manifest, a manifest list, the current v<N>.metadata.json.

Each case must give a clear error that names the damaged file, through Spark SQL and through
``floe.inspect``, must never fall back silently to an older snapshot, and must change nothing on
disk: reads write nothing, and a write that fails removes what it wrote (docs/architecture.md,
'Failures and clean-up').
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import floe
from floe import inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROWS = [(1, "a"), (2, "b"), (3, "c")]


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` (hidden ones included) with a hash of its content."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _missing(path: Path) -> None:
    path.unlink()


def _garbled(path: Path) -> None:
    path.write_bytes(b"\x00\x01garbage\xff" * 40)


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


DAMAGE: dict[str, Callable[[Path], None]] = {
    "missing": _missing,
    "garbled": _garbled,
    "truncated": _truncated,
}


def _target(table_dir: Path, kind: str) -> Path:
    """The current metadata file, the current manifest list, or its newest manifest."""
    metadata_file = inspect.metadata_file(str(table_dir))
    if kind == "metadata":
        return metadata_file
    snapshot = inspect.find_snapshot(inspect.load_table_metadata(str(table_dir)))
    assert snapshot is not None
    manifest_list = inspect._paths.local_path(snapshot["manifest-list"])
    if kind == "manifest-list":
        return manifest_list
    newest = next(
        m
        for m in inspect.read_manifest_list(str(manifest_list))
        if m["added_snapshot_id"] == snapshot["snapshot-id"]
    )
    return inspect._paths.local_path(newest["manifest_path"])


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("kind", ["manifest", "manifest-list", "metadata"])
def test_damaged_metadata_is_a_clear_error_and_changes_nothing(
    spark: SparkSession, warehouse: Path, namespace: str, kind: str, damage: str
) -> None:
    table = f"floe.{namespace}.t"
    table_dir = warehouse / namespace / "t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING)")
    for row in ROWS:
        spark.sql(f"INSERT INTO {table} VALUES {row}")
    target = _target(table_dir, kind)
    original = target.read_bytes()
    before = tree(table_dir)

    DAMAGE[damage](target)
    damaged = tree(table_dir)
    where = str(target)  # the messages name the file: as a path or inside a file: URI

    with pytest.raises(Exception) as through_sql:
        spark.sql(f"SELECT * FROM {table}").collect()
    assert where in str(through_sql.value), str(through_sql.value)[:2000]
    with pytest.raises(floe.FloeError) as through_inspect:
        inspect.table_files(str(table_dir))
    assert where in str(through_inspect.value)
    with pytest.raises(floe.FloeError, match=re.escape(target.name)):
        inspect.read_table(str(table_dir))
    if kind == "manifest":
        # An append does not read the existing manifests (as Iceberg's fast append): it commits
        # without touching the damaged one, and once that file is repaired every row reads.
        spark.sql(f"INSERT INTO {table} VALUES (4, 'd')")
        damaged_file = str(target.relative_to(table_dir))
        assert tree(table_dir).get(damaged_file) == damaged.get(damaged_file)
        with pytest.raises(Exception) as after_append:
            spark.sql(f"SELECT * FROM {table}").collect()
        assert where in str(after_append.value), str(after_append.value)[:2000]
        target.write_bytes(original)
        rows = sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect())
        assert rows == [*ROWS, (4, "d")]
        assert inspect.read_table(str(table_dir)).num_rows == len(ROWS) + 1
        return
    # A write fails as well, and removes the data and metadata files it wrote.
    with pytest.raises(Exception) as through_insert:
        spark.sql(f"INSERT INTO {table} VALUES (4, 'd')")
    assert where in str(through_insert.value), str(through_insert.value)[:2000]
    assert tree(table_dir) == damaged

    target.write_bytes(original)
    assert tree(table_dir) == before
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {table}").collect()) == ROWS
    assert inspect.read_table(str(table_dir)).num_rows == len(ROWS)


def test_missing_current_metadata_never_falls_back_to_an_older_version(
    spark: SparkSession, warehouse: Path, namespace: str
) -> None:
    """version-hint.text names v<N>, v<N> is gone and v<N-1> is there: reading v<N-1> would show
    an old snapshot as if it were current."""
    table = f"floe.{namespace}.t"
    table_dir = warehouse / namespace / "t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING)")
    for row in ROWS:
        spark.sql(f"INSERT INTO {table} VALUES {row}")
    current = inspect.metadata_file(str(table_dir))
    assert current.name == "v4.metadata.json"
    assert (table_dir / "metadata" / "v3.metadata.json").is_file()
    current.unlink()
    with pytest.raises(Exception, match=r"v4\.metadata\.json is missing"):
        spark.sql(f"SELECT count(*) FROM {table}").collect()
    with pytest.raises(floe.FloeError, match=r"v4\.metadata\.json is missing"):
        inspect.load_table_metadata(str(table_dir))
    # Without a hint there is nothing to contradict the listing: the newest file is current.
    (table_dir / "metadata" / "version-hint.text").unlink()
    assert inspect.metadata_file(str(table_dir)).name == "v3.metadata.json"
    assert spark.sql(f"SELECT count(*) FROM {table}").collect()[0][0] == 2
