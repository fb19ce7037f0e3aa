"""Floe's exceptions. Every error the package raises on purpose is a FloeError."""


class FloeError(Exception):
    """Base class of Floe's errors."""


class JarNotFoundError(FloeError):
    """The Floe Spark jar is not where the package expects it."""


class NoSuchTableError(FloeError):
    """A table location holds no readable table metadata."""


class IndexFileError(FloeError):
    """An index list or index segment file is missing or does not follow its layout.

    ``table`` is the table location, ``index`` the index name (None for the index list) and
    ``path`` the file. Queries in Spark scan without such an index; ``rewrite_index`` rebuilds it.
    """

    def __init__(self, message: str, *, table: str, index: str | None, path: str) -> None:
        super().__init__(message)
        self.table = table
        self.index = index
        self.path = path


class NoSuchIndexError(FloeError):
    """A table has no index of the given name."""
