#!/usr/bin/env bash
# The README's first command: install everything, then run the demo on ./warehouse.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib.sh

bash scripts/install.sh
log "floe demo --warehouse ./warehouse"
"$PWD/$FLOE_VENV/bin/floe" demo --warehouse ./warehouse
