"""Post-run capture through flows/capture.py, inline, with a scripted helper: channels, the one batched vet,
the verdict table, stamping, model faults at every model step, and the re-vet of stale/unhashed rules."""

from __future__ import annotations

import pytest
from capture_support import TODAY, UPLOAD_FAIL, current_ih, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, drafts, passing, permanent, transient, verdicts

from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Source, State
from agentuse.flows.capture import run_capture

CUSTOM_ONLY = """learning:
  capture:
    custom: Only capture rules about file paths and saving."""


def capture(agent, session, helper):
    return run_capture(agent=str(agent), session=str(session), helper=helper, today=TODAY)


@pytest.fixture
def agent(tmp_path):
    return make_agent(tmp_path / "p", CUSTOM_ONLY)


@pytest.mark.parametrize("learning", ["learning: true", "learning:\n  capture: {}", "learning:\n  capture: false"])
def test_no_automatic_channel_means_no_model_call(tmp_path, learning):
    agent = make_agent(tmp_path / "p", learning)
    helper = ScriptedHelper()
    report = capture(agent, make_session(agent, UPLOAD_FAIL), helper)
    assert helper.usage.calls == 0 and report.extracted == 0 and stored(agent) == []


def test_the_verdict_table_for_observations_in_one_vet_call(agent):
    helper = ScriptedHelper(
        extract=[drafts("Save posts under posts/ with a dated filename", "Start posts with a relatable hook",
                        "Never ask for review", "Retry uploads three times")],
        vet=[lambda r: verdicts(r, ("hook", "duplicate", "Start with a relatable hook"),
                                ("Never ask", "contradiction", "“Never publish without an approval gate”"),
                                ("Retry", "ungrounded", "the trace has no upload retry"))])
    session = make_session(agent, prompt="Write this week's post")
    report = capture(agent, session, helper)

    assert helper.count("extract") == 1 and helper.count("vet") == 1  # one vet call for the run's candidates
    assert len(helper.requests["vet"][0].candidates) == 4
    by_title = {r.title: r for r in stored(agent)}
    assert set(by_title) == {"Save posts under posts/ with a dated filename", "Never ask for review"}
    passed, held = by_title["Save posts under posts/ with a dated filename"], by_title["Never ask for review"]
    assert passed.state is State.active and held.state is State.quarantined
    assert held.why == 'contradicts the contract: "Never publish without an approval gate"'
    for rec in (passed, held):  # stamped: channel, session, evidence, instruction hash
        assert (rec.ch, rec.src, rec.sess, rec.ih) == (Channel.custom, Source.auto, session.stem, current_ih(agent))
        assert rec.evidence == "run prompt: \"Write this week's post\"" and rec.date == "2026-08-19"
    assert report.line.startswith("Extracted 2 learning(s), 1 quarantined → ")
    assert report.line.endswith("/learnings/blog.learnings.md")
    rejected = next(n for n in report.notes if "rejected by the vet" in n)
    assert 'duplicates the contract: "Start with a relatable hook"' in rejected
    assert "unsupported by the trace: the trace has no upload retry" in rejected


def test_the_evaluator_and_the_vet_see_the_whole_contract_and_the_rules_in_force(tmp_path):
    tail = "Never put two posts in one file."
    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    agent.write_text(agent.read_text() + "\n" + ("Padding that makes the contract long. " * 120) + "\n" + tail + "\n")
    ih = current_ih(agent)
    seed(agent, [rule("aaaa0001", "Use numbered lists", ih=ih), rule("aaaa0002", "Old rule", ih="0ldc0ntract0"),
                 rule("aaaa0003", "Held rule", ih=ih, state=State.quarantined, why="x")])
    helper = ScriptedHelper(extract=[drafts("Name files after the title")], vet=[passing, passing])
    capture(agent, make_session(agent), helper)  # the second vet call re-vets the stale rule
    [extract] = helper.requests["extract"]
    vet = helper.requests["vet"][0]
    assert extract.guidance == "Only capture rules about file paths and saving."
    assert len(extract.contract) > 3000 and tail in extract.contract and tail in vet.contract
    # stale and quarantined rules are not in force; the ones that are carry their ids
    assert [r.id for r in extract.rules_in_force] == [r.id for r in vet.rules_in_force] == ["aaaa0001"]


def test_the_vet_answers_are_read_strictly(agent):
    def answer(request):
        first, second = request.candidates
        return p.VetAnswer(verdicts=[
            p.VetVerdict(id="not-a-candidate", verdict="contradiction", detail="x"),  # unknown id: ignored
            p.VetVerdict(id=first.id, verdict="pass"),
            p.VetVerdict(id=first.id, verdict="contradiction", detail="late"),  # the first verdict wins
        ])  # nothing for the second candidate: an observation is not stored unvetted

    helper = ScriptedHelper(extract=[drafts("Save under posts/", "Name files by date")], vet=[answer])
    report = capture(agent, make_session(agent), helper)
    assert [(r.title, r.state) for r in stored(agent)] == [("Save under posts/", State.active)]
    assert "1 observation(s) dropped: the vet gave no verdict for them." in " ".join(report.notes)


# ---------------------------------------------------------------- model faults at every model step


def test_a_transient_vet_fault_is_retried_then_succeeds(agent):
    helper = ScriptedHelper(extract=[drafts("Save under posts/")], vet=[transient(), passing])
    report = capture(agent, make_session(agent), helper)
    assert helper.count("vet") == 2 and report.extracted == 1


