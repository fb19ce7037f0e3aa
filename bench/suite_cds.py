"""Class-data-sharing archives for the suite's JVMs (docs/benchmarks.md, 'JVM start').

The suite starts about fifty JVMs in a full run, one per engine and workload. Each loads and
verifies some ten thousand classes of Spark, Hadoop and the engine before its first statement. A
dynamic CDS archive (``-XX:ArchiveClassesAtExit``, JDK 13+) holds them already parsed and
verified: measured on this project's machine, a plain Spark JVM's start plus its first query took
11.1 s without an archive and 7.2 s with one, a Floe JVM's 13.5-14.0 s and 9.2 s; in paired suite
runs of W1, W2, W4 and W5 on every engine (16 JVMs), 845 s without and 765 s with.

Every engine gets an archive of its own, trained on its own class path (the two Iceberg
configurations share one), so each starts the same way. The archive changes how classes are loaded,
not the code that runs. Yet on this machine the first repetitions of a JVM's first case were
sometimes slower with an archive (likely: the JVM gets there sooner, with less of its code compiled
yet; docs/benchmarks.md, 'JVM start', has the paired runs). ``--no-cds`` gives runs without. An
archive is made once per key (the Java runtime, PySpark's jars, the engine's own jars and the
training script, ``class_data_sharing.runtime_key``) by a training run (``suite_cds_training.py``:
a session, writes, reads and row-level statements on a small table of the engine) and kept in the
cache folder (``FLOE_CACHE``, as the test jars). A JVM that the archive does not fit starts as it
would without it. ``FLOE_BENCH_CDS=off`` or ``suite.py --no-cds`` turns archives off.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "python-tests"))

import class_data_sharing  # noqa: E402
from iceberg_runtime import cache_dir  # noqa: E402

#: The environment variable the training run reads its JVM options from.
ENV = "FLOE_BENCH_JAVA_OPTIONS"
TRAINING = BENCH / "suite_cds_training.py"
TRAINING_TIMEOUT_S = 600


def turned_off() -> bool:
    """Whether ``FLOE_BENCH_CDS`` turns the archives off."""
    return os.environ.get("FLOE_BENCH_CDS", "").lower() in {"off", "0", "false"}


def folder() -> Path:
    """Where the suite's archives and their training runs' logs are kept."""
    return cache_dir() / "cds-bench"


def family(engine: str) -> str:
    """The archive an engine uses: engines with the same class path share one."""
    return "iceberg" if engine.startswith("iceberg") else engine


def engine_jars(engine: str) -> list[Path]:
    """The jars ``engine`` adds to PySpark's (what its archive depends on besides those)."""
    from iceberg_runtime import iceberg_runtime_jar
    from suite_engines import delta_jars

    if engine.startswith("iceberg"):
        return [iceberg_runtime_jar()]
    if engine == "delta":
        return delta_jars()
    if engine == "floe":
        import floe

        return [Path(floe.jar_path())]
    return []


def _train(engine: str, archive: Path) -> str | None:
    work = archive.parent / f"training-{family(engine)}-{os.getpid()}"
    command = [sys.executable, str(TRAINING), engine, str(work)]
    try:
        return class_data_sharing.dump(archive, command, ENV, TRAINING_TIMEOUT_S)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def java_options(engine: str) -> tuple[str, str]:
    """The JVM options that make ``engine``'s JVMs read its archive (building it first when there
    is none for the current key), and what happened, for the report: ``reused``, ``built in N s``,
    ``off`` or ``none (why)``; the options are empty unless there is an archive."""
    if turned_off():
        return "", "off"
    try:
        key = class_data_sharing.runtime_key([*engine_jars(engine), TRAINING])
    except Exception as e:  # a jar that cannot be fetched: the engine's worker reports it
        print(f"suite_cds: {engine} starts without an archive: {e}", file=sys.stderr)
        return "", f"none ({type(e).__name__})"
    archive = folder() / f"{family(engine)}-{key}.jsa"
    built: list[str] = []

    def build(path: Path) -> None:
        started = time.perf_counter()
        failure = _train(engine, path)
        built.append(failure or f"built in {time.perf_counter() - started:.0f} s")

    if not class_data_sharing.ensure(archive, build):
        reason = built[0] if built else "no archive"
        print(f"suite_cds: {engine} starts without an archive: {reason}", file=sys.stderr)
        return "", f"none ({reason.splitlines()[0]})"
    return class_data_sharing.reading_options(archive), built[0] if built else "reused"
