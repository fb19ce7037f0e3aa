"""sql-tests/run.py loaded as a module, once per run: the golden-file runner, and the Thrift server
helpers (free port, wait for the port, stop) that the JDBC tests share with it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_NAME = "floe_sql_tests_run"


def load() -> ModuleType:
    """The module of sql-tests/run.py (the same object on every call)."""
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    path = Path(__file__).resolve().parents[1] / "sql-tests" / "run.py"
    spec = importlib.util.spec_from_file_location(_NAME, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module
