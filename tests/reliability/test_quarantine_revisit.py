"""Issue 12, item 7: quarantine is revisited. A quarantined rule whose reason no longer holds (the contract
changed since it was quarantined, or the rule it collided with left) is re-vetted by the next capture or
tidy: a pass releases it, a failure keeps it aside with the new reason, a failed vet leaves it as it was."""

from __future__ import annotations

from datetime import date

from capture_support import current_ih, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, drafts, permanent, verdicts
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import revet, tidy
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import override_helper
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.learning import Channel, Source, State
from agentuse.core.failure import Failure
from agentuse.flows.capture import run_capture

IH, OLD = "aaaaaaaaaaaa", "0ldc0ntract0"
TODAY = date(2026, 8, 19)
PUBLISH = "Publish drafts without review"
GATE_REASON = 'contradicts the contract: "Never publish without an approval gate"'
runner = CliRunner()


def state_of(*rules):
    return tidy.new_state(agent="blog", learnings=list(rules), cap=15, current_ih=IH, today=TODAY)


def held(rule_id, title, *, ih=IH, why=GATE_REASON, src=Source.manual):
    return rule(rule_id, title, src=src, ch=Channel.corrections, ih=ih, state=State.quarantined, why=why)


# ---------------------------------------------------------------- which rules are revisited


def test_a_quarantined_rule_is_revisited_only_when_its_reason_may_have_gone():
    s = state_of(
        held("q0000001", "Stamped against other instructions", ih=OLD),
        held("q0000002", "Quarantined before stamps existed", ih=None),
        held("q0000003", "Against a rule that left", why='contradicts the rule in force id:gone0001: "Review"'),
        held("q0000004", "Against a rule still here", why='duplicates the rule in force id:here0001: "Be brief"'),
        held("q0000005", "Against the current contract"),
        rule("here0001", "Be brief", ih=IH),
    )
    assert [r.id for r in revet.candidates(s)] == ["q0000001", "q0000002", "q0000003"]
    (request,) = revet.requests(s, "contract")
    assert [c.id for c in request.candidates] == ["q0000001", "q0000002", "q0000003"]
    assert all(c.human for c in request.candidates)
    assert [r.id for r in request.rules_in_force] == ["here0001"]  # the whole set in force, as for stale rules
    assert not s.unvetted  # quarantined rules are out of planning already


def test_a_pass_releases_a_failure_keeps_it_aside_with_the_new_reason_and_a_failed_vet_changes_nothing():
    s = state_of(held("q0000001", "Publish drafts", ih=OLD), held("q0000002", "Skip the hook", ih=OLD),
                 rule("keep0001", "Start with a relatable hook", ih=IH))
    (request,) = revet.requests(s, "# Blog\n- Write short posts\n")
    before = list(s.learnings)
    revet.apply(s, request, Failure(operation="vet", message="overloaded"))
    assert s.learnings == before and "could not be re-vetted" in s.notes[-1]

    revet.apply(s, request, p.VetAnswer(verdicts=[
        p.VetVerdict(id="q0000001", verdict="pass"),
        p.VetVerdict(id="q0000002", verdict="contradiction", detail="Start with a relatable hook",
                     against="keep0001")]))
    released, kept = s.get("q0000001"), s.get("q0000002")
    assert (released.state, released.why, released.ih) == (State.active, None, IH)
    assert (kept.state, kept.ih) == (State.quarantined, IH)
    assert kept.why == 'contradicts the rule in force id:keep0001: "Start with a relatable hook"'
    counts = s.counts()
    assert (counts.released, counts.requarantined, counts.quarantined) == (1, 1, 0)
    assert revet.candidates(s) == []  # not asked again until something changes


def test_capture_revisits_a_quarantined_rule_and_says_so(tmp_path):
    agent = make_agent(tmp_path / "p")
    seed(agent, [held("q0000001", PUBLISH, ih=OLD), held("q0000002", "Skip the hook", ih=OLD)])
    helper = ScriptedHelper(extract=[drafts()], vet=[lambda r: verdicts(
        r, ("hook", "contradiction", "Start with a relatable hook"))])
    report = run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["q0000001"].state is State.active and by_id["q0000001"].why is None
    assert by_id["q0000001"].ih == current_ih(agent)
    assert by_id["q0000002"].why == 'contradicts the contract: "Start with a relatable hook"'
    assert by_id["q0000002"].ih == current_ih(agent)
    assert ("[Learning] Revisited 2 quarantined learning(s) against the current instructions: "
            "1 released from quarantine, 1 still quarantined.") in report.notes


def test_a_failed_revisit_at_capture_leaves_the_quarantine_as_it_was(tmp_path):
    agent = make_agent(tmp_path / "p")
    seed(agent, [held("q0000001", PUBLISH, ih=OLD)])
    helper = ScriptedHelper(extract=[drafts()], vet=[permanent()])
    run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)
    [same] = stored(agent)
    assert (same.state, same.why, same.ih) == (State.quarantined, GATE_REASON, OLD)


# ---------------------------------------------------------------- through the CLI, with the offline evaluator


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_the_spec_example_correcting_the_agent_file_releases_the_rule_on_the_next_tidy(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    seed(agent, [held("q0000001", PUBLISH, ih=current_ih(agent))])
    with override_helper(OfflineHelper()):
        assert invoke("learnings", "tidy", agent).output == "Nothing to tidy up\n"  # the reason still holds
        agent.write_text(agent.read_text().replace("- Never publish without an approval gate\n", ""))
        plan = invoke("learnings", "tidy", agent, "--dry-run").output
        assert f'  release "{PUBLISH}" from quarantine — it passes the vet now' in plan
        result = invoke("learnings", "tidy", agent)
    assert result.exit_code == 0, result.output
    [released] = stored(agent)
    assert (released.state, released.why, released.ih) == (State.active, None, current_ih(agent))
    assert "  1 quarantined learning(s) re-vetted and released: they inject again." in result.output
    assert "Applied (1 of 1)" in invoke("learnings", agent).output


def test_a_rule_quarantined_against_a_rule_that_was_discarded_is_re_vetted(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    ih = current_ih(agent)
    seed(agent, [rule("b0000001", "Always cite two sources per claim", src=Source.manual, ch=Channel.corrections,
                      ih=ih),
                 held("q0000001", "Cite one source per claim", ih=ih,
                      why='contradicts the rule in force id:b0000001: "Always cite two sources per claim"')])
    with override_helper(OfflineHelper()):
        assert invoke("learnings", "tidy", agent).output == "Nothing to tidy up\n"
        assert invoke("learnings", "discard", agent, "b0000001").exit_code == 0
        result = invoke("learnings", "tidy", agent)
    assert result.exit_code == 0, result.output
    [released] = stored(agent)
    assert released.id == "q0000001" and released.state is State.active and released.why is None
