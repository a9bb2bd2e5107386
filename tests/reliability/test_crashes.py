"""A process SIGKILLed at random points of a save, of a capture and of a tidy-up, 50 times each.

Each trial forks a child (tests/reliability/worker.py) that runs the operation once and dies either just
before a randomly chosen file-system operation (create, write, fsync, rename, remove: every point where
a crash can leave something different on disk) or at a random instant of its run. Afterwards the files
must read as the old version or the new one, never a mix, and nothing may have vanished.
"""

from __future__ import annotations

import random
import shutil
import signal
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest
from tidy_scenario import install

from agentuse.core import snapshots, store
from agentuse.core.agent_file import load_agent
from agentuse.core.learned_block import read_block, write_block
from agentuse.core.store_format import StoreDoc, parse, render

from .capturing import record_run
from .stores import make_rules

TRIALS = 50
TIMED = 15  # of the 50: killed at a random instant rather than before a chosen operation


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@dataclass
class Files:
    """The bytes of everything an operation may write for one agent."""

    agent: bytes | None
    store: bytes | None
    archive: bytes | None

    @classmethod
    def of(cls, location: store.AgentLocation) -> "Files":
        return cls(_read(location.agent_path), _read(location.store_path), _read(location.archive_path))

    def restore(self, location: store.AgentLocation, keep_snapshots: set[Path]) -> None:
        for path, data in ((location.agent_path, self.agent), (location.store_path, self.store),
                           (location.archive_path, self.archive)):
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        root = location.consolidations_dir / location.key.removesuffix(store.AGENT_SUFFIX)
        for folder in (root.iterdir() if root.exists() else []):
            if folder not in keep_snapshots:
                shutil.rmtree(folder)
        for folder in (location.store_path.parent, location.agent_path.parent, location.archive_path.parent):
            for temp in folder.glob(".*.tmp") if folder.exists() else []:
                temp.unlink()  # left by a killed writer: swept by a later write once stale; here, now


def _ids(data: bytes | None, *, archive: bool = False) -> set[str]:
    if not data:
        return set()
    return {r.id for r in parse(data.decode("utf-8"), include_retired=archive).learnings}


def _plan(rng: random.Random, trace: list[str], elapsed: float, focus) -> list[dict]:
    """Kill points: every operation on the files that matter (`focus`) and the one right after it, then
    random others, then random instants within one uninterrupted run's duration."""
    budget = TRIALS - TIMED
    points = range(len(trace))
    focused = sorted({j for i in points if focus(trace[i]) for j in (i, i + 1) if j < len(trace)})
    if len(focused) > budget * 2 // 3:
        focused = sorted(rng.sample(focused, budget * 2 // 3))
    rest = [i for i in points if i not in focused]
    picked = focused + rng.sample(rest, min(len(rest), budget - len(focused)))
    while len(picked) < budget:
        picked.append(rng.choice(list(points)))
    return [{"kill_at": k} for k in sorted(picked)] + [{"kill_after": rng.uniform(0, elapsed)} for _ in range(TIMED)]


def _run_trials(fork_server, scenario: str, config: dict, check, focus=lambda op: True) -> list[str]:
    """Calibrate with uninterrupted runs, then 50 killed ones; `check(trial, answer, calibration)` returns
    problems and puts the files back as they were. The first run creates folders the later ones find, so
    the second run's operations are the ones the trials count."""
    rng = random.Random(f"{scenario}-2026")
    calibration = {}
    for label in ("first run", "uninterrupted"):
        calibration = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config})
        assert calibration["exit"] == 0, calibration
        problems = check(label, calibration, calibration)
        assert not problems, problems
    trace = calibration["trace"]
    problems: list[str] = []
    for trial in _plan(rng, trace, calibration["elapsed"], focus):
        answer = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config, **trial})
        assert answer.get("error") is None, answer
        if "kill_at" in trial:
            assert answer["signal"] == signal.SIGKILL, (trial, trace[trial["kill_at"]], answer)
            trial = f"killed before {trace[trial['kill_at']]!r} (operation {trial['kill_at']})"
        else:
            trial = f"killed after {trial['kill_after'] * 1000:.0f} ms"
        problems += check(trial, answer, calibration)
    return problems


# ---------------------------------------------------------------- save


def test_killed_save_leaves_the_old_or_the_new_store(fork_server, project):
    old = project.seed(60, seed=1)
    new = StoreDoc(name=old.name, agent=old.agent, learnings=make_rules(60, seed=2, ih=project.ih))
    location = project.location
    baseline = Files.of(location)
    versions = {baseline.store: "old", render(new).encode(): "new"}
    seen = set()

    def check(trial, answer, _calibration):
        data = _read(location.store_path)
        problems = []
        if data not in versions:
            problems.append(f"{trial}: the store is neither the old nor the new version")
        else:
            seen.add(versions[data])
            parse(data.decode())
        with store.transaction(location):  # the dead writer's lock died with it
            pass
        baseline.restore(location, set())
        return problems

    problems = _run_trials(fork_server, "save", {"agent": str(project.agent), "new_store": render(new)}, check)
    assert not problems, "\n".join(problems)
    assert seen == {"old", "new"}  # the kills landed both before and after the rename


# ---------------------------------------------------------------- capture


def _normalised(data: bytes | None, known: set[str]) -> list:
    """The store's rules with ids it did not have before replaced, so two captures compare equal."""
    doc = parse(data.decode()) if data else StoreDoc(name="")
    return [r.model_copy(update={"id": r.id if r.id in known else "new"}).model_dump() for r in doc.learnings]


