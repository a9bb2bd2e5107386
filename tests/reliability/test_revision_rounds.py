"""A revision round (`sessions resume --comment`, the serve form's Request changes) re-reads the store:
the next model request carries the rules in force at that moment, the log records them like the first
round, and each is counted as injected once more (spec: How Application Works, "on next run or approval
resume"; issue 12, "Revision rounds re-inject the rules in force at that moment, and count them")."""

from __future__ import annotations


import pytest
from fakes import text, session_id_in
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.inject import RELEVANT_HEADING
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.approval import find_session

pytestmark = pytest.mark.usefixtures("offline_helper")

AGENT = """---
model: anthropic:claude-test
approval: true
learning:
  apply: true
---

# Blog Writer

Write short productivity blog posts and save each one under `posts/`.
"""

FIRST = "Keep intros factual rather than promotional"
ADDED = "Name the source of every statistic"
LEFT = "Use numbered lists for tips"



@pytest.fixture
def cli(fake_anthropic, monkeypatch):
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
        return result

    return invoke


@pytest.fixture
def agent(tmp_path):
    path = tmp_path / "project" / "blog.agentuse"
    path.parent.mkdir()
    path.write_text(AGENT)
    location = store.locate(path)
    ih = agent_hash(load_agent(path))
    store.save(location, StoreDoc(name="blog", agent=location.key, learnings=[
        Learning(id="a1b2c3d4", title=FIRST, date="2026-01-20", src=Source.manual, ch=Channel.corrections, ih=ih),
        Learning(id="e5f6a7b8", title=LEFT, date="2026-01-21", src=Source.auto, ch=Channel.custom, ih=ih),
    ]))
    return path, location, ih



def injected(location) -> dict[str, int]:
    return {rule.id: rule.injected for rule in store.load(location).learnings}


def test_a_revision_round_carries_the_rules_in_force_now_and_counts_them(agent, cli, fake_anthropic):
    path, location, ih = agent
    fake_anthropic.script(text("Draft one"))
    sid = session_id_in(cli("run", str(path), "Write about focus").stdout)
    assert injected(location) == {"a1b2c3d4": 1, "e5f6a7b8": 1}

    # Between the rounds a rule is added and another quarantined: the revision must see both changes.
    with store.transaction(location) as doc:
        doc.learnings.append(Learning(id="0badf00d", title=ADDED, date="2026-01-22", src=Source.manual,
                                      ch=Channel.corrections, ih=ih))
        next(r for r in doc.learnings if r.id == "e5f6a7b8").state = State.quarantined

    fake_anthropic.script(text("Draft two"))
    cli("sessions", "resume", sid, "--comment", "Cite your sources")
    first, second = (r.body["system"] for r in fake_anthropic.requests)
    assert f"- [tip] {ADDED}" in second and f"- [tip] {FIRST}" in second and LEFT not in second
    assert second.count(RELEVANT_HEADING) == 1  # the section is replaced, not appended
    assert second.startswith(first.split(RELEVANT_HEADING)[0])  # the agent's own instructions as before

    session = find_session(sid)
    rounds = [e for e in session.events if e.type == "round_start"]
    assert [(r.round, r.injected, r.system) for r in rounds] == [(2, ["0badf00d", "a1b2c3d4"], second)]
    assert session.injected == ["0badf00d", "a1b2c3d4"]  # what is in force now, as `sessions show` reports
    # Counted once for the round, under the store lock; the quarantined rule was not sent, so not counted.
    assert injected(location) == {"a1b2c3d4": 2, "e5f6a7b8": 1, "0badf00d": 1}
    assert "round 2, 2 learning(s) injected" in cli("sessions", "show", sid).stdout

    # A third round with nothing changed sends the same system prompt, and counts again.
    fake_anthropic.script(text("Draft three"))
    cli("sessions", "resume", sid, "--comment", "Shorter, please")
    assert fake_anthropic.requests[2].body["system"] == second
    assert injected(location) == {"a1b2c3d4": 3, "e5f6a7b8": 1, "0badf00d": 2}

    # Approved after comments: no rule is credited `ok` (the reviewer had to correct something).
    cli("sessions", "resume", sid, "--approve")
    assert {r.id: r.ok for r in store.load(location).learnings} == {"a1b2c3d4": 0, "e5f6a7b8": 0, "0badf00d": 0}


def test_a_revision_with_a_broken_store_leaves_the_gate_unanswered(agent, cli, fake_anthropic):
    path, location, _ = agent
    fake_anthropic.script(text("Draft one"))
    sid = session_id_in(cli("run", str(path)).stdout)
    broken = location.store_path.read_text().replace("### [tip]", "### [bogus]", 1)
    location.store_path.write_text(broken)
    refused = cli("sessions", "resume", sid, "--comment", "Again", code=1)
    assert "unknown category 'bogus'" in refused.stderr and "fix the learnings file" in refused.stderr
    assert location.store_path.read_text() == broken
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.decisions == []
    assert len(fake_anthropic.requests) == 1


def test_an_uncommented_approval_credits_the_rules_of_the_round_it_approves(agent, cli, fake_anthropic):
    path, location, _ = agent
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(path)).stdout)
    cli("sessions", "resume", sid, "--approve")
    assert {r.id: (r.injected, r.ok) for r in store.load(location).learnings} == {
        "a1b2c3d4": (1, 1), "e5f6a7b8": (1, 1)}
