"""Shared by the row-level tests (DELETE / UPDATE / MERGE): table modes, a deterministic
interleaving gate, and checks of a table's files and snapshot summaries that read the metadata
directly (json, fastavro, pyarrow), never through Floe's Java code.

The gate is a Python UDF placed in a statement (``WHERE gate(id) >= 0 AND ...``, or a column of a
MERGE source). The first task that evaluates it blocks until the test releases it, so the test can
commit something else *after* the statement planned its scan and *before* it commits: the same
interleaving every run, without sleeps or timing luck. Only one task ever blocks, so the other
core stays free for the concurrent statement.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import floe
import floe.inspect as inspect
from floe.inspect._paths import local_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The catalog whose tables are under test. ``FLOE_ROW_LEVEL_TARGET=iceberg`` runs the same checks
#: against Apache Iceberg's runtime (catalog ``iceberg``), which validates the tests themselves.
TARGET = os.environ.get("FLOE_ROW_LEVEL_TARGET", "floe")
#: ``USING`` clause provider of the catalog under test.
TARGET_PROVIDER = "floe" if TARGET == "floe" else "iceberg"
#: Parquet field id of a position delete file's ``file_path`` column (bounds are keyed by it).
FILE_PATH_ID = 2147483546
GATE_TIMEOUT_S = 90.0
OPERATIONS = ("delete", "update", "merge")


@dataclass(frozen=True)
class Mode:
    """How a test table is created: format version, row-level modes, partitioning."""

    id: str
    version: int
    delete: str
    update: str
    merge: str
    partitioning: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def properties(self) -> dict[str, str]:
        return {
            "format-version": str(self.version),
            "write.delete.mode": self.delete,
            "write.update.mode": self.update,
            "write.merge.mode": self.merge,
            **self.extra,
        }

    @property
    def merge_on_read(self) -> bool:
        return "merge-on-read" in (self.delete, self.update, self.merge)

    def with_properties(self, extra: dict[str, str]) -> Mode:
        """The same mode with more table properties (e.g. an isolation level)."""
        return Mode(
            self.id,
            self.version,
            self.delete,
            self.update,
            self.merge,
            self.partitioning,
            {**self.extra, **extra},
        )


def uniform(id_: str, version: int, mode: str, partitioning: str = "") -> Mode:
    """A mode whose DELETE, UPDATE and MERGE all use ``mode``."""
    return Mode(id_, version, mode, mode, mode, partitioning)


COW = "copy-on-write"
MOR = "merge-on-read"

COW_V2 = uniform("cow-v2", 2, COW)
MOR_V2 = uniform("mor-v2", 2, MOR)
MOR_V3 = uniform("mor-v3", 3, MOR)


def tblproperties(properties: dict[str, str]) -> str:
    return ", ".join(f"'{k}'='{v}'" for k, v in sorted(properties.items()))


def create_table(
    spark: SparkSession, name: str, columns: str, mode: Mode, *, using: str = TARGET_PROVIDER
) -> None:
    """CREATE TABLE ``name`` (fully qualified) with ``columns`` in ``mode``."""
    partitioned = f"PARTITIONED BY ({mode.partitioning})" if mode.partitioning else ""
    spark.sql(
        f"CREATE TABLE {name} ({columns}) USING {using} {partitioned} "
        f"TBLPROPERTIES ({tblproperties(mode.properties)})"
    )


def location(warehouse: Path, namespace: str, table: str) -> str:
    return f"{floe.warehouse_uri(str(warehouse))}/{namespace}/{table}"


# --- snapshots -------------------------------------------------------------------------------


def snapshots(table_location: str) -> list[dict[str, Any]]:
    """Every snapshot of the table, oldest first."""
    metadata = inspect.load_table_metadata(table_location)
    return sorted(metadata.get("snapshots", []), key=lambda s: s["sequence-number"])


def current_snapshot(table_location: str) -> dict[str, Any] | None:
    metadata = inspect.load_table_metadata(table_location)
    current = metadata.get("current-snapshot-id")
    if current is None or current == -1:
        return None
    found: dict[str, Any] = next(s for s in metadata["snapshots"] if s["snapshot-id"] == current)
    return found


def current_snapshot_id(table_location: str) -> int | None:
    snap = current_snapshot(table_location)
    return None if snap is None else int(snap["snapshot-id"])


def _count(summary: dict[str, str], key: str) -> int:
    return int(summary.get(key, "0"))


# --- invariants of a table's files and summaries ---------------------------------------------


def check_table(
    table_location: str,
    mode: Mode,
    visible_rows: int,
    *,
    one_delete_file_per_data_file: bool = True,
) -> list[str]:
    """Problems with the current snapshot of a table written by row-level operations in ``mode``
    (empty when none). ``visible_rows`` is the number of rows a correct reader returns.

    - the summary totals equal what the manifests hold, and the operation name fits the counts;
    - total-records - total-position-deletes = visible rows (Floe's deletes are file-scoped and
      merged per data file, so no position is counted twice);
    - every delete file references exactly one live data file and carries its spec and partition,
      at most one delete file per data file (v2 allows more, which concurrent writers may leave:
      ``one_delete_file_per_data_file=False``); v2: Parquet with untruncated ``file_path`` bounds,
      v3: deletion vectors in Puffin files whose footer agrees with the manifest entry;
    - copy-on-write-only tables have no delete files at all.
    """
    problems: list[str] = []
    snap = current_snapshot(table_location)
    if snap is None:
        return [] if visible_rows == 0 else [f"no snapshot, expected {visible_rows} rows"]
    summary: dict[str, str] = snap["summary"]
    files = inspect.table_files(table_location)
    data = [f for f in files if f["content"] == 0]
    deletes = [f for f in files if f["content"] != 0]
    data_by_path = {f["file_path"]: f for f in data}

    def expect(key: str, actual: int) -> None:
        if key not in summary:
            problems.append(f"summary lacks {key} (actual {actual})")
        elif int(summary[key]) != actual:
            problems.append(f"summary {key}={summary[key]}, manifests hold {actual}")

    expect("total-data-files", len(data))
    expect("total-delete-files", len(deletes))
    expect("total-records", sum(f["record_count"] for f in data))
    expect("total-position-deletes", sum(f["record_count"] for f in deletes if f["content"] == 1))
    expect("total-equality-deletes", 0)
    if "total-records" in summary and "total-position-deletes" in summary:
        live = _count(summary, "total-records") - _count(summary, "total-position-deletes")
        if live != visible_rows:
            problems.append(
                f"total-records - total-position-deletes = {live}, but {visible_rows} rows are "
                "visible"
            )
    problems += _operation_problems(summary)

    if not mode.merge_on_read and deletes:
        problems.append(f"copy-on-write table has {len(deletes)} delete files")
    per_data_file: Counter[str] = Counter()
    for d in deletes:
        if d["content"] != 1:
            problems.append(f"unexpected delete content {d['content']}: {d['file_path']}")
            continue
        ref = referenced_data_file(d)
        if ref is None or (d.get("referenced_data_file") is None and TARGET == "floe"):
            problems.append(f"delete file without referenced_data_file: {d['file_path']}")
            continue
        per_data_file[ref] += 1
        target = data_by_path.get(ref)
        if target is None:
            problems.append(f"delete file {d['file_path']} references a file not live: {ref}")
            continue
        if d["spec_id"] != target["spec_id"] or d["partition"] != target["partition"]:
            problems.append(
                f"delete file {d['file_path']} has spec {d['spec_id']} {d['partition']}, its data "
                f"file {target['spec_id']} {target['partition']}"
            )
        if d["record_count"] <= 0 or d["record_count"] > target["record_count"]:
            problems.append(f"delete file {d['file_path']} has record_count {d['record_count']}")
        if mode.version >= 3:
            problems += _dv_problems(d)
        else:
            problems += _position_delete_problems(d)
    if one_delete_file_per_data_file or mode.version >= 3:
        problems += [
            f"{n} delete files for one data file {path}"
            for path, n in per_data_file.items()
            if n > 1
        ]
    if mode.version >= 3:
        problems += _row_lineage_problems(table_location)
    return problems


def referenced_data_file(delete: dict[str, Any]) -> str | None:
    """The one data file a position delete file or DV covers: ``referenced_data_file``, or equal
    ``file_path`` bounds (Iceberg 1.11 sets only the bounds in v2); None when it covers several."""
    if delete.get("referenced_data_file") is not None:
        return str(delete["referenced_data_file"])
    lower = (delete.get("lower_bounds") or {}).get(FILE_PATH_ID)
    upper = (delete.get("upper_bounds") or {}).get(FILE_PATH_ID)
    return lower.decode() if lower is not None and lower == upper else None


def _operation_problems(summary: dict[str, str]) -> list[str]:
    """The operation name must fit what the snapshot did (Iceberg's mapping, docs/format.md,
    'Snapshot operations and summaries')."""
    op = summary.get("operation")
    added_data = _count(summary, "added-data-files")
    removed_data = _count(summary, "deleted-data-files")
    added_deletes = _count(summary, "added-delete-files")
    removed_deletes = _count(summary, "removed-delete-files")
    if added_data and not (removed_data or added_deletes or removed_deletes):
        expected = {"append", "overwrite"}
    elif added_data:
        expected = {"overwrite"}
    elif removed_data or added_deletes:
        expected = {"delete"}
    else:
        expected = {"delete", "overwrite"}  # nothing changed: named after the statement
    if op not in expected:
        return [f"operation {op!r} for a snapshot with summary {summary}; expected {expected}"]
    return []


def _position_delete_problems(d: dict[str, Any]) -> list[str]:
    import pyarrow.parquet as pq

    problems = []
    ref = referenced_data_file(d)
    assert ref is not None
    if str(d["file_format"]).upper() != "PARQUET":
        problems.append(f"v2 delete file is {d['file_format']}: {d['file_path']}")
        return problems
    lower = (d.get("lower_bounds") or {}).get(FILE_PATH_ID)
    upper = (d.get("upper_bounds") or {}).get(FILE_PATH_ID)
    if lower != ref.encode() or upper != ref.encode():
        problems.append(f"file_path bounds {lower!r}..{upper!r} of {d['file_path']} != {ref}")
    table = pq.read_table(local_path(d["file_path"]))
    paths = table.column("file_path").to_pylist()
    positions = table.column("pos").to_pylist()
    if set(paths) != {ref}:
        problems.append(f"{d['file_path']} lists other files: {sorted(set(paths))[:3]}")
    if positions != sorted(set(positions)):
        problems.append(f"{d['file_path']} positions not sorted and unique")
    if len(positions) != d["record_count"]:
        problems.append(f"{d['file_path']} holds {len(positions)} rows, record_count says so not")
    return problems


def _dv_problems(d: dict[str, Any]) -> list[str]:
    problems = []
    if str(d["file_format"]).upper() != "PUFFIN":
        return [f"v3 table has a {d['file_format']} position delete file: {d['file_path']}"]
    blobs = inspect.read_puffin(d["file_path"])["blobs"]
    blob = next((b for b in blobs if b["offset"] == d["content_offset"]), None)
    if blob is None:
        return [f"no blob at offset {d['content_offset']} in {d['file_path']}"]
    if blob["type"] != "deletion-vector-v1":
        problems.append(f"blob type {blob['type']} in {d['file_path']}")
    if blob["length"] != d["content_size_in_bytes"]:
        problems.append(f"blob length {blob['length']} != {d['content_size_in_bytes']}")
    props = blob.get("properties", {})
    if props.get("referenced-data-file") != d["referenced_data_file"]:
        problems.append(f"blob references {props.get('referenced-data-file')}")
    if props.get("cardinality") != str(d["record_count"]):
        problems.append(f"blob cardinality {props.get('cardinality')} != {d['record_count']}")
    return problems


def _row_lineage_problems(table_location: str) -> list[str]:
    """v3: each snapshot's first-row-id continues where its parent's rows ended, and the table's
    next-row-id is past the last snapshot's rows (docs/format.md, 'Row lineage (v3)')."""
    metadata = inspect.load_table_metadata(table_location)
    problems = []
    previous_end = None
    for snap in snapshots(table_location):
        first, added = snap.get("first-row-id"), snap.get("added-rows")
        if first is None or added is None:
            problems.append(f"v3 snapshot {snap['snapshot-id']} lacks first-row-id/added-rows")
            continue
        if previous_end is not None and first != previous_end:
            problems.append(
                f"snapshot {snap['snapshot-id']} first-row-id {first} != {previous_end}"
            )
        previous_end = first + added
    if previous_end is not None and metadata.get("next-row-id") != previous_end:
        problems.append(f"next-row-id {metadata.get('next-row-id')} != {previous_end}")
    head = current_snapshot(table_location)
    if head is not None:
        for manifest in inspect.read_manifest_list(head["manifest-list"]):
            if manifest.get("content", 0) == 0 and manifest.get("first_row_id") is None:
                problems.append(f"data manifest without first_row_id: {manifest['manifest_path']}")
    return problems


