"""With CI=true a missing Iceberg runtime fails the interop tests instead of skipping them."""

from __future__ import annotations

import pytest
from conftest import require_iceberg_runtime
from iceberg_runtime import IcebergRuntime

MISSING = IcebergRuntime(None, "cannot download (test)")


def test_missing_runtime_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="a failed download is a failure"):
        require_iceberg_runtime(MISSING)


def test_missing_runtime_skips_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="cannot download"):
        require_iceberg_runtime(MISSING)
