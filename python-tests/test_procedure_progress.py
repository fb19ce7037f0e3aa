"""Long procedures log one line per phase with counts (logger ``io.floe.progress``), and `floe sql`
shows those lines on stderr while a statement runs. See docs/progress.md."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOGGER = "io.floe.progress"
_ELAPSED = re.compile(r" in \d+\.\d s$")


class ProgressLines:
    """The lines logged to ``io.floe.progress`` in this session's JVM (a log4j2 appender)."""

    def __init__(self, spark: SparkSession) -> None:
        jvm: Any = spark._jvm
        log4j = jvm.org.apache.logging.log4j
        self._writer = jvm.java.io.StringWriter()
        layout = log4j.core.layout.PatternLayout.newBuilder().withPattern("%m%n").build()
        self._appender = log4j.core.appender.WriterAppender.createAppender(
            layout, None, self._writer, "floe-progress-test", False, True
        )
        self._appender.start()
        self._logger = log4j.LogManager.getContext(False).getLogger(LOGGER)
        self._level = self._logger.getLevel()
        log4j.core.config.Configurator.setLevel(LOGGER, log4j.Level.INFO)
        self._logger.addAppender(self._appender)
        self._log4j = log4j

    def take(self) -> list[str]:
        """The lines logged since the last call."""
        text = str(self._writer.toString())
        self._writer.getBuffer().setLength(0)
        return text.splitlines()

    def close(self) -> None:
        self._logger.removeAppender(self._appender)
        self._log4j.core.config.Configurator.setLevel(LOGGER, self._level)
        self._appender.stop()


@pytest.fixture
def progress(spark: SparkSession) -> Iterator[ProgressLines]:
    lines = ProgressLines(spark)
    try:
        yield lines
    finally:
        lines.close()


def _phases(lines: list[str], operation: str) -> list[str]:
    """What each line of ``operation`` says, without the prefix and the elapsed time."""
    out = []
    for line in lines:
        if line.startswith(f"{operation}: "):
            assert _ELAPSED.search(line), line
            out.append(_ELAPSED.sub("", line[len(operation) + 2 :]))
    return out


def test_long_procedures_log_one_line_per_phase_with_counts(
    spark: SparkSession, namespace: str, progress: ProgressLines
) -> None:
    table = f"floe.{namespace}.t"
    spark.sql(f"CREATE TABLE {table} (id BIGINT, s STRING) USING floe")
    for i in range(3):
        spark.sql(f"INSERT INTO {table} VALUES ({i}, 's{i}'), ({i + 10}, 't{i}')")
    sizes = [r[0] for r in spark.sql(f"SELECT file_size_in_bytes FROM {table}.files").collect()]
    files = len(sizes)
    progress.take()

    out = spark.sql(
        f"CALL floe.system.rewrite_data_files(table => '{namespace}.t', "
        "options => map('min-input-files', '2'))"
    ).collect()[0]
    assert (out.rewritten_data_files_count, out.added_data_files_count) == (files, 1)
    assert _phases(progress.take(), f"rewrite_data_files {table}") == [
        f"planned 1 file groups: {files} of {files} candidate files, {sum(sizes)} bytes to rewrite "
        "(binpack)",
        "rewrote 1 file groups into 1 files",
        f"committed {files} rewritten and 1 added data files, 0 delete files removed, "
        "0 files failed",
    ]

    spark.sql(f"ANALYZE TABLE {table} COMPUTE STATISTICS FOR ALL COLUMNS")
    stats = _phases(progress.take(), f"compute_table_stats {table}")
    snapshot = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots ORDER BY committed_at DESC")
    current = snapshot.first()[0]  # type: ignore[index]
    assert len(stats) == 2, stats
    assert re.fullmatch(rf"sketched 2 columns of snapshot {current} \(full scan\) into \d+ bytes",
                        stats[0]), stats  # fmt: skip
    assert stats[1].startswith("committed statistics file ") and stats[1].endswith(".stats"), stats

    spark.sql(f"CREATE INDEX by_s ON {table} USING btree (s)")
    index = spark.sql(f"SELECT segments, size_in_bytes FROM {table}.indexes").first()
    assert index is not None
    assert _phases(progress.take(), f"create_index by_s {table}") == [
        f"planned 1 data files of snapshot {current} to index (btree on s)",
        f"built {index.segments} segments: 6 keys, {index.size_in_bytes} bytes",
        f"committed the index list with {index.segments} segments",
    ]

    snapshots = spark.sql(f"SELECT * FROM {table}.snapshots").count()
    out = spark.sql(
        f"CALL floe.system.expire_snapshots(table => '{namespace}.t', "
        "older_than => current_timestamp(), retain_last => 1)"
    ).collect()[0]
    deleted = sum(out[i] for i in range(6))
    assert out.deleted_data_files_count == files and deleted > files
    expire = _phases(progress.take(), f"expire_snapshots {table}")
    assert expire[:2] == [
        f"planned {snapshots - 1} snapshots to expire, {deleted} files to delete",
        "committed",
    ], expire
    assert expire[2] == (
        f"deleted {deleted} of {deleted} files ({files} data, 0 position delete, "
        "0 equality delete, "
        f"{out.deleted_manifest_files_count} manifests, "
        f"{out.deleted_manifest_lists_count} manifest lists, "
        f"{out.deleted_statistics_files_count} statistics; 0 failed)"
    ), expire
    assert re.fullmatch(r"deleted \d+ unreferenced index files", expire[3]), expire
    assert len(expire) == 4


def test_floe_sql_shows_the_phase_lines_on_stderr(tmp_path: Path) -> None:
    warehouse = tmp_path / "warehouse"
    statements = ";\n".join(
        [
            "CREATE NAMESPACE db",
            "CREATE TABLE db.t (id BIGINT) USING floe",
            "INSERT INTO db.t VALUES (1)",
            "INSERT INTO db.t VALUES (2)",
            "CALL floe.system.rewrite_data_files(table => 'db.t', "
            "options => map('min-input-files', '2'))",
            "SELECT count(*) FROM db.t",
        ]
    )
    done = subprocess.run(
        [sys.executable, "-m", "floe.cli", "sql", "--warehouse", str(warehouse),
         "--conf", "spark.ui.enabled=false", "-e", statements],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    progress = [line for line in done.stderr.splitlines() if " floe: rewrite_data_files " in line]
    assert len(progress) == 3, done.stderr[-3000:]
    assert [re.sub(r"^\d\d:\d\d:\d\d floe: ", "", _ELAPSED.sub("", line)) for line in progress] == [
        "rewrite_data_files floe.db.t: planned 1 file groups: 2 of 2 candidate files, "
        + progress[0].split("candidate files, ")[1].split(" bytes")[0]
        + " bytes to rewrite (binpack)",
        "rewrite_data_files floe.db.t: rewrote 1 file groups into 1 files",
        "rewrite_data_files floe.db.t: committed 2 rewritten and 1 added data files, "
        "0 delete files removed, 0 files failed",
    ], done.stderr[-3000:]
    assert done.stdout.split()[-1] == "2"
    # Spark's own INFO lines stay hidden, as in spark-sql without Floe
    assert not any(" INFO " in line for line in done.stderr.splitlines()), done.stderr[-3000:]
