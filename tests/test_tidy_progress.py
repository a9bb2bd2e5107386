"""The tidy-up's progress callback: the spec's lines per stage, and one event per stage-2 rule as it is
written, so the web page can count "the rules as it writes them" (spec: Tidying up)."""

from __future__ import annotations

import threading
from datetime import date

from tidy_scenario import Scenario, check_rule_events, install

from agentuse.core import store
from agentuse.core.tidy_report import Progress
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)


def test_every_rewrite_reports_when_it_is_written_in_order_from_the_worker_threads(tmp_path):
    agent = install(tmp_path, store.locate)
    events: list[Progress] = []
    threads: set[str] = set()

    def progress(event: Progress) -> None:
        events.append(event)
        if event.kind == "written":
            threads.add(threading.current_thread().name)

    helper = Scenario().helper()
    helper.pause = 0.01  # the calls of a stage overlap, so the events come from several threads at once
    result = run_tidy(agent, helper=helper, progress=progress, today=TODAY, seed=7)

    assert len(result.passes) >= 2 and sum(p.rewrites for p in result.passes) > 2
    check_rule_events(events, result.passes)
    assert threading.main_thread().name not in threads  # reported as each call finishes, not after the stage


def test_the_per_rule_events_have_no_line_of_their_own(tmp_path):
    """The terminal keeps the spec's lines exactly: per-rule events are counts for the page only."""
    agent = install(tmp_path, store.locate)
    events: list[Progress] = []
    run_tidy(agent, helper=Scenario().helper(), progress=events.append, today=TODAY, seed=7)
    lines = [e.line for e in events if not e.per_rule]
    assert all(e.kind == "written" for e in events if e.per_rule)
    assert lines[0] == "reading 58 learnings to see what repeats…"
    assert lines[1].startswith("rewriting ") and lines[2].startswith("pass 2: reading ")
    assert lines[-1] == "writing both files…"
