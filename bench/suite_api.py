"""The benchmark suite's API for workload modules (docs/benchmarks.md, 'Writing a workload').

A workload module under ``bench/workloads/`` exposes one ``WORKLOAD = Workload(...)``. The harness
(``bench/suite.py``) calls its ``prepare`` once per suite run in a plain Spark session (shared
inputs, the same files for every engine), then its ``run`` once per engine, each in a fresh JVM,
with a :class:`Context` for that engine. ``run`` returns one :class:`Case` per measured thing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Every engine the suite knows, in the order the report shows them.
ENGINES: tuple[str, ...] = ("parquet", "iceberg-default", "iceberg-best", "delta", "floe")
#: What ``--engines`` accepts: a family name stands for its engines.
FAMILIES: dict[str, tuple[str, ...]] = {
    "parquet": ("parquet",),
    "iceberg": ("iceberg-default", "iceberg-best"),
    "delta": ("delta",),
    "floe": ("floe",),
}
#: Chart families (one PNG chart each).
CHART_FAMILIES: tuple[str, ...] = (
    "scan", "metadata", "row-level", "statistics", "index", "query-mix", "load",
)  # fmt: skip
#: Goal keys of ``Workload.goals``: the peer a Floe/peer ratio is taken against.
GOAL_PEERS: tuple[str, ...] = ("parquet", "iceberg", "delta", "peers")

#: Namespace of every engine's tables (Iceberg and Floe catalogs).
NAMESPACE = "bench"


@dataclass
class Case:
    """One measured thing of one workload on one engine: ``seconds`` holds the measured
    repetitions (warm-ups excluded). ``answer`` is a digest of the result rows (see
    :func:`answer_digest`); a case whose engines' answers differ fails (the report lists it under
    Problems, its goals are MISSED and the suite exits non-zero)."""

    name: str
    engine: str
    seconds: list[float]
    bytes_written: int | None = None
    files_written: int | None = None
    files_read: int | None = None
    answer: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: False when ``seconds`` are the samples of ONE measured run (W4: each commit of a window)
    #: rather than repetitions of the measurement: a goal then judges the median only, since
    #: one slow sample among a hundred is no failed repetition.
    repeated: bool = True

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Case:
        return Case(**dict(data))


@dataclass(frozen=True)
class Workload:
    """One workload of the suite (``id`` "W1" ... "W12")."""

    id: str
    title: str
    family: str
    engines: tuple[str, ...]
    prepare: Callable[[SparkSession, Path, bool], object]
    run: Callable[[Context], list[Case]]
    goals: dict[str, dict[str, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.family not in CHART_FAMILIES:
            raise ValueError(f"{self.id}: family {self.family!r} is not one of {CHART_FAMILIES}")
        unknown = [e for e in self.engines if e not in ENGINES]
        if unknown:
            raise ValueError(f"{self.id}: unknown engines {unknown}; choose from {ENGINES}")
        for case, goals in self.goals.items():
            bad = [peer for peer in goals if peer not in GOAL_PEERS]
            if bad:
                raise ValueError(f"{self.id} case {case}: goal peers {bad} not in {GOAL_PEERS}")


def quote_path(path: Path | str) -> str:
    """``path`` as a backquoted SQL identifier part (for ``parquet.`...```)."""
    return "`" + str(path).replace("`", "``") + "`"


def catalog_of(engine: str) -> str | None:
    """The Spark catalog holding ``engine``'s tables; None for path-based engines."""
    if engine.startswith("iceberg"):
        return "iceberg"
    if engine == "floe":
        return "floe"
    return None


