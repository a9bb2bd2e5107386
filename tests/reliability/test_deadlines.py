"""Deadlines on model work (issue 13): a model that never answers, or trickles a byte at a time, ends a
command on time with each step's documented outcome, and a retry says so on stderr instead of silence.

The limits are set small through the environment (core/helper/deadline.py); the assertions count the
requests the fake Messages API saw and read what was stored, never the clock. The fake's slow modes stop
by themselves (`SLOW`), so without the deadlines these tests fail on their counts instead of hanging.
"""

from __future__ import annotations

from datetime import date

import pytest
from capture_support import CUSTOM, UPLOAD_FAIL, make_agent, make_session, rule, seed
from fakes import silent, tool_use, trickle
from fakes.messages_server import overloaded
from tidy_scenario import install
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.helper.anthropic import AnthropicHelper
from agentuse.core.learning import Channel, Source, State
from agentuse.flows.capture import run_capture
from agentuse.flows.tidy import run_tidy

NOTE = "Always include source links before publishing."
SLOW = 2.0  # how long the fake stays silent or trickles before it drops the call by itself
LATE = "did not answer in time"


@pytest.fixture
def limits(monkeypatch, fake_anthropic):
    """Point the helper at the fake and set the three limits (seconds); unset ones stay at their defaults."""
    for name, value in fake_anthropic.env().items():
        monkeypatch.setenv(name, value)

    def set_(*, request: float = 30, call: float = 30, command: float = 60) -> None:
        monkeypatch.setenv("AGENTUSE_HELPER_TIMEOUT", str(request))
        monkeypatch.setenv("AGENTUSE_HELPER_DEADLINE", str(call))
        monkeypatch.setenv("AGENTUSE_MODEL_BUDGET", str(command))

    return set_


def _add(agent) -> tuple[list[str], str]:
    result = CliRunner().invoke(app, ["learnings", "add", str(agent), NOTE])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout.splitlines(), result.stderr


def _note(agent):
    return [r for r in store.load(store.locate(agent)).learnings if "source links" in r.text.lower()]


def test_a_silent_model_costs_one_request_per_step_and_the_note_is_saved(tmp_path, fake_anthropic, limits):
    # Before the deadlines, each step made 4 attempts, each waiting for the server to give up.
    limits(call=0.4)
    fake_anthropic.script(default=lambda request: silent(SLOW))
    agent = make_agent(tmp_path / "proj")
    out, _ = _add(agent)
    # ground, reconcile, vet: one attempt each, cut off at 0.4 s
    assert [r.forced_tool for r in fake_anthropic.requests] == ["submit_ground", "submit_reconcile", "submit_vet"]
    [saved] = _note(agent)
    assert saved.state is State.active  # a correction fails open
    late = [line for line in out if LATE in line]
    assert len(late) == 3 and all("AGENTUSE_HELPER_DEADLINE=0.4 s" in line for line in late), out


def test_the_command_budget_stops_every_later_model_call(tmp_path, fake_anthropic, limits):
    limits(command=0.4)
    fake_anthropic.script(default=lambda request: silent(SLOW))
    agent = make_agent(tmp_path / "proj")
    out, _ = _add(agent)
    assert len(fake_anthropic.requests) == 1  # ground ran out of the budget; reconcile and vet never asked
    assert [r.state for r in _note(agent)] == [State.active]
    assert any(LATE in line and "AGENTUSE_MODEL_BUDGET=0.4 s" in line for line in out), out


