"""The commit storm's oracle (docs/reliability.md, R1): what a race of appends left, checked
against what its writers acknowledged, from the stored files alone.

``check_storm`` reads every ``v<N>.metadata.json`` (json) and the current snapshot's manifests
(fastavro, commit_race.live_data_files) through a ``read`` function of the store's own client,
never through Floe's Java code, and counts:

- ``lost``: acknowledged data files missing from the current snapshot;
- ``duplicates``: data files live more than once;
- ``claimed_twice``: versions acknowledged by two writers;
- ``missing_versions``: gaps in ``v1..vN``; ``unparsable``: version files that are not JSON;
- ``foreign_versions``: acknowledged versions whose file does not carry the writer's commit id;
- ``missing_snapshots``: acknowledged snapshots absent from the final metadata.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from commit_race import Ack, RaceResult, live_data_files, version_numbers
from reliability_figures import record


@dataclass(frozen=True)
class StormVerdict:
    """The oracle's counts for one race (see the module's docstring); ``ok`` when all are 0."""

    acked: int
    lost: int
    duplicates: int
    claimed_twice: int
    missing_versions: int
    unparsable: int
    foreign_versions: int
    missing_snapshots: int
    snapshots: int
    newest_version: int

    @property
    def ok(self) -> bool:
        return not (
            self.lost
            or self.duplicates
            or self.claimed_twice
            or self.missing_versions
            or self.unparsable
            or self.foreign_versions
            or self.missing_snapshots
        )


def check_storm(
    acks: list[Ack],
    *,
    metadata_dir: str,
    metadata_names: Iterable[str],
    read: Callable[[str], bytes],
) -> StormVerdict:
    """Check ``acks`` against the version files named ``metadata_names`` in ``metadata_dir`` (a
    location ``read`` accepts) and the data files live in the newest version."""
    versions = version_numbers(metadata_names)
    newest = versions[-1] if versions else 0
    missing_versions = len(set(range(1, newest + 1)) - set(versions))
    commit_ids: dict[int, str | None] = {}
    unparsable = 0
    final: dict[str, Any] = {}
    for version in versions:
        try:
            metadata = json.loads(read(f"{metadata_dir}/v{version}.metadata.json"))
        except ValueError:
            unparsable += 1
            continue
        commit_ids[version] = metadata.get("floe-commit-id")
        final = metadata if version == newest else final
    live = Counter(live_data_files(read, final)) if final.get("current-snapshot-id") else Counter()
    snapshot_ids = {s["snapshot-id"] for s in final.get("snapshots", [])}
    claimed = Counter(a.version for a in acks)
    return StormVerdict(
        acked=len(acks),
        lost=sum(1 for a in acks if live[a.path] == 0),
        duplicates=sum(n - 1 for n in live.values() if n > 1),
        claimed_twice=sum(1 for n in claimed.values() if n > 1),
        missing_versions=missing_versions,
        unparsable=unparsable,
        foreign_versions=sum(1 for a in acks if commit_ids.get(a.version) != a.commit_id),
        missing_snapshots=sum(1 for a in acks if a.snapshot_id not in snapshot_ids),
        snapshots=len(final.get("snapshots", [])),
        newest_version=newest,
    )


def assert_no_loss(race: RaceResult, verdict: StormVerdict, writers: int, total: int) -> None:
    """Every writer finished, ``total`` commits acknowledged, none lost: the verdict of G1."""
    assert race.writers_done == writers
    assert race.failures == []
    assert race.exhausted == 0
    assert verdict.acked == total
    assert verdict.ok, verdict
    # v1 is the CREATE (no snapshot); every acknowledged append is one more version and snapshot
    assert verdict.snapshots == total
    assert verdict.newest_version == 1 + total


def record_storm(prefix: str, race: RaceResult, verdict: StormVerdict, started: float) -> None:
    """Record a storm's figures in build/reliability/R1.json, each key prefixed with the store."""
    record(
        "R1",
        **{
            f"{prefix}_commits_acked": verdict.acked,
            f"{prefix}_lost": verdict.lost,
            f"{prefix}_duplicates": verdict.duplicates,
            f"{prefix}_versions_claimed_twice": verdict.claimed_twice,
            f"{prefix}_missing_versions": verdict.missing_versions,
            f"{prefix}_unparsable_versions": verdict.unparsable,
            f"{prefix}_retries": race.retries,
            f"{prefix}_retries_exhausted": race.exhausted,
            f"{prefix}_race_seconds": round(race.seconds, 1),
            f"{prefix}_seconds": round(time.monotonic() - started, 1),
        },
    )