def referenced_files(table_location: str) -> set[str]:
    """Local paths of every file any snapshot of the table references (data, deletes, manifests,
    manifest lists, statistics)."""
    metadata = inspect.load_table_metadata(table_location)
    found: set[str] = set()
    for snap in metadata.get("snapshots", []):
        found.add(str(local_path(snap["manifest-list"])))
        for manifest in inspect.read_manifest_list(snap["manifest-list"]):
            found.add(str(local_path(manifest["manifest_path"])))
        for f in inspect.table_files(table_location, snap["snapshot-id"]):
            found.add(str(local_path(f["file_path"])))
    for stats in (*metadata.get("statistics", []), *metadata.get("partition-statistics", [])):
        found.add(str(local_path(stats["statistics-path"])))
    return found


def missing_files(table_location: str) -> list[str]:
    """Files the current snapshot references that are not on disk: what a cleanup after a failed
    write must never delete (trinodb/trino#29361 deleted live data files whose DVs it wrote)."""
    snap = current_snapshot(table_location)
    if snap is None:
        return []
    paths = [snap["manifest-list"]]
    paths += [m["manifest_path"] for m in inspect.read_manifest_list(snap["manifest-list"])]
    paths += [f["file_path"] for f in inspect.table_files(table_location)]
    return sorted(str(p) for p in paths if not local_path(p).is_file())


