"""The tidy flow as a real Prefect flow run: the same composition as inline, visible as named task runs.

One test, on the shared temporary-server harness (tests/prefect_harness.py: DESIGN.md's settings,
heartbeats off in-process, no server left behind).
"""

from __future__ import annotations

from datetime import date

import pytest
from prefect_harness import harness
from tidy_scenario import SPEC_SUMMARY, Scenario, check_rule_events, install

from agentuse.core import store
from agentuse.flows.tidy import run_tidy
from agentuse.tasks.retry import MODEL_TAG

pytestmark = pytest.mark.prefect


def test_a_real_flow_run_matches_inline_and_names_its_task_runs(tmp_path):
    inline_agent = install(tmp_path / "inline", store.locate)
    inline = run_tidy(inline_agent, helper=Scenario().helper(), today=date(2026, 11, 30), seed=7)

    agent = install(tmp_path / "orchestrated", store.locate)
    events = []
    with harness(tmp_path / "prefect-home"):
        result = run_tidy(agent, helper=Scenario().helper(), today=date(2026, 11, 30), seed=7,
                          force_prefect=True, progress=events.append)
        flow_runs, task_runs = _read_back(expected_tasks=result.model_calls)  # one task run per model call
        # A dry run afterwards: named as one, and its plan never published over the real tidy-up's artifacts.
        planned = run_tidy(agent, dry_run=True, helper=Scenario().helper(), today=date(2026, 11, 30), seed=7,
                           force_prefect=True)
        runs_after, artifacts = _runs_and_artifacts()

    assert result.summary == inline.summary == SPEC_SUMMARY
    check_rule_events(events, result.passes)  # each rewrite task run reports as it completes, here too
    assert [p.model_dump() for p in result.passes] == [p.model_dump() for p in inline.passes]
    assert [r.name for r in flow_runs] == ["tidy/blog-writer"]
    assert flow_runs[0].state.is_completed() and len(task_runs) == result.model_calls
    assert {"agentuse", "tidy"} <= set(flow_runs[0].tags)  # a run a surface started carries the project's tags
    assert planned.dry_run and sorted(r.name for r in runs_after) == ["tidy-dry-run/blog-writer", "tidy/blog-writer"]
    tidy_artifacts = [a for a in artifacts if a.key == "tidy-blog-writer"]
    assert tidy_artifacts and all(a.description == result.summary for a in tidy_artifacts)
    assert any(a.key == "tidy-dry-run-blog-writer" for a in artifacts)
    names = {r.name for r in task_runs}
    plans = {n for n in names if n.startswith("plan/")}
    assert {"plan/blog-writer/pass-1/group-1", "plan/blog-writer/pass-2/group-1"} <= plans
    assert len(plans) == sum(p.groups for p in result.passes)
    assert "revet/blog-writer/batch-1" in names and "block/blog-writer/block" in names
    assert any(n.startswith("rewrite/blog-writer/pass-2/rewrite-") for n in names)
    model_runs = [r for r in task_runs if r.name.split("/")[0] in ("plan", "rewrite", "audit", "revet", "block")]
    assert model_runs and all(MODEL_TAG in r.tags for r in model_runs)


def _read_back(*, expected_tasks: int, seconds: float = 60.0):
    """Task runs reach the server as events, after the flow returns: drain them, then poll (bounded) until
    every task run has arrived in a final state."""
    import time

    from prefect.client.orchestration import get_client
    from prefect.events.worker import EventsWorker

    EventsWorker.drain_all(timeout=seconds)
    deadline = time.monotonic() + seconds
    with get_client(sync_client=True) as client:
        while True:
            flow_runs, task_runs = client.read_flow_runs(), client.read_task_runs(limit=200)
            done = [r for r in task_runs if r.state is not None and r.state.is_final()]
            if len(done) >= expected_tasks or time.monotonic() > deadline:
                return flow_runs, done
            time.sleep(0.5)


def _runs_and_artifacts(seconds: float = 60.0):
    import time

    from prefect.client.orchestration import get_client
    from prefect.events.worker import EventsWorker

    EventsWorker.drain_all(timeout=seconds)
    deadline = time.monotonic() + seconds
    with get_client(sync_client=True) as client:
        while True:
            runs, artifacts = client.read_flow_runs(), client.read_artifacts()
            if len(runs) >= 2 and all(r.state and r.state.is_final() for r in runs) or time.monotonic() > deadline:
                return runs, artifacts
            time.sleep(0.5)