class Context:
    """What one engine's run of one workload sees, in that engine's own fresh JVM."""

    def __init__(
        self,
        engine: str,
        spark: SparkSession,
        inputs: Path,
        work: Path,
        quick: bool,
        reps: int | None = None,
        warmups: int = 1,
    ) -> None:
        self.engine = engine
        self.spark = spark
        self.inputs = inputs
        self.work = work
        self.quick = quick
        self.reps = reps if reps is not None else (3 if quick else 5)
        self.warmups = warmups
        self._namespace_ready = False

    # -- tables ------------------------------------------------------------------------------
    def table(self, name: str) -> str:
        """This engine's SQL identifier for table ``name``: ``iceberg.bench.name``,
        ``floe.bench.name``, ``delta.`<path>``` and, for plain Parquet, a temp view
        ``parquet_name`` over ``spark.read.parquet(<path>)`` (see :meth:`refresh`)."""
        catalog = catalog_of(self.engine)
        if catalog is not None:
            return f"{catalog}.{NAMESPACE}.{name}"
        if self.engine == "parquet":
            return f"parquet_{name}"
        return f"{self.engine}.{quote_path(self.table_path(name))}"

    def refresh(self, name: str) -> None:
        """After files were written to a plain Parquet table's directory outside ``ctx``: make
        ``ctx.table(name)`` see them (its temp view caches the file listing, as a DataFrame does).
        A no-op for the other engines."""
        if self.engine == "parquet":
            self.spark.read.parquet(str(self.table_path(name))).createOrReplaceTempView(
                self.table(name)
            )

    def table_path(self, name: str) -> Path:
        """Where a path-based engine (parquet, delta) keeps table ``name``; for Iceberg and Floe,
        where ``import_parquet`` links the files it adds to table ``name``."""
        return self.work / "tables" / name

    def _ensure_namespace(self) -> None:
        catalog = catalog_of(self.engine)
        if catalog is not None and not self._namespace_ready:
            self.spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.{NAMESPACE}")
            self._namespace_ready = True

    def table_properties(self, properties: Mapping[str, str] | None = None) -> dict[str, str]:
        """The engine's table properties for a new table (engine settings, then ``properties``)."""
        from suite_engines import table_properties

        merged = dict(table_properties(self.engine))
        merged.update(properties or {})
        return merged

    def import_parquet(
        self, name: str, src_dir: Path, partition_cols: Sequence[str] = ()
    ) -> str:
        """A table ``name`` of this engine over the SAME Parquet files as ``src_dir`` (hard links
        into this engine's scratch directory, so that the shared inputs stay read-only): Iceberg
        and Floe ``add_files``, Delta ``CONVERT TO DELTA``, a path for plain Parquet. Returns the
        table's SQL identifier. ``partition_cols`` name Hive-style directories (``col=value``)."""
        from suite_engines import import_parquet

        self._ensure_namespace()
        linked = link_tree(src_dir, self.table_path(name))
        return import_parquet(self, name, linked, tuple(partition_cols))

    def import_statement(self, name: str, src_dir: Path) -> str | None:
        """What :meth:`import_parquet` runs, made ready but not run: the files of ``src_dir``
        linked afresh, the empty table created (Iceberg, Floe), and the statement that imports
        them returned (``add_files``, ``CONVERT TO DELTA``; None for plain Parquet)."""
        from suite_engines import import_statement

        self._ensure_namespace()
        linked = link_tree(src_dir, self.table_path(name))
        return import_statement(self, name, linked, ())

    def create_table(
        self,
        name: str,
        df: DataFrame,
        partition_cols: Sequence[str] = (),
        properties: Mapping[str, str] | None = None,
    ) -> str:
        """Writes ``df`` as this engine's table ``name``; returns its SQL identifier."""
        from suite_engines import create_table

        self._ensure_namespace()
        props = self.table_properties(properties)
        return create_table(self, name, df, tuple(partition_cols), props)

    def table_location(self, name: str) -> Path:
        """The directory holding table ``name``'s files (for bytes and files written)."""
        from suite_engines import table_location

        return table_location(self, name)

    # -- timing ------------------------------------------------------------------------------
    def time(
        self, action: Callable[[], object], setup: Callable[[], object] | None = None
    ) -> list[float]:
        """Runs ``action`` ``warmups`` times unmeasured, then ``reps`` times measured; ``setup``
        runs untimed before each. Returns the measured seconds."""
        measured: list[float] = []
        for i in range(self.warmups + self.reps):
            if setup is not None:
                setup()
            started = time.perf_counter()
            action()
            seconds = time.perf_counter() - started
            if i >= self.warmups:
                measured.append(seconds)
        return measured

    def query_case(
        self,
        name: str,
        sql: str,
        digest: Callable[[list[Any]], str] | None = None,
        **extra: Any,
    ) -> Case:
        """A :class:`Case` timing ``sql`` (run to the last row) with :meth:`time`; its answer is
        ``digest`` (default :func:`answer_digest`) of the rows of the first warm-up run, or of one
        untimed run before when there is no warm-up (never of a measured run)."""
        to_answer = digest or answer_digest
        answers: list[str] = []
        if self.warmups <= 0:
            answers.append(to_answer(self.spark.sql(sql).collect()))

        def query() -> None:
            rows = self.spark.sql(sql).collect()
            if not answers:  # the first warm-up: digested outside the measured runs
                answers.append(to_answer(rows))

        return self.case(name, self.time(query), answer=answers[0], **extra)

    def jobs_run(self, sql: str) -> int:
        """How many Spark jobs one run of ``sql`` (collected) starts in this session; untimed. The
        status tracker is fed asynchronously by Spark's listener bus: wait for it to deliver the
        run's job events before counting (python-tests/conftest.py ``spark_jobs`` does the same)."""
        context = self.spark.sparkContext
        bus = context._jsc.sc().listenerBus()
        bus.waitUntilEmpty()
        before = set(context.statusTracker().getJobIdsForGroup(None))
        self.spark.sql(sql).collect()
        bus.waitUntilEmpty()
        return len(set(context.statusTracker().getJobIdsForGroup(None)) - before)

    def files_opened(self, sql: str) -> int | None:
        """How many data files one run of ``sql`` (collected, untimed) planned to read, each of
        which its reader opens (its footer at least; a bloom filter or page statistics may then
        skip its row groups): a DSv2 scan's ``resultDataFiles`` metric (Floe and Iceberg, after
        partition, bounds and index pruning) or a file source scan's ``numFiles`` (Parquet,
        Delta). None when the plan has no scan node or more than one."""
        from bench_session import scan_nodes

        df = self.spark.sql(sql)
        df.collect()
        scans = scan_nodes(
            df._jdf.queryExecution().executedPlan(),
            ("BatchScanExec", "FloeLocalReadExec", "FileSourceScanExec"),
        )
        if len(scans) != 1:
            return None
        metrics = scans[0].metrics()
        for key in ("resultDataFiles", "numFiles"):
            if metrics.contains(key):
                return int(metrics.apply(key).value())
        return None

    def case(self, name: str, seconds: Sequence[float], **extra: Any) -> Case:
        """A :class:`Case` of this engine. ``extra`` keys ``bytes_written``, ``files_written``,
        ``files_read``, ``answer`` and ``repeated`` fill those fields; any other key goes to
        ``Case.extra``."""
        fields = ("bytes_written", "files_written", "files_read", "answer", "repeated")
        known = {k: extra.pop(k) for k in fields if k in extra}
        return Case(name=name, engine=self.engine, seconds=list(seconds), extra=extra, **known)


