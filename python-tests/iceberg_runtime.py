"""The Apache Iceberg Spark runtime jar for interop tests, cached in ~/.cache/floe ($FLOE_CACHE).

Fetched once with the Apache Ivy that ships in pyspark's jars (its default resolver is Maven
Central). ``python python-tests/iceberg_runtime.py`` fetches it and prints its path. Tests use
``find_iceberg_runtime()``, which reports a failed download instead of raising, so that the
interop tests skip (saying why) and every other test still runs; with ``CI=true`` they fail
(conftest.require_iceberg_runtime).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

GROUP = "org.apache.iceberg"
ARTIFACT = "iceberg-spark-runtime-4.1_2.13"
VERSION = os.environ.get("FLOE_ICEBERG_VERSION", "1.11.0")
#: Longest wait for Ivy, so that a network that drops packets cannot hang the test run.
FETCH_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class IcebergRuntime:
    """The runtime jar, or (``jar`` None) the reason it is unavailable."""

    jar: Path | None
    problem: str | None = None


def find_iceberg_runtime() -> IcebergRuntime:
    """Return the cached or freshly fetched jar; never raises for a failed download."""
    try:
        return IcebergRuntime(iceberg_runtime_jar())
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        detail = " ".join(str(e).split())
        if len(detail) > 400:
            detail = detail[:400] + " ..."
        return IcebergRuntime(
            None, f"cannot download {GROUP}:{ARTIFACT}:{VERSION} from Maven Central ({detail})"
        )


def cache_dir() -> Path:
    return Path(os.environ.get("FLOE_CACHE", Path.home() / ".cache" / "floe"))


@contextmanager
def fetch_lock() -> Iterator[None]:
    """Held while a test jar (or jvm_support's compiled classes) is looked up in the cache and
    made there: pytest's workers (``-n 2``) may want the same one at once, and one must not use
    files the other is still writing, nor fetch into the same Ivy cache beside it."""
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".fetch.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def iceberg_runtime_jar() -> Path:
    """Return the cached runtime jar, fetching it first when it is not cached yet."""
    with fetch_lock():
        return _iceberg_runtime_jar()


def _iceberg_runtime_jar() -> Path:
    cache = cache_dir()
    jar = cache / f"{ARTIFACT}-{VERSION}.jar"
    if jar.is_file():
        return jar
    done = ivy_retrieve(
        ["-dependency", GROUP, ARTIFACT, VERSION, "-notransitive", "-types", "jar"], cache
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"Cannot fetch {GROUP}:{ARTIFACT}:{VERSION}:\n{done.stdout}{done.stderr}"
        )
    if not jar.is_file():
        raise FileNotFoundError(f"Fetching {GROUP}:{ARTIFACT}:{VERSION} did not produce {jar}")
    return jar


def ivy_retrieve(arguments: list[str], into: Path) -> subprocess.CompletedProcess[str]:
    """Run the Apache Ivy in pyspark's jars with ``arguments`` (what to resolve), retrieving the
    jars into ``into`` as ``[artifact]-[revision].[ext]``; its download cache is removed after."""
    import pyspark

    ivy = sorted((Path(pyspark.__file__).parent / "jars").glob("ivy-*.jar"))
    if not ivy:
        raise FileNotFoundError("Cannot find Apache Ivy in pyspark's jars to fetch test jars")
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java" if "JAVA_HOME" in os.environ else "java"
    ivy_cache = into / "ivy-cache"
    command = [
        str(java), "-cp", str(ivy[-1]), "org.apache.ivy.Main", *arguments, "-warn",
        "-cache", str(ivy_cache), "-retrieve", f"{into}/[artifact]-[revision].[ext]",
    ]  # fmt: skip
    try:
        return subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=FETCH_TIMEOUT_SECONDS
        )
    finally:
        shutil.rmtree(ivy_cache, ignore_errors=True)


if __name__ == "__main__":
    print(iceberg_runtime_jar())
