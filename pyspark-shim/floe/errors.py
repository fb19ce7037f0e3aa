"""Floe's exceptions. Every error the package raises on purpose is a FloeError."""


class FloeError(Exception):
    """Base class of Floe's errors."""


class JarNotFoundError(FloeError):
    """The Floe Spark jar is not where the package expects it."""


class NoSuchTableError(FloeError):
    """A table location holds no readable table metadata."""
