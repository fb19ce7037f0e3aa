"""Row-level changes across engines on one warehouse: Floe (catalog ``floe``), Apache Iceberg's
Spark runtime (catalog ``iceberg``, same session) and pyiceberg (StaticTable on the metadata).

- After Floe's DELETE / UPDATE / MERGE in every mode (copy-on-write, merge-on-read v2 position
  deletes, merge-on-read v3 deletion vectors; partitioned and not), Iceberg and pyiceberg read the
  rows Floe reads, which are the rows of a model kept in Python; Iceberg's ``files`` metadata table
  lists the delete files Floe's manifests hold, and on v3 every row keeps a distinct ``_row_id``.
- Floe and Iceberg take turns on one table: each engine's DELETE / UPDATE / MERGE / INSERT lands
  on files holding the other's deletes (so each must merge the other's position deletes or
  deletion vectors), and after every turn both read the model's rows.
- Each engine's conflict validation sees the other's commits: an Iceberg DELETE fails when Floe
  appended a matching row or added a deletion vector to the same file meanwhile, and Floe's
  statements fail the same way after Iceberg's commits.

Every test skips, saying why, when the Iceberg runtime jar is unavailable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from row_level_tables import (
    COW,
    COW_V2,
    MOR,
    MOR_V2,
    MOR_V3,
    Gate,
    Mode,
    check_table,
    create_table,
    current_snapshot_id,
    error_text,
    interleave,
    location,
    missing_files,
    orphan_files,
    pyiceberg_table,
    referenced_data_file,
    snapshots,
    uniform,
)

import floe.inspect as inspect

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

St = tuple[int | None, str | None] | None
Row = tuple[int, str | None, int | None, St]  # id, cat, v, st
Rows = dict[int, Row]

COLUMNS = "id BIGINT, cat STRING, v INT, st STRUCT<a: INT, b: STRING>"
INITIAL = 40
INSERT = f"""
    INSERT INTO {{t}}
    SELECT id, CASE WHEN id % 7 = 6 THEN NULL ELSE concat('c', CAST(id % 3 AS STRING)) END,
           CAST(id AS INT),
           CASE WHEN id % 5 = 4 THEN NULL
                ELSE named_struct('a', CAST(id AS INT), 'b', CAST(id % 2 AS STRING)) END
    FROM range(0, {INITIAL}, 1, 2)
