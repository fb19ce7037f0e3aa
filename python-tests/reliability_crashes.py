"""R3's child JVMs: the test-only classes of python-tests/jvm/io/floe/testing, run with ``java``.

No Spark session is involved: the crash runs, the fault run, the kill-9 writers and their oracle
use Floe's format API only, so each JVM starts in well under a second with a class path of Floe's
jar, the compiled test classes and the few jars the format layer needs.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from jvm_support import floe_jar, support_classpath

#: The jars io.floe.format needs at run time (spark-extension/format/build.gradle), by name prefix.
FORMAT_JARS = (
    "avro-1", "jackson-core-", "jackson-databind-", "jackson-annotations-", "RoaringBitmap-",
    "datasketches-java-", "datasketches-memory-", "zstd-jni-", "lz4-java-", "slf4j-api-",
    "commons-compress-", "commons-io-",
)  # fmt: skip
#: Short-lived JVMs: start fast rather than run fast.
JVM_FLAGS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-Duser.timezone=UTC")
_RUN = re.compile(r"RUN (\S+) (\S+) (\S+) landed=(\d) orphans=(\d+) violations=(\d+)")


def java_command(main: str, *args: str) -> list[str]:
    """The command line running ``io.floe.testing.<main>`` with ``args``."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    needed = sorted(str(j) for j in jars.iterdir() if j.name.startswith(FORMAT_JARS))
    class_path = os.pathsep.join([str(support_classpath()), str(floe_jar()), *needed])
    java = Path(os.environ["JAVA_HOME"], "bin", "java") if "JAVA_HOME" in os.environ else "java"
    return [str(java), *JVM_FLAGS, "-cp", class_path, f"io.floe.testing.{main}", *args]


def run_java(main: str, *args: str, timeout_s: float) -> str:
    """Runs ``main`` to completion; returns its standard output (failing on a non-zero status)."""
    done = subprocess.run(
        java_command(main, *args), capture_output=True, text=True, timeout=timeout_s, check=False
    )
    assert done.returncode == 0, f"{main} failed ({done.returncode}): {done.stderr[-3000:]}"
    return done.stdout


@dataclass
class CrashRuns:
    """The ``RUN`` lines of CrashMatrix: runs, landed-unacknowledged ones, orphans, violations."""

    runs: list[tuple[str, str, str]] = field(default_factory=list)
    landed_unacked: int = 0
    orphans: int = 0
    violations: list[str] = field(default_factory=list)


def parse_runs(output: str) -> CrashRuns:
    parsed = CrashRuns()
    for line in output.splitlines():
        if m := _RUN.match(line):
            parsed.runs.append((m.group(1), m.group(2), m.group(3)))
            parsed.landed_unacked += int(m.group(4))
            parsed.orphans += int(m.group(5))
        elif line.startswith("VIOLATION"):
            parsed.violations.append(line)
    return parsed


def parse_summary(output: str) -> tuple[dict[str, int], list[str]]:
    """The ``SUMMARY key=value ...`` figures and the ``VIOLATION`` lines of a run."""
    figures: dict[str, int] = {}
    violations = []
    for line in output.splitlines():
        if line.startswith("SUMMARY "):
            for item in line.split()[1:]:
                key, value = item.split("=")
                figures[key] = int(value)
        elif line.startswith("VIOLATION"):
            violations.append(line)
    return figures, violations
