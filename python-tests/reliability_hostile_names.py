"""R6 support: seeded hostile identifiers, the rule Floe must give for each, and a tripwire.

``hostile_names(500)`` returns the same 500 names on every run: path separators, ``..``, percent
escapes (``%2e%2e``, ``%2f``, ``%00``), control and invisible characters, Unicode look-alikes of
``.`` and ``/`` (U+2024 one-dot leader, U+2215 division slash, fullwidth forms, ...), names of
4,096 characters, SQL reserved words, the file names of a table folder (``metadata``, ``data``,
``version-hint.text``, ``v1.metadata.json``), leading dots and underscores, trailing spaces and
Windows device names. They differ from test_names_and_folders.py's random fragment mixes: these
are built from the attack classes above, one class per name, then combined in pairs.

``expected_rejection(name)`` restates Floe's naming rule (docs/format.md, "Names and locations")
independently of the JVM code, so a rule that silently loosens fails the test.

``Tripwire`` hashes every file (path, size, content) below the warehouse's parent, except the
warehouse itself, plus a decoy folder planted there: a hostile name that escaped would change it.
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
from pathlib import Path

# One hostile class per entry; the generator also combines two of them around a letter.
_SEPARATORS = ["/", "\\", ":", "../", "..\\", "/..", "a/../b", "a\\..\\b", "//", "./", "~/"]
_DOTS = ["..", ".", "...", "..a", ".hidden", ".metadata", "a.", "a..b", "...."]
_ESCAPES = [
    "%2e%2e", "%2E%2E", "%2f", "%2F", "%5c", "%00", "%2e%2e%2f", "..%2f", "%252e%252e", "%c0%ae",
    "%", "?", "#", "*", "[a]", "{a}", "'", '"', "`", ";", "|", "<", ">", "&", "=", "+", ",", "@",
    "!",
]  # fmt: skip
_CONTROLS = ["\x00", "\x01", "\x07", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\u2028", "\u2029"]
_LOOKALIKES = [
    "\u2024",  # one dot leader
    "\u2025",  # two dot leader
    "\ufe52",  # small full stop
    "\uff0e",  # fullwidth full stop
    "\u3002",  # ideographic full stop
    "\u2215",  # division slash
    "\u2044",  # fraction slash
    "\uff0f",  # fullwidth solidus
    "\u29f5",  # reverse solidus operator
    "\uff3c",  # fullwidth reverse solidus
    "\u200b",  # zero width space
    "\u200d",  # zero width joiner
    "\u202e",  # right-to-left override
    "\ufeff",  # byte order mark
    "\u00a0",  # no-break space
    "\u3000",  # ideographic space
    "\u0430",  # Cyrillic a (a letter: accepted)
    "\uff21",  # fullwidth A (a letter: accepted)
    "e\u0301",  # e + combining acute (a mark: accepted)
    "\U0001f600",  # emoji (a symbol: refused)
]
_RESERVED = [
    "select", "SELECT", "table", "from", "where", "null", "NULL", "true", "default", "database",
    "namespace", "index", "create", "drop", "purge", "system", "floe", "catalog", "global_temp",
    "information_schema", "con", "CON", "nul", "aux", "com1", "lpt1", "prn",
]  # fmt: skip
_TABLE_FILES = [
    "metadata", "data", "version-hint.text", "v1.metadata.json", "v999.metadata.json",
    "_floe_indexes", "_floe-writing-0", "_SUCCESS", ".crc", "snap-1-1-x.avro", "x.parquet",
    "index-list-x.json", "_x", "__", "_",
]  # fmt: skip
_SPACES = [" a", "a ", "  ", " ", "a b", "a\u00a0", "a\t"]
_LONG = ["a" * 4096, "\u00e9" * 128, "\u00e9" * 127 + "a", "a" * 255, "a" * 256, "\u8868" * 86]


def hostile_names(count: int, seed: int = 14_06) -> list[str]:
    """``count`` distinct hostile names, the same on every run (every listed case first)."""
    classes = [
        _SEPARATORS,
        _DOTS,
        _ESCAPES,
        _CONTROLS,
        _LOOKALIKES,
        _RESERVED,
        _TABLE_FILES,
        _SPACES,
    ]
    names: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name not in seen and len(names) < count:
            seen.add(name)
            names.append(name)

    for cls in (*classes, _LONG):
        for part in cls:
            add(part)
    rng = random.Random(seed)
    while len(names) < count:
        first, second = rng.choice(classes), rng.choice(classes)
        add(rng.choice(first) + rng.choice(["a", "x1", "\u8868", ""]) + rng.choice(second))
    return names


_ALLOWED_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd"}


def expected_rejection(name: str) -> str | None:
    """The rule Floe's catalog must cite when it refuses ``name``; None when it must accept it."""
    if name in ("", ".", ".."):
        return "not allowed as names" if name else "must not be empty"
    if name.startswith("."):
        return "must not start with '.'"
    if name.startswith(" ") or name.endswith(" "):
        return "must not start or end with a space"
    if len(name.encode("utf-8")) > 255:
        return "at most 255 bytes"
    for ch in name:
        if ch in "_-$ ." or unicodedata.category(ch) in _ALLOWED_CATEGORIES:
            continue
        return "is not allowed"
    return None


