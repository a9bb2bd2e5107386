"""The effectiveness index as running totals (issue 18): a run's end costs O(1) (never a pass over every
session), an incrementally updated index equals one rebuilt from the logs, a session is folded in once,
and a reviewer's comment about what a rule says counts against that rule (not landing)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from agentuse.core import effectiveness, store
from agentuse.core.learning import Channel, Source
from agentuse.runtime import effectiveness as counting

from capture_support import current_ih, make_agent, rule, seed, stored
from reliability.sessions_support import UPLOAD_SIG, Run, invoke, stats_json

A, B, C = "aaaa0001", "bbbb0002", "cccc0003"


@pytest.fixture
def agent(tmp_path):
    path = make_agent(tmp_path / "blog")
    seed(path, [
        rule(A, "Save posts under posts/", src=Source.manual),
        rule(B, f"upload: {UPLOAD_SIG}", ch=Channel.tool_errors, tool="upload", sig=UPLOAD_SIG),
        rule(C, "Link the sources you cite"),
    ])
    return path


def index_text(agent) -> str:
    location = store.locate(agent)
    return effectiveness.index_path(location.project_dir, location.key).read_text()


def sid(n: int) -> str:
    return f"01K8ZEFF{n:018d}"


def test_the_index_holds_running_totals_not_a_digest_per_closed_session(agent, monkeypatch):
    # The in-force series behind the web chart is bounded: with 10 kept, 12 and 60 runs store as much.
    monkeypatch.setattr(effectiveness, "RECENT_RUNS", 10)
    for n in range(1, 13):
        Run(agent, sid(n), [A, C]).call("upload", "files.length remained 2").gate().decide("approve")
    small = json.loads(index_text(agent))
    for n in range(13, 61):
        Run(agent, sid(n), [A, C]).call("upload", "files.length remained 2").gate().decide("approve")
    large = json.loads(index_text(agent))
    assert large["open"] == {} and (small["runs"], large["runs"]) == (12, 60)
    # the same rules and failures: the same shape whatever the number of sessions, only the counts grew
    shape = lambda index: {k: sorted(v) if isinstance(v, dict) else None for k, v in index.items()}  # noqa: E731
    assert shape(small) == shape(large) and large["rules"][A]["latest"] == sid(60)
    assert [run for run, _ in large["recent"]] == [sid(n) for n in range(51, 61)]  # the latest 10, oldest first
    assert len(index_text(agent)) - len(json.dumps(small, separators=(",", ":"))) < 20


def test_an_incrementally_updated_index_equals_one_rebuilt_from_the_logs(agent):
    Run(agent, sid(1), [A, B]).call("upload", "files.length remained 0").call("upload").gate().decide("approve")
    Run(agent, sid(2), [A, B]).call("upload").gate().decide("approve", "Shorter intro")  # commented
    Run(agent, sid(3), [A]).gate().decide("reject")
    Run(agent, sid(4), [A, B], approval=False).call("read", "no such file").end("completed")  # no gate
    # two sessions open at once, closing in the other order
    early, late = Run(agent, sid(5), [A, C]).gate(), Run(agent, sid(6), [B, C]).gate()
    late.decide("approve", "Link the sources you cite, please")  # a comment about C
    early.decide("revise", "Fix the upload").round(2, [A, B]).call("upload", "files.length remained 1").gate() \
        .decide("approve")  # resumed: revised, then approved
    Run(agent, sid(7), [A, B]).gate()  # still awaiting review
    Run(agent, sid(8), [C], approval=False).end("failed")
    Run(agent, sid(9), [A, B, C]).call("upload", "files.length remained 5").gate().decide("reject", "Save it under posts/")
    incremental, counted = index_text(agent), stats_json(agent)
    assert stats_json(agent, "--rebuild") == counted
    assert index_text(agent) == incremental
    rules = {r["id"]: r for r in counted["rules"]}
    fields = ("runs", "approved", "commented", "rejected", "no_gate", "pending", "failed", "recurred", "commented_about")
    assert {i: tuple(r[f] for f in fields) for i, r in rules.items()} == {
        A: (7, 1, 2, 2, 1, 1, 0, None, 1),
        B: (7, 1, 3, 1, 1, 1, 0, 3, 0),
        C: (4, 0, 2, 1, 0, 0, 1, None, 1),
    }
    assert counted["runs"] == 9 and counted["reviewed"] == 6


def test_a_session_is_folded_into_the_totals_once(agent):
    run = Run(agent, sid(1), [A, B]).call("upload", "files.length remained 0").gate().decide("approve")
    once = index_text(agent)
    counting.count_session(run.log.path)  # a resume killed after counting, run again (runtime/approval._finish)
    assert index_text(agent) == once and stats_json(agent)["rules"][0]["runs"] == 1


def test_a_comment_about_what_a_rule_says_counts_against_that_rule(agent):
    Run(agent, sid(1), [A, C]).gate().decide("approve", "You forgot to link the sources you cite again")
    Run(agent, sid(2), [A, C]).gate().decide("approve", "Make the headline punchier")  # about neither
    Run(agent, sid(3), [A, C]).gate().decide("approve")
    found = stats_json(agent)
    rules = {r["id"]: r for r in found["rules"]}
    assert (rules[C]["commented_about"], rules[A]["commented_about"]) == (1, 0)
    assert found["not_landing"] == [C]
    listed = invoke("learnings", str(agent)).stdout
    assert "    in force 3 runs · 1 approved clean · 2 commented · commented on about it 1×\n" in listed
    assert "    in force 3 runs · 1 approved clean · 2 commented\n" in listed
    doctor = [line.strip() for line in invoke("doctor", str(agent)).stdout.splitlines()]
    assert any(line.startswith("1 rule(s) not landing:") and f"({C})" in line for line in doctor), doctor
    table = invoke("learnings", "stats", str(agent), "--sort", "commented_about").stdout.splitlines()
    assert table[1].split()[0] == C and "about it" in table[0]


def test_tidy_rewrites_a_rule_reviewers_commented_on_about_like_a_repeated_rule(agent):
    from agentuse.core.helper.offline import OfflineHelper
    from agentuse.flows.tidy import run_tidy

    location = store.locate(agent)
    doc = store.load(location)
    doc.learnings = [r.model_copy(update={"ih": current_ih(agent)}) for r in doc.learnings]
    store.save(location, doc)
    Run(agent, sid(1), [A, C]).gate().decide("approve", "Make the headline punchier")  # about neither rule
    assert run_tidy(agent, helper=OfflineHelper(), today=date(2026, 9, 1)).nothing
    Run(agent, sid(2), [A, C]).gate().decide("approve", "You forgot to link the sources you cite again")
    index = effectiveness.index_path(location.project_dir, location.key)
    index.write_text("{not json")  # the tidy-up rebuilds it from the logs, and says so, before it weighs anything
    result = run_tidy(agent, helper=OfflineHelper(), today=date(2026, 9, 1))
    assert result.notes == ["the effectiveness index of blog.agentuse could not be read: recounted it from the "
                            "session logs (2 run(s))"]
    assert result.counts.rewritten == 1, result
    assert [c.reason for c in result.changes if C in c.ids] == ["commented on about it on 1 run(s): the wording is "
                                                               "not landing"]
    # a model planning the tidy-up sees it on the rule, as it sees a repeat (re="1")
    from agentuse.core.helper.render import rule as shown
    from agentuse.core.tidy import new_state, rule_ref

    state = new_state(agent="blog", learnings=stored(agent), cap=15, current_ih=None, today=date(2026, 9, 1),
                      commented_about={C: 1})
    assert 'commented="1"' in shown(rule_ref(state, state.get(C))) and "commented=" not in shown(rule_ref(state, state.get(A)))
