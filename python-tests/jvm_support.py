"""Test-only JVM classes (python-tests/jvm/**/*.java, package ``io.floe.testing``), compiled once.

Reliability tests need Java code that is not part of the product: a FileIO that fails or halts at
a named point, a publisher that checks then renames (the negative control), barriers. The sources
live under python-tests/jvm and are compiled with ``javac --release 17`` against Floe's jar and
pyspark's jars into a cache folder keyed by the sources' and the jar's hash, so a run compiles
them at most once. ``support_classpath()`` returns that folder, to put on a JVM's class path
(``spark.driver.extraClassPath`` or a gateway's ``--driver-class-path``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from iceberg_runtime import fetch_lock

SOURCES = Path(__file__).parent / "jvm"
CACHE = Path(os.environ.get("FLOE_CACHE", Path.home() / ".cache" / "floe")) / "jvm-support"


def floe_jar() -> Path:
    """The Floe jar under test: FLOE_JAR, else the one bundled in the installed shim."""
    if "FLOE_JAR" in os.environ:
        return Path(os.environ["FLOE_JAR"])
    import floe

    return Path(floe.jar_path())


def support_classpath() -> Path:
    """The folder of compiled test-only classes (compiling them first when they changed)."""
    jar = floe_jar()
    sources = sorted(SOURCES.rglob("*.java"))
    digest = hashlib.sha256(jar.read_bytes())
    for source in sources:
        digest.update(str(source.relative_to(SOURCES)).encode())
        digest.update(source.read_bytes())
    into = CACHE / digest.hexdigest()[:16]
    with fetch_lock():  # another pytest worker may be compiling them into the same folder
        return _compile(into, jar, sources)


def _compile(into: Path, jar: Path, sources: list[Path]) -> Path:
    import pyspark

    if (into / ".complete").exists():
        return into
    into.mkdir(parents=True, exist_ok=True)
    jars = Path(pyspark.__file__).parent / "jars"
    javac = Path(os.environ["JAVA_HOME"], "bin", "javac") if "JAVA_HOME" in os.environ else "javac"
    if sources:
        subprocess.run(
            [str(javac), "--release", "17", "-nowarn", "-d", str(into),
             "-cp", f"{jar}{os.pathsep}{jars}/*", *map(str, sources)],
            check=True,
        )  # fmt: skip
    (into / ".complete").touch()
    return into
