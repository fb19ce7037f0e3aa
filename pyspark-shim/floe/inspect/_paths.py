"""Turning the locations written in table metadata into local paths."""

from __future__ import annotations

import re
from pathlib import Path

from floe.errors import FloeError

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


def local_path(location: str) -> Path:
    """Return the local path of ``location``: a plain path, ``file:/p``, ``file:///p``."""
    if location.startswith("file:"):
        rest = location[len("file:") :]
        if rest.startswith("//"):
            host, _, path = rest[2:].partition("/")
            if host not in ("", "localhost"):
                raise FloeError(f"Unsupported location {location!r}: file URIs cannot name a host")
            rest = "/" + path
        return Path(rest)
    if _SCHEME.match(location):
        raise FloeError(
            f"Unsupported location {location!r}: floe.inspect reads local paths and file: URIs only"
        )
    return Path(location)