def shown(name: str) -> str:
    """How Floe's messages print a name (CatalogErrors.printable, per UTF-16 unit): control,
    format, surrogate and non-ASCII space characters escaped; names past 255 bytes cut to 40
    units."""
    units = name.encode("utf-16-be")
    if len(name.encode("utf-8")) > 255:
        units = units[:80]
    out = []
    for i in range(0, len(units), 2):
        code = int.from_bytes(units[i : i + 2], "big")
        category = "Cs" if 0xD800 <= code <= 0xDFFF else unicodedata.category(chr(code))
        invisible = category in ("Cc", "Cf", "Cs") or (category[0] == "Z" and code != 0x20)
        out.append(f"\\u{code:04x}" if invisible else chr(code))
    return "".join(out)


def sql_quote(name: str) -> str:
    """``name`` as one backquoted SQL identifier part."""
    return "`" + name.replace("`", "``") + "`"


class Tripwire:
    """Everything below ``outside`` except ``warehouse``: every path, size and content hash.

    A decoy folder is planted first, holding the files a hostile name would aim at
    (``metadata/version-hint.text``, ``escaped``, ...), so an escape that writes, renames or
    deletes there shows up as a difference.
    """

    def __init__(self, outside: Path, warehouse: Path) -> None:
        self.outside = outside
        self.warehouse = warehouse.resolve()
        decoy = outside / "r6-tripwire"
        (decoy / "metadata").mkdir(parents=True, exist_ok=True)
        (decoy / "metadata" / "version-hint.text").write_text("1")
        (decoy / "escaped").write_text("must survive")
        (decoy / "data").mkdir(exist_ok=True)
        (decoy / "data" / "keep.parquet").write_bytes(b"PAR1 decoy")
        self.before = self.snapshot()

    def snapshot(self) -> dict[str, str]:
        state: dict[str, str] = {}
        for path in sorted(self.outside.rglob("*")):
            resolved = path.resolve() if not path.is_symlink() else path
            if resolved == self.warehouse or self.warehouse in resolved.parents:
                continue
            key = str(path.relative_to(self.outside))
            if path.is_symlink():
                state[key] = "link:" + str(path.readlink())
            elif path.is_dir():
                state[key] = "dir"
            else:
                state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        return state

    def changes(self) -> list[str]:
        """What differs from the first snapshot: added, removed or changed paths."""
        after = self.snapshot()
        keys = sorted(set(self.before) | set(after))
        return [k for k in keys if self.before.get(k) != after.get(k)]