@pytest.mark.parametrize("faults", [[permanent()], [transient()] * 4], ids=["permanent", "retries-exhausted"])
def test_a_failed_vet_drops_observations_and_keeps_structural_records(tmp_path, faults):
    agent = make_agent(tmp_path / "p")  # tool-errors + custom
    helper = ScriptedHelper(extract=[drafts("Save under posts/", "Name files by date")], vet=faults)
    report = capture(agent, make_session(agent, UPLOAD_FAIL), helper)
    assert helper.count("vet") == len(faults)  # a permanent fault is never retried
    assert [r.ch for r in stored(agent)] == [Channel.tool_errors]  # fails closed for free-form capture
    assert report.line.startswith("Extracted 1 learning(s), 0 quarantined")
    assert any("The vet call failed" in n and "2 observation(s) dropped" in n for n in report.notes)


def test_a_transient_extract_fault_is_retried(agent):
    helper = ScriptedHelper(extract=[transient("extract"), drafts("Save under posts/")], vet=[passing])
    capture(agent, make_session(agent), helper)
    assert helper.count("extract") == 2 and [r.title for r in stored(agent)] == ["Save under posts/"]


@pytest.mark.parametrize("faults", [[permanent("extract")], [transient("extract")] * 4],
                         ids=["permanent", "retries-exhausted"])
def test_a_failed_channel_yields_nothing_and_spares_the_others(tmp_path, faults):
    agent = make_agent(tmp_path / "p")
    helper = ScriptedHelper(extract=faults)
    report = capture(agent, make_session(agent, UPLOAD_FAIL), helper)
    assert helper.count("vet") == 0  # nothing free-form to vet
    assert [r.ch for r in stored(agent)] == [Channel.tool_errors]
    assert any(n.startswith("[Learning] The custom channel failed") for n in report.notes)


# ---------------------------------------------------------------- re-vet


def test_stale_and_unhashed_rules_are_re_vetted_after_the_write(agent):
    ih = current_ih(agent)
    seed(agent, [
        rule("aaaa0001", "Keep posts short", ih="0ldc0ntract0"),  # stale, still holds
        rule("aaaa0002", "Publish without review", ih=None, src=Source.manual, ch=Channel.corrections),  # unhashed
        rule("aaaa0003", "upload: boom", ih=None, ch=Channel.tool_errors, tool="upload", sig="boom"),
        rule("aaaa0004", "Fresh rule", ih=ih),
    ])
    helper = ScriptedHelper(extract=[drafts()], vet=[lambda r: verdicts(
        r, ("Publish", "contradiction", "Never publish without an approval gate"), ("short", "ungrounded", ""))])
    report = capture(agent, make_session(agent), helper)
    [revet] = helper.requests["vet"]  # extract found nothing, so the only vet call is the re-vet
    assert sorted(c.id for c in revet.candidates) == ["aaaa0001", "aaaa0002"]  # tool-errors need no model
    assert [r.id for r in revet.rules_in_force] == ["aaaa0003", "aaaa0004"]  # the re-stamped record is settled
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0001"].ih == ih and by_id["aaaa0001"].state is State.active  # re-stamped
    assert by_id["aaaa0003"].ih == ih  # backfilled without a model call
    held = by_id["aaaa0002"]
    assert held.state is State.quarantined and held.src is Source.manual  # a person's rule: kept, shown
    assert held.why == 'contradicts the contract: "Never publish without an approval gate"'
    assert report.notes == [  # stale and never-stamped rules counted apart (spec: no hash is not stale)
        "[Learning] Re-vetted 1 stale learning(s) against the current instructions: 1 re-stamped, 0 quarantined.",
        "[Learning] Backfilled 2 learning(s) that had no instruction hash: 1 stamped, 1 quarantined."]


def test_a_failed_re_vet_leaves_the_rules_as_they_were(agent):
    seed(agent, [rule("aaaa0001", "Keep posts short", ih="0ldc0ntract0"), rule("aaaa0002", "Legacy rule")])
    helper = ScriptedHelper(extract=[drafts()], vet=[permanent()])
    report = capture(agent, make_session(agent), helper)
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0001"].ih == "0ldc0ntract0" and by_id["aaaa0002"].ih is None
    assert all(r.state is State.active for r in by_id.values())
    assert any("could not be re-vetted" in n for n in report.notes)


def test_a_transient_re_vet_fault_is_retried_then_succeeds(agent):
    seed(agent, [rule("aaaa0001", "Keep posts short", ih="0ldc0ntract0")])
    helper = ScriptedHelper(extract=[drafts()], vet=[transient(), passing])
    capture(agent, make_session(agent), helper)
    assert helper.count("vet") == 2 and stored(agent)[0].ih == current_ih(agent)


def test_the_helper_is_built_only_when_a_step_asks_the_model(tmp_path, monkeypatch):
    """The flow resolves its helper from the agent file on the first model step (tasks/helpers.py): a
    capture that needs no model (tool-errors only, nothing to re-vet) never builds one, so it never
    imports a provider SDK nor announces the offline evaluator."""
    from agentuse.core.helper import factory

    built: list[str | None] = []
    monkeypatch.setattr(factory, "resolve_helper", lambda model, **kw: built.append(model) or ScriptedHelper())
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]")
    report = run_capture(agent, make_session(agent, UPLOAD_FAIL), today=TODAY)
    assert report.extracted == 1 and report.model_calls == 0 and built == []
