#!/usr/bin/env bash
# The README's second command: all tests. Rebuilds and reinstalls Floe from the checkout first
# (cheap when nothing changed), then runs pytest, which includes the SQL golden files through a
# Spark session, the Thrift JDBC server and Spark Connect, with JUnit and the linters beside it.
# Non-zero on failure.
#   --full   run the stress tests at the scale their goals name (FLOE_TEST_SCALE=full: R1's 2,000
#            commits, 20 stream kills, 500 hostile names, 200 commits on S3 and HDFS); about 10
#            minutes more. Without it they run smaller counts of the same races (CI's setting).
#   --soak   also run the 5-minute reliability soak (R7).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pytest_args=()
for arg in "$@"; do
  case "$arg" in
    --full) export FLOE_TEST_SCALE=full ;;
    --soak) pytest_args+=(--soak) ;;
    *) echo "usage: scripts/test.sh [--full] [--soak]" >&2; exit 2 ;;
  esac
done
# Two pytest workers (pytest-xdist), each with its own Spark session, and each test module whole on
# one of them (--dist loadfile: a module's fixtures, tables and servers stay in one process). One
# worker left a third of the two cores idle while it waited on JVM starts, servers and its own
# Spark jobs: measured on this project's machine, four modules took 179 s with one worker (1.22
# cores busy) and 118 s with two (1.73 busy). FLOE_TEST_WORKERS sets another count (0: the tests
# run in pytest's own process, as without xdist).
workers="${FLOE_TEST_WORKERS:-2}"
if ! [[ "$workers" =~ ^[0-9]{1,2}$ ]]; then
  echo "FLOE_TEST_WORKERS must be a number of pytest workers from 0 to 99, not '$workers'" >&2
  exit 2
fi
source scripts/lib.sh

[ -x "$FLOE_PY" ] || { echo "No $FLOE_VENV here: run bash scripts/setup.sh first" >&2; exit 1; }
"$FLOE_PY" -c 'import xdist' 2>/dev/null || {
  echo "$FLOE_VENV has no pytest-xdist (python-tests/requirements.txt): run bash scripts/install.sh" >&2
  exit 1
}
build_and_install_floe

# pytest runs in the foreground while three jobs run beside it: JUnit; ruff and mypy; the training
# run of the tests' class-data-sharing archive (python-tests/class_data_sharing.py). Together they
# take about 3 CPU-minutes, which fit into the gaps pytest's workers leave (1.83 of the two cores
# were busy over a whole run) instead of running first. Their output follows pytest's. The archive only
# makes the tests' worker JVMs start faster: the first test that needs it waits for this build
# (a file lock), and workers start without it if it cannot be built.
junit_log="$(mktemp)"
lint_log="$(mktemp)"
cds_log="$(mktemp)"
# an interrupted run stops the background jobs too (after a normal run they have ended)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -f "$junit_log" "$lint_log" "$cds_log"' EXIT
log "pytest python-tests (with sql-tests golden files: session, JDBC and Spark Connect), with"
log "gradle test (JUnit), ruff, mypy --strict and the tests' CDS archive in the background"
(cd python-tests && "$FLOE_PY" class_data_sharing.py) > "$cds_log" 2>&1 &
cds_pid=$!
FLOE_PYTHON="$FLOE_PY" gradle -q test > "$junit_log" 2>&1 &
junit_pid=$!
(
  "$FLOE_PY" -m ruff check . &&
    "$FLOE_PY" -m mypy --strict --config-file pyspark-shim/pyproject.toml \
      pyspark-shim/floe python-tests sql-tests/run.py bench
) > "$lint_log" 2>&1 &
lint_pid=$!

status=0
"$FLOE_PY" -m pytest python-tests -q --durations=25 -n "$workers" --dist loadfile \
  ${pytest_args[@]+"${pytest_args[@]}"} || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
fi

junit=0
wait "$junit_pid" || junit=$?
log "gradle test (JUnit)"
cat "$junit_log"
lint=0
wait "$lint_pid" || lint=$?
log "ruff, mypy --strict"
cat "$lint_log"
cds=0
wait "$cds_pid" || cds=$?
log "the tests' CDS archive"
cat "$cds_log"
if [ "$junit" -ne 0 ] || [ "$lint" -ne 0 ] || [ "$cds" -ne 0 ]; then
  echo "JUnit exited with $junit, the linters with $lint, the CDS archive's build with $cds" >&2
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
