"""What the worker scripts of this folder add to their session's conf for the tests' class-data-
sharing archive (python-tests/class_data_sharing.py), which the tests name in ``CDS_ENV``."""

from __future__ import annotations

import os

import floe

CDS_ENV = "FLOE_TEST_JAVA_OPTIONS"


def class_data_sharing_conf() -> dict[str, str]:
    """The Floe jar first on the driver's class path, as in the archive's training run (a JVM
    whose class path differs ignores the archive), when the test gave the archive's options."""
    return {"spark.driver.extraClassPath": floe.jar_path()} if os.environ.get(CDS_ENV) else {}
