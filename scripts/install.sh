#!/usr/bin/env bash
# Installs Floe from this checkout on Debian: gradle and python3-venv (apt, only when missing),
# a virtualenv (.venv) with PySpark and the test tools, the Floe jar built by Gradle, and the
# floe package with the jar inside. Needs python3 and a JDK 17. Used by setup.sh and .ci/run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh

ensure_system_packages
ensure_venv
build_and_install_floe
