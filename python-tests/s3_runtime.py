"""S3 for tests: Hadoop's S3A connector with the AWS SDK modules it needs, and a moto S3 server.

The jars (``hadoop-aws`` of the Hadoop inside pyspark, and the AWS SDK v2 modules ``s3`` and
``s3-transfer-manager`` with their dependencies, not the 500 MB ``bundle`` that ``hadoop-aws``
declares) are fetched once from Maven Central with the Apache Ivy in pyspark's jars and cached in
~/.cache/floe ($FLOE_CACHE), like the Iceberg runtime (iceberg_runtime.py). They are test-only:
Floe adds no jar to Spark, users bring ``hadoop-aws`` as for any S3 use of Spark.

``MotoS3`` runs ``moto.server`` (pip ``moto[server]``) as a child process bound to 127.0.0.1 and
stops it by its process id. ``python python-tests/s3_runtime.py`` fetches the jars and prints them.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iceberg_runtime import cache_dir, fetch_lock, ivy_retrieve

HADOOP_VERSION = "3.4.2"
#: The AWS SDK v2 version hadoop-aws 3.4.2 is built with (hadoop-project's aws-java-sdk-v2.version).
AWS_SDK_VERSION = "2.29.52"
SDK_MODULES = ("s3", "s3-transfer-manager")
#: Left out: Spark ships its own netty, httpclient, commons-codec and logging jars.
EXCLUDED_ORGS = (
    "io.netty",
    "org.slf4j",
    "commons-logging",
    "commons-codec",
    "org.apache.httpcomponents",
)
REGION = "us-east-1"
ACCESS_KEY = "floe-test"
SECRET_KEY = "floe-test-secret"


@dataclass(frozen=True)
class S3Jars:
    """The S3A jars, or (``jars`` empty) the reason they are unavailable."""

    jars: tuple[Path, ...]
    problem: str | None = None


def find_s3_jars() -> S3Jars:
    """Return the cached or freshly fetched jars; never raises for a failed download."""
    try:
        return S3Jars(tuple(s3_jars()))
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        detail = " ".join(str(e).split())[:400]
        return S3Jars((), f"cannot download hadoop-aws {HADOOP_VERSION} and the AWS SDK ({detail})")


def _ivy_xml() -> str:
    deps = [
        f'<dependency org="org.apache.hadoop" name="hadoop-aws" rev="{HADOOP_VERSION}"'
        ' transitive="false" conf="default->master"/>'
    ]
    deps += [
        f'<dependency org="software.amazon.awssdk" name="{m}" rev="{AWS_SDK_VERSION}"'
        ' conf="default->master,runtime"/>'
        for m in SDK_MODULES
    ]
    excludes = [f'<exclude org="{org}"/>' for org in EXCLUDED_ORGS]
    return (
        '<ivy-module version="2.0"><info organisation="io.floe" module="s3-test-jars"/>'
        '<configurations><conf name="default"/></configurations><dependencies>'
        + "".join(deps + excludes)
        + "</dependencies></ivy-module>"
    )


def s3_jars() -> list[Path]:
    """Return the cached jars, fetching them first when they are not cached yet."""
    with fetch_lock():
        return _s3_jars()


def _s3_jars() -> list[Path]:
    target = cache_dir() / f"s3a-{HADOOP_VERSION}-sdk-{AWS_SDK_VERSION}"
    done_marker = target / ".complete"
    if done_marker.is_file():
        return sorted(target.glob("*.jar"))
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    ivy_file = target / "ivy.xml"
    ivy_file.write_text(_ivy_xml())
    resolve = ["-ivy", str(ivy_file), "-confs", "default", "-types", "jar", "bundle"]
    done = ivy_retrieve(resolve, target)
    ivy_file.unlink()
    jars = sorted(target.glob("*.jar"))
    if done.returncode != 0 or not any(j.name.startswith("hadoop-aws-") for j in jars):
        raise RuntimeError(f"Cannot fetch hadoop-aws and the AWS SDK:\n{done.stdout}{done.stderr}")
    done_marker.write_text("\n".join(j.name for j in jars))
    return jars


def hadoop_s3a_conf(endpoint: str) -> dict[str, str]:
    """Hadoop settings (without ``spark.hadoop.``) that point S3A at ``endpoint``."""
    return {
        "fs.s3a.endpoint": endpoint,
        "fs.s3a.endpoint.region": REGION,
        "fs.s3a.path.style.access": "true",
        "fs.s3a.connection.ssl.enabled": "false",
        "fs.s3a.access.key": ACCESS_KEY,
        "fs.s3a.secret.key": SECRET_KEY,
        "fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        # fail fast against a local server instead of retrying for minutes
        "fs.s3a.attempts.maximum": "3",
        "fs.s3a.retry.limit": "3",
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MotoS3:
    """A moto S3 server on 127.0.0.1 in a child process; its request log is kept in ``log``."""

    def __init__(self, log: Path) -> None:
        self.port = _free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.endpoint + "/", timeout=2).close()
                return
            except OSError as e:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"moto server did not start: {log.read_text()[-2000:]}"
                    ) from e
                time.sleep(0.2)

    def client(self) -> Any:
        """A boto3 client for this server (boto3 comes with moto), for checks made outside Floe."""
        import boto3  # type: ignore[import-not-found,import-untyped,unused-ignore]

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )

    def create_bucket(self, bucket: str) -> None:
        self.client().create_bucket(Bucket=bucket)

    def get(self, bucket: str, key: str) -> bytes:
        data: bytes = self.client().get_object(Bucket=bucket, Key=key)["Body"].read()
        return data

    def put(self, bucket: str, key: str, data: bytes) -> None:
        self.client().put_object(Bucket=bucket, Key=key, Body=data)

    def list_keys(self, bucket: str, prefix: str) -> list[str]:
        """Every key under ``prefix``."""
        pages = (
            self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
        )
        return [o["Key"] for page in pages for o in page.get("Contents", [])]

    def requests_since(self, offset: int) -> list[str]:
        """The request lines ("PUT /bucket/key") the server logged after byte ``offset``."""
        self._log_file.flush()
        text = self.log.read_bytes()[offset:].decode(errors="replace")
        out = []
        for line in text.splitlines():
            if '"' in line and " HTTP/" in line:
                request = re.sub(r"\x1b\[[0-9;]*m", "", line).split('"')[1]
                out.append(request.rsplit(" HTTP/", 1)[0])
        return out

    def log_offset(self) -> int:
        self._log_file.flush()
        return self.log.stat().st_size

    def stop(self) -> None:
        stop_child(self.process)
        self._log_file.close()


def stop_child(process: subprocess.Popen[Any]) -> None:
    """Stop a server this test run started, by its process id: SIGTERM, then SIGKILL after 20 s."""
    if process.poll() is None:
        os.kill(process.pid, 15)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, 9)
            process.wait(timeout=20)


if __name__ == "__main__":
    for jar in s3_jars():
        print(jar)