def test_a_trickled_answer_is_cut_off_and_capture_fails_closed(tmp_path, fake_anthropic, limits):
    # One byte every 0.05 s never trips a read timeout; only the call's wall-clock deadline ends it.
    limits(call=0.5)
    fake_anthropic.script(default=lambda request: trickle(every=0.05, limit=SLOW))
    agent = make_agent(tmp_path / "proj", CUSTOM.format(max=15))
    humans = [rule(f"{i:08x}", f"Correction {i}", src=Source.approval, ch=Channel.corrections) for i in range(2)]
    location = seed(agent, humans)
    session = make_session(agent, UPLOAD_FAIL)
    helper = AnthropicHelper("anthropic:claude-test", api_key="sk-ant-fake", base_url=fake_anthropic.url)
    try:
        report = run_capture(agent=str(agent), session=str(session), helper=helper, today=date(2026, 11, 30))
    finally:
        helper.close()
    extract = [r for r in fake_anthropic.requests if r.forced_tool == "submit_extract"]
    assert len(extract) == 1  # cut off once, not retried: the deadline is spent
    after = store.load(location).learnings
    assert {r.id for r in humans} <= {r.id for r in after}
    assert all(r.ch in (Channel.corrections, Channel.tool_errors) for r in after)  # no unvetted observation
    assert any(LATE in line for line in report.lines + report.notes), (report.lines, report.notes)


def test_a_trickle_within_the_deadline_is_a_timeout_that_is_retried(tmp_path, fake_anthropic, limits):
    # The request's own limit (0.3 s) cuts each trickling body; the call's deadline leaves room to retry.
    limits(request=0.3, call=30)
    fake_anthropic.script(default=lambda request: trickle(every=0.05, limit=SLOW))
    agent = make_agent(tmp_path / "proj")
    out, err = _add(agent)
    grounds = [r for r in fake_anthropic.requests if r.forced_tool == "submit_ground"]
    assert len(grounds) == 4  # every attempt of the ground call made, each cut off
    assert [line for line in err.splitlines() if "retrying" in line][:3] == [
        f"model timed out, retrying in 0 s ({n} of 4)…" for n in (2, 3, 4)]
    assert [r.state for r in _note(agent)] == [State.active]


def test_a_tidy_up_out_of_time_keeps_every_original(tmp_path, fake_anthropic, limits):
    limits(command=0.4)
    fake_anthropic.script(default=lambda request: silent(SLOW))
    (tmp_path / "proj").mkdir()
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    before = store.load(location).learnings
    helper = AnthropicHelper("anthropic:claude-test", api_key="sk-ant-fake", base_url=fake_anthropic.url)
    try:
        result = run_tidy(agent, helper=helper, today=date(2026, 11, 30), seed=7)
    finally:
        helper.close()
    assert len(fake_anthropic.requests) == 1  # the first call spent the budget; no other call was made
    # Nothing the model would have written was applied: every rule keeps its words (proven rules still
    # graduate: that takes no model), and none was merged, rewritten or retired.
    after = {r.id: r.text for r in store.load(location).learnings}
    assert {r.id: r.text for r in before} == after
    counts = result.counts
    assert (counts.merged, counts.rewritten, counts.retired, counts.quarantined) == (0, 0, 0, 0)
    assert any(LATE in note for note in result.notes), result.notes


def _answer(request):
    tool = request.forced_tool
    if tool == "submit_ground":
        return tool_use(tool, {"rule": {"category": "tip", "title": "Include source links", "body": NOTE}})
    if tool == "submit_reconcile":
        return tool_use(tool, {"action": "new"})
    return tool_use(tool, {"verdicts": []})


def test_each_retry_prints_one_line(tmp_path, fake_anthropic, limits):
    limits()
    fake_anthropic.script(overloaded(), overloaded(), default=_answer)
    agent = make_agent(tmp_path / "proj")
    _, err = _add(agent)
    # The back-off base is 0 in tests; the fake's overload asks for retry-after-ms: 1, and that is honoured.
    assert [line for line in err.splitlines() if "retrying" in line] == [
        "model overloaded, retrying in 0.001 s (2 of 4)…", "model overloaded, retrying in 0.001 s (3 of 4)…"]
    # ground three times, then the gate's audit of the grounded rule, reconcile and vet once each
    assert len(fake_anthropic.requests) == 6
    assert _note(agent)
