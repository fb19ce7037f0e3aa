"""A class-data-sharing archive for the Spark JVMs that tests start as worker processes.

Several tests start Spark applications of their own: the stream worker that the exactly-once test
kills a dozen times, the concurrent appenders, the local-cluster run. Each one is a fresh JVM that
loads and verifies some ten thousand classes of Spark, Hadoop and Floe before its first query,
about 10 s on two cores. A dynamic CDS archive (JDK 13+, ``-XX:ArchiveClassesAtExit``) holds those
classes already parsed and verified, and halves that: measured on this project's machine, a
``floe.session`` plus its first statements took 17.4 s without the archive and 7.9 s with it.

``worker_java_options()`` returns the JVM options that use the archive, building it first when it
is missing: one training run (``helpers/cds_training.py``: a session, DDL, DML, a read and a
streaming query) dumps the classes it loaded. The archive lives in the test cache, keyed by the
Java runtime, PySpark's jars, the Floe jar and the training script, so a changed input gets a new
archive. It fits JVMs whose class path is the Floe jar followed by PySpark's (as ``floe
thriftserver`` and ``floe connect`` set it, and the workers do when given the options); a JVM
with another class path, or any other mismatch, ignores the archive silently (``-Xshare:auto``
with the CDS log off) and starts as it would without it; but one told to read an archive file that
does not exist fails to start, which is why ``ensure`` keeps recent archives of other keys. The
options only make a JVM start faster. ``FLOE_TEST_CDS=off`` turns them off.

Worker scripts read the options from the environment variable ``FLOE_TEST_JAVA_OPTIONS``
(``ENV``), which ``worker_env()`` sets.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from iceberg_runtime import cache_dir

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENV = "FLOE_TEST_JAVA_OPTIONS"
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
TRAINING = Path(__file__).parent / "helpers" / "cds_training.py"
TRAINING_TIMEOUT_S = 300
#: Archives of other keys older than this are removed when a new one is built (``ensure``): longer
#: than a whole test run (``--full --soak`` included), so none is removed while a run may use it.
STALE_AFTER_S = 6 * 3600
#: Reading the archive, and staying silent when it cannot be used.
QUIET = "-Xshare:auto -Xlog:cds=off -Xlog:cds+dynamic=off"
#: The tests' JVMs (the session's and the workers') compile with C1 only: their runs are short, and
#: C2's compiler threads spent more of the two cores than its faster code gave back. Measured on
#: this project's machine: 12 light test modules took 389 s with C2 and 326 s without (6
#: compute-heavy ones: no difference). C1 alone gets a 48 MB code cache instead of 240 MB; Spark's
#: generated classes filled that in the JDBC golden run's Thrift server ("Out of space in
#: CodeCache for adapters" stopped its SparkContext), so the cache keeps the tiered size.
C1_ONLY = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home, "bin", "java")) if home else "java"


def worker_jar() -> str:
    """The Floe jar a worker process puts on its class path: ``floe.jar_path()`` as a new Python
    process in the workers' folder sees it (this process may have imported another ``floe``, or
    had ``FLOE_JAR`` changed, since it started)."""
    done = subprocess.run(
        [sys.executable, "-c", "import floe; print(floe.jar_path())"],
        cwd=TRAINING.parent, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return done.stdout.strip()


def runtime_key(files: Iterable[Path]) -> str:
    """A digest of what an archive depends on: the Java runtime's version, the names, sizes and
    times of PySpark's jars, and the path and bytes of each of ``files`` (jars outside PySpark's
    folder, training scripts)."""
    import pyspark

    digest = hashlib.sha256()
    version = subprocess.run(
        [_java(), "-version"], capture_output=True, text=True, check=True, timeout=60
    )
    digest.update(version.stderr.encode())
    for jar in sorted((Path(pyspark.__file__).parent / "jars").glob("*.jar")):
        stat = jar.stat()
        digest.update(f"{jar} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    for file in files:
        digest.update(f"{file}\n".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def archive_key() -> str:
    """The tests' archive's key: :func:`runtime_key` of the Floe jar (its path is on the archive's
    class path, its classes inside) and the training script."""
    return runtime_key([Path(worker_jar()), TRAINING])


def dump(
    archive: Path, command: list[str], options_env: str, timeout_s: int, options: str = ""
) -> str | None:
    """Runs ``command`` (a training run that starts one Spark JVM with the Java options it finds in
    the environment variable ``options_env``, and waits for that JVM to exit) with ``options`` and
    ``-XX:ArchiveClassesAtExit`` into a temporary file, then renames it to ``archive`` (the JVM
    writes the archive as it exits). Returns None, or why no archive was made (with the end of the
    run's log, kept beside the archive)."""
    partial = archive.with_suffix(f".{os.getpid()}.partial")
    log = archive.with_suffix(".log")
    env = dict(os.environ)
    # Spark splits Java options as a shell would: a cache folder with a space stays one argument
    env[options_env] = f"{options} -XX:ArchiveClassesAtExit={shlex.quote(str(partial))}".strip()
    env[options_env] += " -Xlog:cds=off -Xlog:cds+dynamic=off"
    try:
        with log.open("w") as out:
            training = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
            try:
                status: int | str = training.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(training.pid, signal.SIGKILL)  # its JVM too, before it writes anything
                training.wait()
                status = f"no exit in {timeout_s} s"
        if status != 0 or not partial.is_file():
            tail = log.read_text(errors="replace")[-2000:]
            return f"the training run ended with {status}; see {log}:\n{tail}"
        partial.rename(archive)
        return None
    finally:
        partial.unlink(missing_ok=True)


def stop_and_await_jvm_exit(spark: SparkSession, timeout_s: int = 240) -> int:
    """For a training run: stops ``spark`` and waits for its JVM to exit, which is when the JVM
    writes the archive (it exits when its standard input closes); returns the JVM's exit status.
    Without the wait, the caller could look for the archive before it exists."""
    from pyspark import SparkContext

    jvm_process = SparkContext._gateway.proc  # type: ignore[union-attr]
    spark.stop()
    jvm_process.stdin.close()
    status: int = jvm_process.wait(timeout=timeout_s)
    return status


def ensure(archive: Path, build: Callable[[Path], None]) -> bool:
    """Whether ``archive`` exists, after building it with ``build`` if it did not; under a lock in
    its folder, so that several processes build it once. Archives of the same family (the name up
    to its last '-', e.g. ``spark-<key>.jsa``) made for other keys go first, 150-180 MB each, but
    only those older than ``STALE_AFTER_S``: another run may be starting JVMs on a newer one (a
    second checkout, a jar rebuilt meanwhile), and a JVM told to read an archive that is gone
    does not start at all."""
    folder = archive.parent
    folder.mkdir(parents=True, exist_ok=True)
    family = archive.name.rsplit("-", 1)[0]
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not archive.is_file():
            cutoff = time.time() - STALE_AFTER_S
            for stale in folder.glob(f"{family}-*"):
                if stale.suffix in {".jsa", ".partial", ".log"} and _modified(stale) < cutoff:
                    stale.unlink(missing_ok=True)
            build(archive)
    return archive.is_file()


def _modified(path: Path) -> float:
    """``path``'s modification time; now when it is gone (another process removed it)."""
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return time.time()


def reading_options(archive: Path) -> str:
    """The JVM options that read ``archive`` (and start as usual when it does not fit)."""
    return f"-XX:SharedArchiveFile={shlex.quote(str(archive))} {QUIET}"


def _build(archive: Path) -> None:
    """The training run of the tests' archive; prints why when it makes none."""
    work = archive.parent / f"training-{os.getpid()}"
    try:
        failure = dump(
            archive, [sys.executable, str(TRAINING), str(work)], ENV, TRAINING_TIMEOUT_S, C1_ONLY
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failure is not None:
        print(f"class_data_sharing: no archive ({failure}); workers start without one",
              file=sys.stderr)  # fmt: skip


def turned_off() -> bool:
    """Whether ``FLOE_TEST_CDS`` turns the archive off."""
    return os.environ.get("FLOE_TEST_CDS", "").lower() in {"off", "0", "false"}


def cds_folder() -> Path:
    """Where the archive and its training run's log are kept."""
    return cache_dir() / "cds"


@functools.cache
def worker_java_options() -> str:
    """The JVM options of a worker: ``C1_ONLY``, and those that make it read the archive (building
    it at most once per key) unless the archive is off or could not be built."""
    if turned_off():
        return C1_ONLY
    archive = cds_folder() / f"spark-{archive_key()}.jsa"
    if not ensure(archive, _build):
        return C1_ONLY
    return f"{C1_ONLY} {reading_options(archive)}"


def worker_env() -> dict[str, str]:
    """This process's environment plus ``ENV``, for a worker process that starts a Spark JVM."""
    return {**os.environ, ENV: worker_java_options()}


def with_archive(conf: dict[str, str]) -> dict[str, str]:
    """``conf`` (a server's ``--conf`` settings) with the archive's options added to its
    ``spark.driver.extraJavaOptions``; for the servers ``floe thriftserver`` and ``floe connect``
    start, whose class path (the Floe jar first) is the training run's."""
    options = f"{conf.get(JAVA_OPTIONS, '')} {worker_java_options()}".strip()
    return {**conf, JAVA_OPTIONS: options}


if __name__ == "__main__":
    # scripts/test.sh builds the archive here beside pytest; the first test that needs it waits
    options = worker_java_options()
    print(options if "-XX:SharedArchiveFile" in options else "no class-data-sharing archive")
