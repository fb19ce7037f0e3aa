#!/usr/bin/env bash
# The README's second command: all tests. Rebuilds and reinstalls Floe from the checkout first
# (cheap when nothing changed), then runs JUnit, the linters, and pytest, which includes the SQL
# golden files through a Spark session, the Thrift JDBC server and Spark Connect. Non-zero on failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh

[ -x "$FLOE_PY" ] || { echo "No $FLOE_VENV here: run bash scripts/setup.sh first" >&2; exit 1; }
build_and_install_floe

log "gradle test (JUnit)"
FLOE_PYTHON="$FLOE_PY" gradle -q test

log "ruff, mypy --strict"
"$FLOE_PY" -m ruff check .
"$FLOE_PY" -m mypy --strict --config-file pyspark-shim/pyproject.toml \
  pyspark-shim/floe python-tests sql-tests/run.py bench

log "pytest python-tests (with sql-tests golden files: session, JDBC and Spark Connect)"
status=0
"$FLOE_PY" -m pytest python-tests -q || status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure" >&2
fi
exit "$status"
