"""The figures the reliability suite measured (README "Reliability" quotes them from one run).

Each tier calls ``record("R1", commits=2000, lost=0, ...)``; the figures land as JSON in
build/reliability/<tier>.json at the repository root (one file per tier, rewritten each run), so
a full run leaves every number the README quotes, measured by the committed code.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "build" / "reliability"


def record(tier: str, **figures: int | float | str) -> None:
    """Merge ``figures`` into the tier's file (several tests of one tier add to one file)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{tier}.json"
    # test modules of one tier may run in two pytest workers at once: merge under a lock, and
    # replace the file whole so that no reader sees half of it
    with (OUT / f".{tier}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current = json.loads(path.read_text()) if path.exists() else {}
        current.update(figures)
        current["recorded_at"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        staged = path.with_name(f".{tier}.json.{os.getpid()}")
        staged.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
        staged.replace(path)
