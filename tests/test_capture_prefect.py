"""Capture and remember as real Prefect flow runs under a temporary server: the same composition as inline,
and the task graph it leaves — which tasks ran, how often, with what retries and tags.

Few and slow on purpose (the first flow run in a process pays for the server start); one harness serves
the module and is stopped at its end.
"""

from __future__ import annotations

import pytest
from capture_support import TODAY, UPLOAD_FAIL, make_agent, make_session, stored
from fakes.scripted_helper import ScriptedHelper, drafts, passing, transient
from prefect_harness import flow_run_tasks, harness

from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Source
from agentuse.flows.capture import run_capture
from agentuse.flows.remember import run_remember
from agentuse.tasks.retry import MODEL_TAG

pytestmark = pytest.mark.prefect


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory):
    with harness(tmp_path_factory.mktemp("prefect-home")) as url:
        yield url


def helper_with_a_flaky_vet() -> ScriptedHelper:
    return ScriptedHelper(extract=[drafts("Save posts under posts/ with a dated filename")],
                          vet=[transient(), passing])


def test_capture_as_a_real_flow_run_and_its_task_graph(tmp_path, prefect_api):
    inline_agent = make_agent(tmp_path / "inline")
    inline = run_capture(agent=str(inline_agent), session=str(make_session(inline_agent, UPLOAD_FAIL)),
                             helper=helper_with_a_flaky_vet(), today=TODAY)

    agent = make_agent(tmp_path / "orchestrated")
    session = make_session(agent, UPLOAD_FAIL)
    helper = helper_with_a_flaky_vet()
    report = run_capture(agent, session, force_prefect=True, helper=helper, today=TODAY)

    assert report.lines[0].split(" → ")[0] == inline.lines[0].split(" → ")[0] == \
        "Extracted 2 learning(s), 0 quarantined"
    assert {(r.ch, r.title) for r in stored(agent)} == {(r.ch, r.title) for r in stored(inline_agent)}
    assert helper.count("vet") == 2  # the transient fault was retried by Prefect, once

    sid = session.stem
    tasks = flow_run_tasks(f"capture/blog/{sid}", expect=8)
    assert {name: len(runs) for name, runs in tasks.items()} == {
        f"load/{sid}": 1, f"gather/tool-errors/{sid}": 1, f"gather/custom/{sid}": 1, f"vet/{sid}": 1,
        f"stamp/{sid}": 1, "write/blog.agentuse": 1, "revet-plan/blog.agentuse": 1, f"report/{sid}": 1}
    assert all(run.state.is_completed() for runs in tasks.values() for run in runs)
    [vet] = tasks[f"vet/{sid}"]
    assert vet.run_count == 2 and vet.empirical_policy.retries == 3  # one retry of three allowed
    assert MODEL_TAG in vet.tags and MODEL_TAG in tasks[f"gather/custom/{sid}"][0].tags
    assert MODEL_TAG not in tasks["write/blog.agentuse"][0].tags
    assert [t.run_count for t in tasks[f"gather/custom/{sid}"]] == [1]


def test_remember_as_a_real_flow_run_retries_a_transient_ground_fault(tmp_path, prefect_api):
    agent = make_agent(tmp_path / "p", "learning: true")
    helper = ScriptedHelper(ground=[transient("ground"), p.GroundAnswer(rule=p.Draft(title="Keep intros factual"))],
                            audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")], vet=[passing])
    result = run_remember(agent, "too salesy", label="manual-1", force_prefect=True, helper=helper, today=TODAY)
    [saved] = stored(agent)
    assert (saved.title, saved.src, saved.ch) == ("Keep intros factual", Source.manual, Channel.corrections)
    assert result.lines[0] == f'[Learning] Saved "Keep intros factual" (id:{saved.id})'
    tasks = flow_run_tasks("remember/manual-1", expect=6)
    assert {name: [r.run_count for r in runs] for name, runs in tasks.items()} == {
        "load-note/manual-1": [1], "ground/manual-1": [2], "audit/manual-1/ground": [1],
        "reconcile/manual-1/note": [1], "vet/manual-1": [1], "save-note/manual-1": [1]}


def test_a_note_with_a_credential_leaves_none_in_the_flow_runs_parameters_or_artifacts(tmp_path, prefect_api):
    """The store and the prompts get the note redacted; so must the Prefect database, which keeps every flow
    run's parameters and the remember artifact for the dashboard."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, FlowRunFilter, FlowRunFilterName

    token = "ghp_R2d2C3poL8kQ9vX1mN4bT7yH0sJ6wE5aZ3uF"
    agent = make_agent(tmp_path / "p", "learning: true")
    helper = ScriptedHelper(ground=[p.GroundAnswer(rule=p.Draft(title="Read the token from the environment"))],
                            audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")], vet=[passing])
    run_remember(agent, f"Push with the token {token}", label="secret-1", comment=f"it used {token}",
                 reviewed_output=f"git push https://x:{token}@github.com/o/r", force_prefect=True, helper=helper,
                 today=TODAY)
    flow_run_tasks("remember/secret-1", expect=6)
    with get_client(sync_client=True) as client:
        [flow_run] = client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=["remember/secret-1"])))
        artifacts = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["remember-blog"])))
    assert "Push with the token ***" in str(flow_run.parameters)
    assert token not in str(flow_run.parameters)
    assert artifacts and all(token not in str(a.data) for a in artifacts)


def test_handing_a_run_to_prefect_sends_the_event_before_the_command_ends_and_prints_nothing(tmp_path, prefect_api):
    """The event was left queued to Prefect's events worker, which flushed it at interpreter exit and
    printed `Still processing items: 1 items remaining...` under every `agentuse run` that handed its
    capture to Prefect. The hand-off runs in its own process here, as in a run, and the server must hold
    the event once that process has ended."""
    import os
    import subprocess
    import sys
    import time

    import httpx
    from prefect.events.filters import EventFilter, EventNameFilter, EventResourceFilter

    agent = make_agent(tmp_path / "p", "learning: true")
    code = ("from pathlib import Path\nfrom types import SimpleNamespace\nfrom agentuse.flows import handoff\n"
            f"assert handoff.emit_completed(Path({str(agent)!r}), SimpleNamespace(session_id='01HANDOFF', "
            "session_file='/nowhere/01HANDOFF.jsonl', status='completed'))\n")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PREFECT_API_URL": prefect_api},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout == ""
    deadline = time.monotonic() + 60  # the server writes the events it received asynchronously
    while True:
        found = httpx.post(f"{prefect_api}/events/filter", json={"filter": EventFilter(
            event=EventNameFilter(name=["agentuse.run.completed"]),
            resource=EventResourceFilter(id=["agentuse.session.01HANDOFF"])).model_dump(mode="json")}).json()
        if found.get("events") or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert [e["resource"]["prefect.resource.id"] for e in found["events"]] == ["agentuse.session.01HANDOFF"]
