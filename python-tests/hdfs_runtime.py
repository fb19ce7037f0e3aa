"""HDFS for tests: Hadoop's MiniDFSCluster (a NameNode and a DataNode) in its own JVM on 127.0.0.1.

The cluster comes from ``hadoop-client-minicluster`` of the Hadoop inside pyspark: one jar holding
the ``hadoop-minicluster`` test artifacts (``MiniDFSCluster``, and ``MiniDFSClusterManager`` from
``hadoop-hdfs``'s tests jar, which starts a cluster from the command line), with its third-party
classes relocated so that it runs on pyspark's own ``hadoop-client-api`` and
``hadoop-client-runtime``. It is fetched once from Maven Central with the Apache Ivy in pyspark's
jars and cached in ~/.cache/floe ($FLOE_CACHE), like the Iceberg runtime (iceberg_runtime.py).
The client side needs nothing more: Spark's ``hadoop-client-api`` has HDFS's client.

``MiniHdfs`` runs the cluster as a child process and stops it by its process id.
``python python-tests/hdfs_runtime.py`` fetches the jar and prints its path.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from iceberg_runtime import cache_dir, fetch_lock, ivy_retrieve
from s3_runtime import HADOOP_VERSION, stop_child

ARTIFACT = "hadoop-client-minicluster"
#: pyspark's jars the cluster's JVM needs besides the minicluster jar (Hadoop's shaded client and
#: the logging jars it calls); nothing else of Spark's is on its class path.
PYSPARK_JARS = (
    "hadoop-client-api-",
    "hadoop-client-runtime-",
    "slf4j-api-",
    "jcl-over-slf4j-",
    "log4j-api-",
    "log4j-core-",
    "log4j-slf4j2-impl-",
)
START_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class MiniClusterJar:
    """The minicluster jar, or (``jar`` None) the reason it is unavailable."""

    jar: Path | None
    problem: str | None = None


def find_minicluster_jar() -> MiniClusterJar:
    """Return the cached or freshly fetched jar; never raises for a failed download."""
    try:
        return MiniClusterJar(minicluster_jar())
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        detail = " ".join(str(e).split())[:400]
        return MiniClusterJar(None, f"cannot download {ARTIFACT} {HADOOP_VERSION} ({detail})")


def minicluster_jar() -> Path:
    """Return the cached jar, fetching it first when it is not cached yet."""
    with fetch_lock():
        return _minicluster_jar()


def _minicluster_jar() -> Path:
    cache = cache_dir()
    jar = cache / f"{ARTIFACT}-{HADOOP_VERSION}.jar"
    if jar.is_file():
        return jar
    resolve = ["-dependency", "org.apache.hadoop", ARTIFACT, HADOOP_VERSION, "-notransitive"]
    done = ivy_retrieve([*resolve, "-types", "jar"], cache)
    if done.returncode != 0 or not jar.is_file():
        raise RuntimeError(f"Cannot fetch {ARTIFACT} {HADOOP_VERSION}:\n{done.stdout}{done.stderr}")
    return jar


def _class_path(jar: Path) -> str:
    import pyspark

    jars_dir = Path(pyspark.__file__).parent / "jars"
    entries = [jar]
    for prefix in PYSPARK_JARS:
        found = sorted(jars_dir.glob(prefix + "[0-9]*.jar"))
        if not found:
            raise FileNotFoundError(f"Cannot find {prefix}*.jar in {jars_dir}")
        entries.append(found[-1])
    return os.pathsep.join(str(e) for e in entries)


def _namenode_port(details: Path) -> int | None:
    try:
        return int(json.loads(details.read_text())["namenode_port"])
    except (OSError, ValueError, KeyError):
        return None  # not written yet, or being written


class MiniHdfs:
    """A MiniDFSCluster (one NameNode, one DataNode) on 127.0.0.1, its files under ``base``.

    ``uri`` is the file system's root (``hdfs://127.0.0.1:<port>``); the cluster's output is kept
    in ``base/cluster.log``.
    """

    def __init__(self, jar: Path, base: Path) -> None:
        base.mkdir(parents=True, exist_ok=True)
        details = base / "details.json"
        self.log = base / "cluster.log"
        java_home = os.environ.get("JAVA_HOME")
        java = str(Path(java_home) / "bin" / "java") if java_home else "java"
        command = [
            java, "-Xmx512m", "-cp", _class_path(jar),
            "org.apache.hadoop.test.MiniDFSClusterManager",
            "-format", "-datanodes", "1", "-writeDetails", str(details),
            "-D", f"hdfs.minidfs.basedir={base / 'data'}",
        ]  # fmt: skip
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=base)
        deadline = time.monotonic() + START_TIMEOUT_S
        # written once the NameNode is up and the DataNode has registered (waitActive)
        while (port := _namenode_port(details)) is None:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"MiniDFSCluster did not start: {self.log.read_text()[-3000:]}")
            time.sleep(0.2)
        self.uri = f"hdfs://127.0.0.1:{port}"

    def stop(self) -> None:
        stop_child(self.process)


if __name__ == "__main__":
    print(minicluster_jar())
