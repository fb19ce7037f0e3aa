"""The benchmark suite's class-data-sharing archives (bench/suite_cds.py): one per engine, built
once per key by a training run, read by that engine's JVMs.

The suite's JVMs read an archive with ``-Xshare:auto``, which ignores one that does not fit without
a word, so a mistake would only make the suite slower. Here a session shaped like the suite's
workers starts with ``-Xshare:on`` instead, which refuses to start without the archive. Plain
Spark's engine keeps it cheap: its archive needs no jar beyond PySpark's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import suite_cds  # noqa: E402
import suite_report  # noqa: E402

WORKER = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from suite_engines import session
spark = session("parquet", Path(sys.argv[2]), extra_conf={
    "spark.driver.extraJavaOptions": sys.argv[3],
} | ({"spark.driver.extraClassPath": sys.argv[4]} if len(sys.argv) > 4 else {}))
print("ROWS", spark.sql("SELECT 40 + 2 AS answer").collect())
"""


def start_worker(tmp_path: Path, options: str, *jars: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WORKER, str(BENCH), str(tmp_path / "work"), options, *jars],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def parquet_archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """Plain Spark's archive in an empty cache folder: the options and states of two calls."""
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("FLOE_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("FLOE_BENCH_CDS", raising=False)
    try:
        options, first = suite_cds.java_options("parquet")
        again, second = suite_cds.java_options("parquet")
    finally:
        monkeypatch.undo()
    assert options == again
    return options, first, second


def test_an_engine_archive_is_built_once_then_reused(parquet_archive: tuple[str, str, str]) -> None:
    options, first, second = parquet_archive
    assert first.startswith("built in "), first
    assert second == "reused"
    (path,) = [o.split("=", 1)[1] for o in options.split() if o.startswith("-XX:SharedArchiveFile")]
    archive = Path(path)
    assert archive.name.startswith("parquet-") and archive.stat().st_size > 10_000_000
    assert "-Xshare:auto" in options


def test_a_suite_worker_session_maps_its_engines_archive(
    parquet_archive: tuple[str, str, str], tmp_path: Path
) -> None:
    required = parquet_archive[0].replace("-Xshare:auto", "-Xshare:on")
    done = start_worker(tmp_path, required)
    assert done.returncode == 0 and "ROWS [Row(answer=42)]" in done.stdout, done.stderr[-3000:]


def test_a_jvm_with_another_class_path_refuses_the_required_archive(
    parquet_archive: tuple[str, str, str], tmp_path: Path
) -> None:
    """The control: -Xshare:on does fail a JVM the archive does not fit (here, one more jar first
    on its class path), so the test above can fail."""
    import floe

    required = parquet_archive[0].replace("-Xshare:auto", "-Xshare:on")
    done = start_worker(tmp_path, required, floe.jar_path())
    assert done.returncode != 0 and "ROWS" not in done.stdout
    assert "shared class paths mismatch" in done.stderr, done.stderr[-3000:]


def test_archives_can_be_turned_off_and_the_report_says_which_were_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FLOE_BENCH_CDS", "off")
    assert suite_cds.java_options("floe") == ("", "off")
    raw = {"runs": {}, "errors": {}, "engines": ["parquet", "floe"], "quick": False,
           "warmups": 1, "reps": 5, "total_seconds": 60.0, "shared_jvm": False,
           "class_data_sharing": {"parquet": "reused", "floe": "built in 35 s"}}  # fmt: skip
    text = suite_report.markdown(raw, [])
    assert (
        "Class-data-sharing archives (JVM start only; bench/suite_cds.py): parquet reused; "
        "floe built in 35 s." in text
    )
    raw["class_data_sharing"] = {}
    assert "Class-data-sharing archives: off" in suite_report.markdown(raw, [])


def test_iceberg_configurations_share_an_archive() -> None:
    assert suite_cds.family("iceberg-default") == suite_cds.family("iceberg-best") == "iceberg"
    assert suite_cds.family("delta") == "delta" and suite_cds.family("floe") == "floe"


def test_an_engine_whose_jars_cannot_be_had_runs_without_an_archive(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The archive only makes JVMs start faster: a failed fetch is left to the engine's worker,
    which reports it, instead of stopping the whole suite before it starts."""
    monkeypatch.delenv("FLOE_BENCH_CDS", raising=False)

    def unreachable(engine: str) -> list[Path]:
        raise RuntimeError(f"cannot fetch the jars of {engine}")

    monkeypatch.setattr(suite_cds, "engine_jars", unreachable)
    assert suite_cds.java_options("delta") == ("", "none (RuntimeError)")
    error = capsys.readouterr().err
    assert "delta starts without an archive: cannot fetch the jars of delta" in error


def test_a_training_run_that_fails_leaves_no_archive_and_says_why(tmp_path: Path) -> None:
    import class_data_sharing

    archive = tmp_path / "x-0123.jsa"
    script = "import sys; print('training output'); sys.exit(3)"
    failure = class_data_sharing.dump(archive, [sys.executable, "-c", script], "UNUSED_ENV", 60)
    assert failure is not None and failure.startswith("the training run ended with 3; see ")
    assert "training output" in failure
    assert not archive.exists() and not list(tmp_path.glob("*.partial"))
