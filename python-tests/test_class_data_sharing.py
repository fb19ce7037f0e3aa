"""The tests' class-data-sharing archive fits the JVMs it is meant for (class_data_sharing.py).

The workers and servers read the archive with ``-Xshare:auto``, which ignores an archive that does
not fit without a word; so a change to their class path would only make the suite slower. Here a
worker-shaped session starts with ``-Xshare:on`` instead, which refuses to start without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import class_data_sharing
import pytest

HELPERS = Path(__file__).parent / "helpers"
SESSION = """
import sys
import floe
from worker_conf import class_data_sharing_conf
options = sys.argv[2]
spark = floe.session(sys.argv[1], master="local[1]", conf={
    "spark.ui.enabled": "false", "spark.driver.extraJavaOptions": options,
} | class_data_sharing_conf())
print("ROWS", spark.sql("SELECT 40 + 2 AS answer").collect())
"""


def required_options() -> str:
    """The archive's options with -Xshare:on; skips when FLOE_TEST_CDS turns the archive off."""
    if class_data_sharing.turned_off():
        pytest.skip("FLOE_TEST_CDS turns the archive off")  # CI leaves it on
    options = class_data_sharing.worker_java_options()
    folder = class_data_sharing.cds_folder()
    assert "-XX:SharedArchiveFile" in options, f"the archive could not be built: see {folder}/*.log"
    required = options.replace("-Xshare:auto", "-Xshare:on")
    assert required != options
    return required


def test_a_worker_session_maps_the_archive(tmp_path: Path) -> None:
    required = required_options()
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(tmp_path / "warehouse"), required],
        cwd=HELPERS, env=class_data_sharing.worker_env(), capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "ROWS [Row(answer=42)]" in done.stdout, done.stderr[-3000:]


def test_a_jvm_with_another_class_path_refuses_the_required_archive(tmp_path: Path) -> None:
    """The control: -Xshare:on does fail a JVM the archive does not fit (here, a class path that
    does not start with the Floe jar), so the test above can fail."""
    required = required_options()
    env = {k: v for k, v in class_data_sharing.worker_env().items() if k != class_data_sharing.ENV}
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(tmp_path / "warehouse"), required],
        cwd=HELPERS, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode != 0 and "ROWS" not in done.stdout


def test_building_an_archive_removes_only_old_archives_of_other_keys(tmp_path: Path) -> None:
    """A newer archive of another key may be what another run's JVMs are starting from (a JVM told
    to read a missing archive does not start), so only those older than STALE_AFTER_S go."""
    old = tmp_path / "spark-0000000000000001.jsa"
    old_log = tmp_path / "spark-0000000000000001.log"
    recent = tmp_path / "spark-0000000000000002.jsa"
    other_family = tmp_path / "iceberg-0000000000000003.jsa"
    for path in (old, old_log, recent, other_family):
        path.write_bytes(b"archive")
    long_ago = time.time() - class_data_sharing.STALE_AFTER_S - 60
    for path in (old, old_log, other_family):
        os.utime(path, (long_ago, long_ago))
    built: list[Path] = []

    def build(archive: Path) -> None:
        built.append(archive)
        archive.write_bytes(b"new")

    wanted = tmp_path / "spark-0000000000000004.jsa"
    assert class_data_sharing.ensure(wanted, build)
    assert built == [wanted]
    assert not old.exists() and not old_log.exists()
    assert recent.exists() and other_family.exists()
    assert class_data_sharing.ensure(wanted, build) and built == [wanted]  # built once
