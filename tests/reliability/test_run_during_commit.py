"""A run that starts while a tidy-up commits takes the agent file and the store as one pair: both from
before the commit, or both from after it. Read one of each and the rules the tidy-up graduated are in
neither (agent file before: not in the block; store after: graduated, so not injected), or in both.

The second test held before too (a store read settles while the pending marker is up, which waits for
the commit); it guards the pair-read against a reader that takes the store without settling."""

from __future__ import annotations

import threading
from datetime import date
from pathlib import Path

from tidy_scenario import Scenario, install

from agentuse.core import store
from agentuse.core.learning import State
from agentuse.core.store_format import parse
from agentuse.flows.tidy import run_tidy
from agentuse.runtime.events import RunStart
from agentuse.runtime.runner import start_run
from agentuse.runtime.session import read_events

REPLIES = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"


def _tidy(agent: Path) -> None:
    run_tidy(agent, helper=Scenario().helper(), today=date(2026, 11, 30), seed=7)


def _system(result) -> str:
    return next(e for e in read_events(Path(result.session_file))[0] if isinstance(e, RunStart)).system


def _copies(system: str, location: store.AgentLocation) -> dict[str, int]:
    """How many times the run's prompt carries each rule the tidy-up graduated."""
    graduated = [r for r in parse(location.store_path.read_text()).learnings if r.state is State.graduated]
    assert len(graduated) == 9
    return {rule.title: system.count(rule.title) for rule in graduated}


def test_a_run_reading_the_agent_file_before_a_commit_and_the_store_after_it_reads_again(tmp_path, monkeypatch):
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    load, committed = store.load, []

    def load_after_a_commit(where):
        # The run has read the agent file; the whole tidy-up commits before it reads the store.
        if not committed:
            committed.append(True)
            _tidy(agent)
        return load(where)

    monkeypatch.setattr(store, "load", load_after_a_commit)
    result = start_run(agent, model=f"replay:{REPLIES}")
    monkeypatch.setattr(store, "load", load)
    copies = _copies(_system(result), location)
    assert set(copies.values()) == {1}, f"copies of each graduated rule in the run's prompt: {copies}"


def test_a_run_starting_between_the_commits_two_writes_waits_for_the_pair(tmp_path, monkeypatch):
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    reached, release = threading.Event(), threading.Event()
    write = store.atomic_write

    def paused(path, text, **options):
        if Path(path) == location.store_path and threading.current_thread().name == "tidy":
            reached.set()  # the agent file is written, the store not yet
            release.wait(30)
        return write(path, text, **options)

    monkeypatch.setattr(store, "atomic_write", paused)
    tidy = threading.Thread(target=_tidy, args=(agent,), name="tidy")
    tidy.start()
    assert reached.wait(60), "the tidy-up never reached its store write"
    results = []
    run = threading.Thread(target=lambda: results.append(start_run(agent, model=f"replay:{REPLIES}")))
    run.start()
    run.join(1.0)  # long enough for a run that does not wait to read both files and finish
    release.set()
    tidy.join(60)
    run.join(60)
    [result] = results
    copies = _copies(_system(result), location)
    assert set(copies.values()) == {1}, f"copies of each graduated rule in the run's prompt: {copies}"