"""
READ = "SELECT '{tag}' AS tag, id, cat, v, st.a AS a, st.b AS b, st IS NULL AS st_null FROM {t}"


def _initial() -> Rows:
    rows: Rows = {}
    for i in range(INITIAL):
        cat = None if i % 7 == 6 else f"c{i % 3}"
        st: St = None if i % 5 == 4 else (i, str(i % 2))
        rows[i] = (i, cat, i, st)
    return rows


def _read(spark: SparkSession, tables: dict[str, str]) -> dict[str, list[Row]]:
    """The rows of several tables (tag -> name), in one query."""
    query = " UNION ALL ".join(READ.format(tag=tag, t=name) for tag, name in tables.items())
    out: dict[str, list[Row]] = {tag: [] for tag in tables}
    for r in spark.sql(query).collect():
        st = None if r["st_null"] else (r["a"], r["b"])
        out[r["tag"]].append((int(r["id"]), r["cat"], r["v"], st))
    return {tag: sorted(rows, key=repr) for tag, rows in out.items()}


def _pyiceberg(table_location: str) -> list[Row]:
    table = pyiceberg_table(table_location).scan().to_arrow()
    rows = []
    for r in table.to_pylist():
        st = None if r["st"] is None else (r["st"]["a"], r["st"]["b"])
        rows.append((int(r["id"]), r["cat"], r["v"], st))
    return sorted(rows, key=repr)


def _diff(actual: list[Row], expected: list[Row]) -> str:
    a, e = Counter(actual), Counter(expected)
    unexpected = sorted((a - e).elements(), key=repr)[:6]
    missing = sorted((e - a).elements(), key=repr)[:6]
    return (
        f"{len(actual)} rows, expected {len(expected)}; unexpected {unexpected}; missing {missing}"
    )


# --- statements with their effect on the model ------------------------------------------------


@dataclass(frozen=True)
class Change:
    sql: str
    model: Callable[[Rows], Rows]


def _where(pred: Callable[[Row], bool]) -> Callable[[Rows], Rows]:
    return lambda rows: {i: r for i, r in rows.items() if not pred(r)}


def _set(pred: Callable[[Row], bool], change: Callable[[Row], Row]) -> Callable[[Rows], Rows]:
    def apply(rows: Rows) -> Rows:
        out: Rows = {}
        for r in rows.values():
            r = change(r) if pred(r) else r
            out[r[0]] = r
        return out

    return apply


def _merge_upsert(keys: range, delete_mod: int) -> Callable[[Rows], Rows]:
    """MERGE of source ids ``keys``: matched and id % delete_mod = 0 -> delete, other matched ->
    v = -id and st.b = 'm', not matched -> insert (id, 'new', id, NULL)."""

    def apply(rows: Rows) -> Rows:
        out = dict(rows)
        for i in keys:
            if i in out and i % delete_mod == 0:
                del out[i]
            elif i in out:
                r = out[i]
                out[i] = (i, r[1], -i, (r[3][0] if r[3] else None, "m"))
            else:
                out[i] = (i, "new", i, None)
        return out

    return apply


def _merge_upsert_sql(keys: range, delete_mod: int) -> str:
    return (
        f"MERGE INTO {{t}} x USING (SELECT id FROM range({keys.start}, {keys.stop})) s "
        f"ON x.id = s.id WHEN MATCHED AND x.id % {delete_mod} = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET x.v = -CAST(s.id AS INT), x.st.b = 'm' "
        "WHEN NOT MATCHED THEN INSERT (id, cat, v, st) "
        "VALUES (s.id, 'new', CAST(s.id AS INT), NULL)"
    )


def _merge_by_source(keep: range) -> Change:
    """MERGE whose source holds ids ``keep``: target rows outside it with v > 30 are deleted,
    those with a NULL cat get cat 'orphan'."""

    def apply(rows: Rows) -> Rows:
        out: Rows = {}
        for i, r in rows.items():
            if i in keep:
                out[i] = r
            elif r[2] is not None and r[2] > 30:
                continue
            elif r[1] is None:
                out[i] = (i, "orphan", r[2], r[3])
            else:
                out[i] = r
        return out

    return Change(
        f"MERGE INTO {{t}} x USING (SELECT id FROM range({keep.start}, {keep.stop})) s "
        "ON x.id = s.id WHEN NOT MATCHED BY SOURCE AND x.v > 30 THEN DELETE "
        "WHEN NOT MATCHED BY SOURCE AND x.cat IS NULL THEN UPDATE SET x.cat = 'orphan'",
        apply,
    )


FLOE_CHANGES = (
    Change("DELETE FROM {t} WHERE id % 5 = 0", _where(lambda r: r[0] % 5 == 0)),
    Change(
        "UPDATE {t} SET v = v + 100, cat = 'moved' WHERE id % 5 = 2",
        _set(lambda r: r[0] % 5 == 2, lambda r: (r[0], "moved", (r[2] or 0) + 100, r[3])),
    ),
    Change(_merge_upsert_sql(range(30, 45), 4), _merge_upsert(range(30, 45), 4)),
    _merge_by_source(range(0, 20)),
)

MODES = (
    COW_V2,
    uniform("mor-v2-identity", 2, MOR, "cat"),
    uniform("mor-v3-bucket", 3, MOR, "bucket(4, id)"),
)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.id)
def test_iceberg_and_pyiceberg_read_floe_row_level_changes(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, mode: Mode
) -> None:
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    create_table(spark, floe_name, COLUMNS, mode, using="floe")
    spark.sql(INSERT.replace("{t}", floe_name))
    model = _initial()
    for change in FLOE_CHANGES:
        spark.sql(change.sql.replace("{t}", floe_name))
        model = change.model(model)
        expected = sorted(model.values(), key=repr)
        read = _read(spark, {"floe": floe_name, "iceberg": iceberg_name})
        assert read["floe"] == expected, f"{change.sql}: Floe: {_diff(read['floe'], expected)}"
        assert read["iceberg"] == expected, (
            f"{change.sql}: Iceberg: {_diff(read['iceberg'], expected)}"
        )
        assert _pyiceberg(loc) == expected, f"{change.sql}: pyiceberg"
    assert not check_table(loc, mode, len(model))

    # Iceberg's metadata tables list what Floe's manifests hold
    files = inspect.table_files(loc)
    deletes = sorted(
        (str(f["file_path"]), f.get("content_offset")) for f in files if f["content"] != 0
    )
    listed = spark.sql(
        f"SELECT file_path, content_offset FROM {iceberg_name}.delete_files"
    ).collect()
    assert sorted((str(r[0]), r[1]) for r in listed) == deletes
    if mode.merge_on_read:
        assert deletes, "merge-on-read changes wrote no delete files"
    data = spark.sql(f"SELECT count(*), sum(record_count) FROM {iceberg_name}.data_files").collect()
    assert tuple(data[0]) == (
        sum(1 for f in files if f["content"] == 0),
        sum(f["record_count"] for f in files if f["content"] == 0),
    )
    if mode.version >= 3:
        ids = spark.sql(
            f"SELECT count(*), count(_row_id), count(DISTINCT _row_id) FROM {iceberg_name}"
        ).collect()[0]
        assert tuple(ids) == (len(model),) * 3, f"row ids: {tuple(ids)}"


# --- both engines taking turns ------------------------------------------------------------------

TURNS: tuple[tuple[str, Change], ...] = (
    ("floe", Change("DELETE FROM {t} WHERE id % 5 = 0", _where(lambda r: r[0] % 5 == 0))),
    ("iceberg", Change("DELETE FROM {t} WHERE id % 5 = 1", _where(lambda r: r[0] % 5 == 1))),
    (
        "floe",
        Change(
            "UPDATE {t} SET v = v + 100 WHERE id % 5 = 2",
            _set(lambda r: r[0] % 5 == 2, lambda r: (r[0], r[1], (r[2] or 0) + 100, r[3])),
        ),
    ),
    ("iceberg", Change(_merge_upsert_sql(range(30, 50), 3), _merge_upsert(range(30, 50), 3))),
    (
        "iceberg",
        Change(
            "INSERT INTO {t} VALUES (100, 'c1', 100, NULL), "
            "(101, NULL, 101, named_struct('a', 1, 'b', 'x'))",
            lambda rows: {**rows, 100: (100, "c1", 100, None), 101: (101, None, 101, (1, "x"))},
        ),
    ),
    ("floe", _merge_by_source(range(0, 45))),
    (
        "iceberg",
        Change(
            "UPDATE {t} SET st.a = -st.a WHERE st.b = '1'",
            _set(
                lambda r: r[3] is not None and r[3][1] == "1",
                lambda r: (
                    r[0],
                    r[1],
                    r[2],
                    (None if r[3] is None or r[3][0] is None else -r[3][0], "1"),
                ),
            ),
        ),
    ),
    ("floe", Change("DELETE FROM {t} WHERE id % 2 = 1", _where(lambda r: r[0] % 2 == 1))),
    ("iceberg", Change("DELETE FROM {t} WHERE id % 3 = 0", _where(lambda r: r[0] % 3 == 0))),
)


@pytest.mark.parametrize("mode", [COW_V2, MOR_V2, MOR_V3], ids=lambda m: m.id)
def test_floe_and_iceberg_take_turns(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, mode: Mode
) -> None:
    names = {"floe": f"floe.{namespace}.t", "iceberg": f"{iceberg}.{namespace}.t"}
    loc = location(warehouse, namespace, "t")
    create_table(spark, names["floe"], COLUMNS, mode, using="floe")
    spark.sql(INSERT.replace("{t}", names["floe"]))
    model = _initial()
    for k, (engine, change) in enumerate(TURNS):
        spark.sql(change.sql.replace("{t}", names[engine]))
        model = change.model(model)
        expected = sorted(model.values(), key=repr)
        read = _read(spark, names)
        for reader, rows in read.items():
            assert rows == expected, (
                f"turn {k} ({engine}: {change.sql}), read by {reader}: {_diff(rows, expected)}"
            )
    assert _pyiceberg(loc) == sorted(model.values(), key=repr)
    writers = Counter(s["summary"].get("engine-name", "?") for s in snapshots(loc))
    assert writers["floe"] >= 4, writers
    files = inspect.table_files(loc)
    deletes = [f for f in files if f["content"] != 0]
    if mode.merge_on_read:
        assert deletes, "no delete files were written"
    if mode.version >= 3:
        per_file = Counter(referenced_data_file(f) for f in deletes)
        assert all(str(f["file_format"]).upper() == "PUFFIN" for f in deletes)
        assert max(per_file.values()) == 1, "a data file has several deletion vectors"
    live = {str(f["file_path"]) for f in files if f["content"] == 0}
    for d in deletes:
        ref = referenced_data_file(d)
        # Iceberg leaves a v2 position delete file behind when it rewrites its data file
        assert ref in live or mode.version == 2, f"{d['file_path']} references a dropped file"


# --- each engine validates against the other's commits -------------------------------------------


def _table(spark: SparkSession, warehouse: Path, namespace: str, mode: Mode) -> tuple[str, str]:
    name = f"floe.{namespace}.t"
    create_table(spark, name, COLUMNS, mode, using="floe")
    spark.sql(INSERT.replace("{t}", name))
    return name, location(warehouse, namespace, "t")


CROSS = {
    # Iceberg's serializable DELETE scanned ids < 20; Floe appends id 12 meanwhile
    "iceberg-delete-vs-floe-append": (
        MOR_V2,
        ("iceberg", "DELETE FROM {t} WHERE gate(id) >= 0 AND id < 20 AND id % 2 = 0"),
        ("floe", "INSERT INTO {t} VALUES (12, 'late', 12, NULL)"),
    ),
    # Iceberg's DELETE writes a DV on the file where Floe meanwhile wrote one
    "iceberg-delete-vs-floe-dv": (
        MOR_V3,
        ("iceberg", "DELETE FROM {t} WHERE gate(id) >= 0 AND id = 3"),
        ("floe", "DELETE FROM {t} WHERE id = 5"),
    ),
    "floe-delete-vs-iceberg-append": (
        MOR_V2,
        ("floe", "DELETE FROM {t} WHERE gate(id) >= 0 AND id < 20 AND id % 2 = 0"),
        ("iceberg", "INSERT INTO {t} VALUES (12, 'late', 12, NULL)"),
    ),
    "floe-dv-vs-iceberg-dv": (
        MOR_V3,
        ("floe", "DELETE FROM {t} WHERE gate(id) >= 0 AND id = 3"),
        ("iceberg", "DELETE FROM {t} WHERE id = 5"),
    ),
    # Floe's copy-on-write UPDATE rewrites the file Iceberg meanwhile deleted a row from
    "floe-rewrite-vs-iceberg-delete": (
        Mode("mixed-v2", 2, delete=MOR, update=COW, merge=COW),
        ("floe", "UPDATE {t} SET v = -v WHERE gate(id) >= 0 AND id < 10"),
        ("iceberg", "DELETE FROM {t} WHERE id = 7"),
    ),
}


@pytest.mark.parametrize("case", list(CROSS))
def test_conflicts_with_the_other_engine_are_detected(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, tmp_path: Path, case: str
) -> None:
    mode, (engine, statement), (other_engine, other) = CROSS[case]
    names = {"floe": f"floe.{namespace}.t", "iceberg": f"{iceberg}.{namespace}.t"}
    name, loc = _table(spark, warehouse, namespace, mode)
    before = _read(spark, {"floe": name})["floe"]
    gate = Gate(spark, tmp_path)
    concurrent_snapshot: list[int | None] = []

    def concurrent() -> None:
        spark.sql(other.replace("{t}", names[other_engine]))
        concurrent_snapshot.append(current_snapshot_id(loc))

    error = interleave(gate, lambda: spark.sql(statement.replace("{t}", names[engine])), concurrent)

    rows = _read(spark, names)
    assert rows["floe"] == rows["iceberg"]
    if case.endswith("-dv") and error is None:
        # merging the other engine's vector into its own is as good as failing
        assert {3, 5}.isdisjoint(r[0] for r in rows["floe"])
        per_file = Counter(
            referenced_data_file(f) for f in inspect.table_files(loc) if f["content"] != 0
        )
        assert max(per_file.values()) == 1, "a data file has several deletion vectors"
        return
    assert error is not None, f"{engine} committed over the {other_engine} commit it conflicts with"
    assert "ValidationException" in error_text(error), error_text(error)
    assert current_snapshot_id(loc) == concurrent_snapshot[0]
    assert len(rows["floe"]) == len(before) + (1 if "append" in case else -1)
    assert missing_files(loc) == []
    if engine == "floe":
        assert orphan_files(loc) == []


def test_rows_and_files_stay_consistent_for_iceberg_after_floe_merges(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path
) -> None:
    """Iceberg's own row-level operations keep working on a v3 table whose deletion vectors Floe
    wrote and merged several times: its DELETE of rows in the same files merges Floe's vectors
    (one vector per data file afterwards) and Floe reads the result."""
    name, loc = _table(spark, warehouse, namespace, MOR_V3)
    for k in range(3):
        spark.sql(f"DELETE FROM {name} WHERE id % 10 = {k}")
    spark.sql(f"DELETE FROM {iceberg}.{namespace}.t WHERE id % 10 = 5")
    expected = sorted(r for i, r in _initial().items() if i % 10 not in (0, 1, 2, 5))
    read = _read(spark, {"floe": name, "iceberg": f"{iceberg}.{namespace}.t"})
    assert read["floe"] == read["iceberg"] == sorted(expected, key=repr)
    deletes = [f for f in inspect.table_files(loc) if f["content"] != 0]
    per_file = Counter(referenced_data_file(f) for f in deletes)
    assert max(per_file.values()) == 1
    assert sum(f["record_count"] for f in deletes) == INITIAL - len(expected)


@pytest.mark.parametrize("mode", [COW_V2, MOR_V2, MOR_V3], ids=lambda m: m.id)
def test_row_level_changes_across_partition_specs(
    spark: SparkSession, iceberg: str, namespace: str, warehouse: Path, mode: Mode
) -> None:
    """Rows written under two partition specs (identity cat, then also bucket(2, id)): deletes
    of old-spec files carry the old spec id and partition (Iceberg's readers reject a mismatch),
    rewritten rows take the current spec, and Iceberg and pyiceberg read what Floe reads."""
    floe_name, iceberg_name = f"floe.{namespace}.t", f"{iceberg}.{namespace}.t"
    loc = location(warehouse, namespace, "t")
    create_table(spark, floe_name, COLUMNS, uniform(mode.id, mode.version, mode.delete, "cat"))
    spark.sql(INSERT.replace("{t}", floe_name))
    spark.sql(f"ALTER TABLE {floe_name} ADD PARTITION FIELD bucket(2, id)")
    spark.sql(f"INSERT INTO {floe_name} SELECT id + 100, cat, v, st FROM {floe_name} WHERE id < 20")
    model = _initial()
    model |= {i + 100: (i + 100, r[1], r[2], r[3]) for i, r in model.items() if i < 20}
    for change in (
        Change("DELETE FROM {t} WHERE id % 4 = 1", _where(lambda r: r[0] % 4 == 1)),
        Change(
            "UPDATE {t} SET v = -v WHERE id % 4 = 2",
            _set(lambda r: r[0] % 4 == 2, lambda r: (r[0], r[1], -(r[2] or 0), r[3])),
        ),
        Change(_merge_upsert_sql(range(10, 130), 3), _merge_upsert(range(10, 130), 3)),
    ):
        spark.sql(change.sql.replace("{t}", floe_name))
        model = change.model(model)
        expected = sorted(model.values(), key=repr)
        read = _read(spark, {"floe": floe_name, "iceberg": iceberg_name})
        for reader, rows in read.items():
            assert rows == expected, f"{change.sql}: {reader}: {_diff(rows, expected)}"
        assert _pyiceberg(loc) == expected, f"{change.sql}: pyiceberg"
    assert not check_table(loc, mode, len(model))
    specs = Counter(f["spec_id"] for f in inspect.table_files(loc) if f["content"] == 0)
    # merge-on-read leaves the old files in place; copy-on-write rewrote them all (current spec)
    assert set(specs) == ({0, 1} if mode.merge_on_read else {1}), f"data files by spec: {specs}"