def test_killed_capture_leaves_the_old_or_the_new_store_and_loses_nothing(fork_server, tmp_path):
    # The spec's overgrown store over its cap: the first capture drains the excess into the archive and
    # adds the new tool-errors record, so a capture writes two files.
    (tmp_path / "proj").mkdir()
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    session = record_run(agent, tool="browser.uploadFile", failure="files.length remained 0",
                         bad={"path": "./shot.png"}, good={"path": "/Users/me/shot.png"})
    baseline = Files.of(location)
    before_ids = _ids(baseline.store)
    config = {"agent": str(agent), "session": session}
    after: dict = {}

    def check(trial, answer, calibration):
        now = Files.of(location)
        if not after:
            after.update(store=_normalised(now.store, before_ids), stored=calibration.get("extracted"))
            assert after["store"] != _normalised(baseline.store, before_ids), "the capture changed nothing"
        problems = []
        state = _normalised(now.store, before_ids)
        if now.store != baseline.store and state != after["store"]:
            problems.append(f"{trial}: the store is neither the old nor the new version")
        missing = before_ids - _ids(now.store) - _ids(now.archive, archive=True)
        if missing:
            problems.append(f"{trial}: {len(missing)} rule(s) are in neither the store nor the archive")
        baseline.restore(location, set())
        return problems

    problems = _run_trials(fork_server, "capture", config, check,
                           focus=lambda op: "learnings.md" in op and not op.endswith(".lock"))
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- tidy-up


def test_killed_tidy_leaves_both_files_before_or_both_after_and_undo_works(fork_server, tmp_path):
    (tmp_path / "proj").mkdir()
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    baseline = Files.of(location)
    # An earlier tidy-up whose result is the baseline: undo must reach it when the killed one left nothing.
    earlier = Files(agent=write_block(baseline.agent.decode(), []).encode(), store=baseline.store, archive=None)
    earlier_store = parse(baseline.store.decode())
    earlier_store.learnings = earlier_store.learnings[1:]
    earlier.store = render(earlier_store).encode()

    def plant() -> set[Path]:
        snapshot = snapshots.take(location, agent_before=earlier.agent, store_before=earlier.store,
                                  agent_after=baseline.agent, store_after=baseline.store,
                                  block_after=read_block(baseline.agent.decode()) or [],
                                  now=datetime(2026, 1, 1, tzinfo=timezone.utc))
        return {snapshot.folder}

    keep = plant()
    before_ids = _ids(baseline.store)
    result: dict = {}
    seen_mixed: list[str] = []

    def pair_of(now: Files) -> tuple[str, str]:
        return ("before" if now.agent == baseline.agent else "after" if now.agent == result["agent"] else "neither",
                "before" if now.store == baseline.store else "after" if now.store == result["store"] else "neither")

    def check(trial, answer, calibration):
        now = Files.of(location)
        if not result:
            result.update(agent=now.agent, store=now.store)
            assert now.agent != baseline.agent and now.store != baseline.store, "the tidy-up wrote nothing"
        raw = pair_of(now)
        # What any reader finds: every store read or write settles an interrupted commit first.
        store.load(location)
        now = Files.of(location)
        seen = pair_of(now)
        if raw[0] != raw[1] and seen[0] != seen[1]:
            seen_mixed.append(f"{trial}: agent file {seen[0]}, store {seen[1]} after a store read")
        snapshots.recover(location)  # what the next tidy-up or undo does first: a no-op once settled
        now = Files.of(location)
        pair = pair_of(now)
        problems = []
        if pair[0] != pair[1] or "neither" in pair:
            problems.append(f"{trial}: agent file {pair[0]}, store {pair[1]} (a tidy-up must leave both before "
                            "or both after)")
        if pair == ("before", "before") and now.archive != baseline.archive:
            problems.append(f"{trial}: rolled back, but the archive still holds what the tidy-up retired")
        load_agent(agent)
        missing = before_ids - _ids(now.store) - _ids(now.archive, archive=True)
        if missing:
            problems.append(f"{trial}: {len(missing)} rule(s) are in neither the store nor the archive")
        try:
            snapshots.undo(location)
            undone = Files.of(location)
            target = earlier if pair == ("before", "before") else baseline
            if (undone.agent, undone.store) != (target.agent, target.store):
                problems.append(f"{trial}: undo did not restore "
                                f"{'the earlier tidy-up' if target is earlier else 'the files before the tidy-up'}")
            if undone.archive != baseline.archive:  # the earlier tidy-up archived nothing
                problems.append(f"{trial}: after undo the archive still holds what the killed tidy-up retired")
        except snapshots.UndoError as error:
            problems.append(f"{trial}: undo failed: {error}")
        baseline.restore(location, keep)
        if not all(folder.exists() for folder in keep):
            keep.clear()
            keep.update(plant())  # an undo consumed the earlier snapshot: plant it again for the next trial
        return problems

    names = (agent.name, location.store_path.name)
    problems = _run_trials(fork_server, "tidy", {"agent": str(agent)}, check,
                           focus=lambda op: any(n in op for n in names) and "/archive/" not in op
                           and not op.endswith(".lock"))
    assert not problems, f"{len(problems)} problems in {TRIALS} trials:\n" + "\n".join(problems)
    # Two files cannot be replaced in one atomic step, but no reader may see them mixed: a kill between
    # the two writes is settled (rolled back or forward) by the first store read after it.
    assert not seen_mixed, "\n".join(seen_mixed)
