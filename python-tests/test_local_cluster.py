"""Floe on real executors: Spark's ``local-cluster[2,1,1024]`` master runs two executors in JVMs
of their own, as a cluster does, so every object shipped to them is serialized and nothing a task
uses can come from driver-side static state.

local_cluster_run.py runs every scenario in one process of its own (this process's JVM already
holds the shared ``local[2]`` context); each test here checks one scenario's results against what
the rows must be.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from class_data_sharing import worker_env

RUNNER = Path(__file__).resolve().parent / "local_cluster_run.py"
TIMEOUT_SECONDS = 300


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("local_cluster")
    out = work / "results.json"
    log = work / "runner.log"
    with log.open("w") as sink:
        done = subprocess.run(
            [sys.executable, str(RUNNER), str(work / "warehouse"), str(work), str(out)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=worker_env(),
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    if not out.exists() or done.returncode != 0:
        tail = log.read_text(errors="replace")[-4000:]
        pytest.fail(f"local-cluster runner exited with {done.returncode}:\n{tail}")
    loaded: dict[str, Any] = json.loads(out.read_text())
    return loaded


def scenario(results: dict[str, Any], name: str) -> Any:
    entry = results[name]
    assert "error" not in entry, f"{name} failed on local-cluster:\n{entry.get('error')}"
    return entry["value"]


def test_tasks_run_in_two_executor_jvms(results: dict[str, Any]) -> None:
    value = scenario(results, "executors")
    assert value["block_managers"] == 3  # the driver and two executors
    assert len(value["task_jvms"]) == 2 and value["driver_jvm"] not in value["task_jvms"], value


def test_partitioned_writes_from_several_tasks(results: dict[str, Any]) -> None:
    value = scenario(results, "writes")
    assert value["count_sum"] == [4100, sum(range(4100))]
    assert value["partitions"] == [[0, 1000], [1, 1000], [2, 1000], [3, 1000], [9, 100]]
    assert value["data_files"] >= 5


KEPT = [i for i in range(2000) if i % 5 != 0]


@pytest.mark.parametrize(("version", "file_format"), [(2, "PARQUET"), (3, "PUFFIN")])
def test_reads_apply_position_deletes_and_deletion_vectors(
    results: dict[str, Any], version: int, file_format: str
) -> None:
    value = scenario(results, f"deletes_v{version}")
    assert value["count_sum"] == [len(KEPT), sum(KEPT)]
    assert value["delete_files"] == [[1, 2]]  # position deletes (v2) or deletion vectors (v3)
    assert value["file_formats"] == [[file_format]]


def test_change_feed_reads_deletion_vectors(results: dict[str, Any]) -> None:
    deleted = [i for i in range(2000) if i % 5 == 0]
    assert scenario(results, "change_feed")["changes"] == [
        ["DELETE", len(deleted), sum(deleted)],
        ["INSERT", 2000, sum(range(2000))],
    ]


def expected_row_level() -> list[list[Any]]:
    table = {i: "a" for i in range(1000)}
    table.update({i: "u" for i in table if i % 3 == 0})
    table = {i: v for i, v in table.items() if i < 900}
    for i in range(850, 1100):
        if i in table and i % 2 == 0:
            del table[i]
        else:
            table[i] = "m"
    groups: dict[str, list[int]] = {}
    for i, v in table.items():
        groups.setdefault(v, []).append(i)
    return [[v, len(ids), sum(ids)] for v, ids in sorted(groups.items())]


@pytest.mark.parametrize("mode", ["merge-on-read", "copy-on-write"])
def test_update_delete_and_merge(results: dict[str, Any], mode: str) -> None:
    assert scenario(results, "row_level")[mode] == expected_row_level()


def test_analyze_and_compute_table_stats(results: dict[str, Any]) -> None:
    value = scenario(results, "analyze")
    assert ["distinct_count", "5"] in value["describe_p"], value["describe_p"]
    assert value["procedure_rows"] == 1


def test_rewrite_data_files_keeps_rows_and_drops_deletes(results: dict[str, Any]) -> None:
    value = scenario(results, "compaction")
    assert value["before"] == value["after"] == [len(KEPT), sum(KEPT)]
    assert value["rewritten"] >= 2 and value["delete_files"] == 0


def test_create_index_and_indexed_query(results: dict[str, Any]) -> None:
    value = scenario(results, "index")
    assert value["indexes"] == [["by_s", None]]
    assert value["hit"] == [[1234, 2]] and value["miss"] == 0


def test_streaming_append_of_one_micro_batch(results: dict[str, Any]) -> None:
    assert scenario(results, "streaming")["count_sum"] == [4100, sum(range(4100))]
