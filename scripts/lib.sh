# Shared steps of scripts/install.sh, scripts/test.sh and .ci/run. Source it from the repo root.
# FLOE_VENV names the virtualenv (default .venv).

FLOE_VENV=${FLOE_VENV:-.venv}
FLOE_PY="$PWD/$FLOE_VENV/bin/python"
FLOE_JAR_BUILT="spark-extension/spark/build/libs/floe-spark.jar"

log() { printf '==> %s  [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }

# Debian packages: gradle when it is missing, python3-venv when venv cannot bootstrap pip.
ensure_system_packages() {
  local missing=()
  command -v gradle >/dev/null 2>&1 || missing+=(gradle)
  python3 -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "apt-get install ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The virtualenv with PySpark (the build compiles against its jars) and the test tools.
ensure_venv() {
  if [ ! -x "$FLOE_PY" ]; then
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
      || { echo "Floe needs Python 3.11 or newer; python3 is $(python3 -V)" >&2; return 1; }
    log "python3 -m venv $FLOE_VENV"
    python3 -m venv "$FLOE_VENV"
  fi
  log "pip install pyspark and test tools"
  "$FLOE_PY" -m pip install -q --disable-pip-version-check "pyspark>=4.1,<4.2" \
    -r python-tests/requirements.txt -r bench/requirements.txt
}

# Build the jar against the venv's PySpark, bundle it and install the floe package.
build_and_install_floe() {
  log "gradle jar"
  FLOE_PYTHON="$FLOE_PY" gradle -q jar
  mkdir -p pyspark-shim/floe/jars
  cp "$FLOE_JAR_BUILT" pyspark-shim/floe/jars/floe-spark.jar
  log "pip install ./pyspark-shim[connect]"
  # with the Spark Connect client's packages (floe.connect, python-tests/test_connect.py)
  "$FLOE_PY" -m pip install -q --disable-pip-version-check "./pyspark-shim[connect]"
}