# -- helpers for workloads -------------------------------------------------------------------
def answer_digest(rows: Iterable[Any]) -> str:
    """A stable digest of result rows, independent of row order; floats rounded to 9 significant
    digits (engines may sum in different orders)."""

    def norm(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.9g}"
        if isinstance(value, (list, tuple)):
            return "(" + ",".join(norm(v) for v in value) + ")"
        return repr(value)

    lines = sorted(norm(tuple(row)) for row in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


def link_tree(src: Path, dest: Path) -> Path:
    """Hard-links every file under ``src`` into ``dest`` (same relative paths), skipping hidden
    and ``_``-prefixed files (``_SUCCESS``, ``.crc``); copies when hard links are not possible."""
    if dest.exists():
        shutil.rmtree(dest)
    for path in sorted(src.rglob("*")):
        relative = path.relative_to(src)
        if any(part.startswith((".", "_")) for part in relative.parts):
            continue
        target = dest / relative
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target)
        except OSError:
            shutil.copy2(path, target)
    return dest


def data_files(path: Path, suffix: str = ".parquet") -> list[Path]:
    """The data files under ``path`` (hidden and ``_`` files excluded)."""
    return [
        p for p in path.rglob(f"*{suffix}")
        if p.is_file() and not any(s.startswith((".", "_")) for s in p.relative_to(path).parts)
    ]  # fmt: skip


def bytes_and_files(path: Path, suffix: str = ".parquet") -> tuple[int, int]:
    """Total bytes and count of the data files under ``path``."""
    files = data_files(path, suffix)
    return sum(f.stat().st_size for f in files), len(files)


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``, or None when either is missing or ``b`` is 0."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def peer_median(medians: Mapping[str, float], peer: str) -> float | None:
    """The median time a goal key ``peer`` compares Floe with: ``iceberg`` is the faster Iceberg
    configuration, ``peers`` the fastest non-Floe engine measured."""
    if peer == "iceberg":
        found = [medians[e] for e in FAMILIES["iceberg"] if e in medians]
    elif peer == "peers":
        found = [t for e, t in medians.items() if e != "floe"]
    else:
        found = [medians[e] for e in FAMILIES[peer] if e in medians]
    return min(found) if found else None


def goal_met(median_ratio: float, worst_ratio: float | None, goal: float) -> bool:
    """Acceptance (docs/benchmarks.md, 'Reading the report'): the median ratio is at most the
    goal and the worst-of-N ratio at most the goal + 10%; ``worst_ratio`` None: the median only
    (a case whose samples are not repetitions, :attr:`Case.repeated`)."""
    return median_ratio <= goal and (worst_ratio is None or worst_ratio <= goal * 1.10)