def orphan_files(table_location: str) -> list[str]:
    """Files under the table directory that no snapshot references (metadata JSON, the version
    hint and checksum sidecars aside): what a failed or abandoned write left behind."""
    root = local_path(table_location)
    referenced = referenced_files(table_location)
    orphans = []
    for path in root.rglob("*"):
        name = path.name
        if not path.is_file() or name.endswith(".crc") or name == "version-hint.text":
            continue
        if path.parent.name == "metadata" and ".metadata.json" in name:
            continue
        if str(path) not in referenced:
            orphans.append(str(path.relative_to(root)))
    return sorted(orphans)


# --- deterministic interleaving ----------------------------------------------------------------


class Gate:
    """A Python UDF ``name(x) -> x`` (BIGINT). The first task evaluating it waits, holding the
    statement between its scan and its commit, until ``release``; every later call passes."""

    def __init__(self, spark: SparkSession, directory: Path, name: str = "gate") -> None:
        from pyspark.sql.types import LongType

        directory.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.started = directory / f"{name}.started"
        self.released = directory / f"{name}.released"
        started, released, timeout = self.started, self.released, GATE_TIMEOUT_S

        def gate(value: int | None) -> int | None:
            import os
            import time

            if released.exists():
                return value
            try:
                os.close(os.open(started, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return value  # another task holds the gate
            deadline = time.monotonic() + timeout
            while not released.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError(f"gate {started} was never released")
                time.sleep(0.01)
            return value

        spark.udf.register(name, gate, LongType())

    def reset(self) -> None:
        for path in (self.started, self.released):
            path.unlink(missing_ok=True)

    def release(self) -> None:
        self.released.touch()

    def holding(self) -> bool:
        return self.started.exists()


class Hold(Protocol):
    """What ``interleave`` needs of a gate: arm it, see a statement held at it, release it."""

    def reset(self) -> None: ...

    def release(self) -> None: ...

    def holding(self) -> bool: ...


class CommitHold:
    """The product's test hook io.floe.spark.util.CommitGate, with ``Gate``'s interface: holds the
    next write of ``table`` (``catalog.namespace.table``) that reaches its commit, after its scan
    and its file writes (DELETE / UPDATE / MERGE / INSERT / rewrite_data_files), until ``release``.
    Needs the JVM started with -Dfloe.test-hooks=true (conftest.py)."""

    def __init__(self, spark: SparkSession, table: str) -> None:
        self.table = table
        self._gate: Any = spark._jvm.io.floe.spark.util.CommitGate  # type: ignore[union-attr]

    def reset(self) -> None:
        self._gate.hold(self.table)

    def release(self) -> None:
        self._gate.release(self.table)

    def holding(self) -> bool:
        return bool(self._gate.reached(self.table))


def interleave(
    gate: Hold, statement: Callable[[], object], concurrent: Callable[[], object]
) -> BaseException | None:
    """Run ``statement`` in a thread; once it holds ``gate`` (evaluates the UDF, or reaches its
    commit through the armed CommitGate), run ``concurrent`` here, then release it. Returns what
    ``statement`` raised, or None. Fails if ``statement`` never reaches the gate (the interleaving
    would then not be tested)."""
    gate.reset()
    raised: list[BaseException] = []

    def run() -> None:
        try:
            statement()
        except BaseException as e:
            raised.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + GATE_TIMEOUT_S
    while not gate.holding():
        if not thread.is_alive():
            gate.release()
            detail = f": {raised[0]}" if raised else ""
            raise AssertionError(f"the statement finished without reaching the gate{detail}")
        if time.monotonic() > deadline:
            gate.release()
            raise AssertionError("the statement did not reach the gate in time")
        time.sleep(0.01)
    try:
        concurrent()
    finally:
        gate.release()
        thread.join(GATE_TIMEOUT_S * 2)
    assert not thread.is_alive(), "the gated statement did not finish"
    return raised[0] if raised else None


# --- readers -----------------------------------------------------------------------------------


def pyiceberg_table(table_location: str) -> Any:
    """pyiceberg's StaticTable on the table's current metadata JSON file."""
    from pyiceberg.table import StaticTable

    return StaticTable.from_metadata(inspect.metadata_file(table_location).as_uri())


def pyiceberg_rows(table_location: str, columns: Iterable[str]) -> list[tuple[Any, ...]]:
    """The current rows through pyiceberg (StaticTable on the table's current metadata)."""
    names = tuple(columns)
    table = pyiceberg_table(table_location).scan(selected_fields=names).to_arrow()
    return sorted(zip(*(table.column(c).to_pylist() for c in names), strict=True), key=repr)


def error_text(error: BaseException) -> str:
    """An exception's message with its Java cause chain (py4j errors carry it in str())."""
    return f"{type(error).__name__}: {error}"


def error_condition(error: BaseException) -> tuple[str | None, str | None]:
    """The error class and SQLSTATE a client sees: of a PySpark error, or of the first Spark
    classed error (SparkThrowable) in a py4j error's Java cause chain; (None, None) if none."""
    get_condition = getattr(error, "getCondition", None)
    if callable(get_condition) and get_condition() is not None:
        return get_condition(), error.getSqlState()  # type: ignore[attr-defined]
    from py4j.java_gateway import is_instance_of
    from pyspark import SparkContext

    java = getattr(error, "java_exception", None)
    while java is not None:
        classed = is_instance_of(SparkContext._gateway, java, "org.apache.spark.SparkThrowable")
        if classed and java.getCondition() is not None:
            return str(java.getCondition()), str(java.getSqlState())
        cause = java.getCause()
        java = None if cause is None or cause.equals(java) else cause
    return None, None
