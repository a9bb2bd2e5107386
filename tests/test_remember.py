"""The deliberate human path through flows/remember.py: ground -> reconcile -> vet -> store, with the
spec's output lines, and a note never lost whichever model step faults."""

from __future__ import annotations

import pytest
from capture_support import TODAY, archived, make_agent, make_session, rule, seed, stored, current_ih
from fakes.scripted_helper import ScriptedHelper, passing, permanent, transient, verdicts

from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.flows.remember import run_remember

APPLIED = """learning:
  capture: true
  apply: true
  max: {max}"""


def grounded(title: str, body: str = "") -> p.GroundAnswer:
    return p.GroundAnswer(rule=p.Draft(title=title, body=body or title))


NEW = p.ReconcileAnswer(action=p.ReconcileAction.new)
CARRIED = p.AuditAnswer()  # the gate's audit: nothing the originals said is missing


def run(agent, text, helper, **kw):
    return run_remember(agent=str(agent), text=text, helper=helper, today=TODAY,
                            agent_arg="./blog.agentuse", **kw)


@pytest.fixture
def agent(tmp_path):
    return make_agent(tmp_path / "p", APPLIED.format(max=15))


def test_a_note_is_grounded_into_a_scoped_manual_correction(agent):
    session = make_session(agent, output="Tired of wasting mornings? This AMAZING system changes everything!")
    helper = ScriptedHelper(
        ground=[grounded("For informational posts, keep intros factual rather than promotional")],
        audit=[CARRIED], reconcile=[NEW], vet=[passing])
    result = run(agent, "this intro is too salesy", helper, session=str(session), label=session.stem,
                 reviewed_output="Tired of wasting mornings? This AMAZING system changes everything!")
    [saved] = stored(agent)
    assert saved.title == "For informational posts, keep intros factual rather than promotional"
    assert (saved.src, saved.ch, saved.state, saved.confidence) == (Source.manual, Channel.corrections,
                                                                    State.active, 1.0)
    assert saved.evidence == 'reviewer: "this intro is too salesy"'
    assert saved.ih == current_ih(agent) and saved.sess == session.stem
    assert result.lines == [f'[Learning] Saved "{saved.title}" (id:{saved.id})']
    # grounded in the reviewed work, and vetted against the run's trace as a human entry
    assert "AMAZING system" in helper.requests["ground"][0].reviewed_output
    # the gate's audit checked the grounded rule against the reviewer's words before it was stored
    assert [o.text for o in helper.requests["audit"][0].originals] == ["this intro is too salesy"]
    assert helper.requests["vet"][0].candidates[0].human is True


def test_a_restatement_or_contradiction_replaces_the_earlier_rule(agent):
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    merged = p.Draft(title="Always include source links before publishing")
    helper = ScriptedHelper(ground=[grounded("Always include source links before publishing")],
                            reconcile=[p.ReconcileAnswer(action="fold", replaces=["a1b2c3d4"], merged=merged)],
                            audit=[CARRIED, CARRIED], vet=[passing])
    result = run(agent, "Always include source links before publishing.", helper)
    assert result.lines[0] == '[Learning] Replaced an earlier rule: "Cite the source inline" (archived, id:a1b2c3d4)'
    [now] = stored(agent)
    assert now.title == "Always include source links before publishing" and now.src is Source.manual
    [old] = archived(agent)
    assert (old.id, old.state) == ("a1b2c3d4", State.retired)  # archived, not deleted
    assert helper.requests["vet"][0].candidates[0].text == "Always include source links before publishing"


def test_a_repeat_counts_on_the_rule_it_repeats(agent):
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(ground=[grounded("Cite sources inline")], audit=[CARRIED, CARRIED],
                            reconcile=[p.ReconcileAnswer(action="repeat", replaces=["a1b2c3d4"])])
    result = run(agent, "cite your sources inline!", helper)
    [again] = stored(agent)
    assert (again.id, again.re) == ("a1b2c3d4", 1)
    assert helper.count("vet") == 0  # nothing new to vet
    assert result.lines == ['[Learning] Repeated an earlier rule: "Cite the source inline" (re:1, id:a1b2c3d4)']


def test_a_collision_with_the_agent_file_is_saved_quarantined_with_the_spec_line(agent):
    seed(agent, [rule("a1b2c3d4", "Publish on Fridays", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Publish drafts without review")],
        reconcile=[p.ReconcileAnswer(action="fold", replaces=["a1b2c3d4"],
                                     merged=p.Draft(title="Publish drafts without review"))],
        audit=[CARRIED], vet=[lambda r: verdicts(r, ("Publish", "contradiction", "Never publish without an "
                                                                         "approval gate"))] * 2)
    result = run(agent, "just publish drafts without review", helper)
    # The merged wording failed the gate's vet, so nothing was folded; the note was then vetted on its own.
    assert helper.count("vet") == 2 and helper.count("audit") == 1  # the grounding audit; no fold audit
    assert result.lines == [
        '[Learning] Saved but quarantined "Publish drafts without review": contradicts the contract: '
        '"Never publish without an approval gate". It will not be injected; resolve the conflict in '
        "./blog.agentuse or discard the rule."]
    by_id = {r.id: r for r in stored(agent)}
    assert by_id.pop("a1b2c3d4").state is State.active  # a quarantined note takes nothing out of force
    [kept] = by_id.values()
    assert kept.state is State.quarantined and kept.src is Source.manual
    assert kept.why == 'contradicts the contract: "Never publish without an approval gate"'
    assert archived(agent) == []


def test_a_human_duplicate_is_quarantined_and_ungrounded_never_applies_to_a_person(agent):
    dup = ScriptedHelper(ground=[grounded("Start with a hook")], reconcile=[NEW], audit=[CARRIED],
                         vet=[lambda r: verdicts(r, ("hook", "duplicate", "Start with a relatable hook"))])
    run(agent, "start with a hook", dup)
    [kept] = stored(agent)
    assert kept.state is State.quarantined and kept.why == 'duplicates the contract: "Start with a relatable hook"'

    ungrounded = ScriptedHelper(ground=[grounded("Use British spelling")], reconcile=[NEW], audit=[CARRIED],
                                vet=[lambda r: verdicts(r, default="ungrounded")])
    run(agent, "british spelling please", ungrounded)
    assert {r.title: r.state for r in stored(agent)}["Use British spelling"] is State.active


def test_works_without_any_learning_config_and_says_it_is_not_applied(tmp_path):
    agent = make_agent(tmp_path / "bare", learning="")
    helper = ScriptedHelper(ground=[grounded("Keep intros factual")], reconcile=[NEW], vet=[passing],
                            audit=[CARRIED])
    result = run(agent, "too salesy", helper)
    assert [r.title for r in stored(agent)] == ["Keep intros factual"]
    assert result.lines[-1] == ("[Learning] It is stored, but reaches future runs only when learning.apply "
                                "is enabled.")


@pytest.mark.parametrize("faults, expect_title, expect_notes", [
    ({"ground": [permanent("ground")]}, "Always include source links", ["The ground call failed"]),
    ({"ground": [transient("ground"), grounded("Include source links")]}, "Include source links", []),
    ({"ground": [grounded("")]}, "Always include source links", ["the model returned an empty rule"]),
    ({"reconcile": [permanent("reconcile")]}, "Include source links", ["The reconcile call failed"]),
    ({"vet": [permanent("vet")]}, "Include source links", ["The vet call failed"]),
    ({"vet": [transient()] * 4}, "Include source links", ["The vet call failed"]),  # retries exhausted
    ({"ground": [permanent("ground")], "reconcile": [permanent("reconcile")], "vet": [permanent("vet")]},
     "Always include source links", ["The ground call failed", "The reconcile call failed", "The vet call failed"]),
])
def test_a_note_is_never_lost_whichever_model_step_faults(agent, faults, expect_title, expect_notes):
    helper = ScriptedHelper(**{"ground": [grounded("Include source links")], "reconcile": [NEW], "vet": [passing],
                               "audit": [CARRIED], **faults})
    result = run(agent, "Always include source links", helper)
    [saved] = stored(agent)
    assert (saved.title, saved.state, saved.src) == (expect_title, State.active, Source.manual)
    assert [n for n in expect_notes if not any(n in line for line in result.lines)] == []
    # Stamped with the instructions only when a vet judged it: a note stored because the vet failed was
    # checked against nothing, so it stays unstamped and the next capture or tidy-up vets it.
    assert saved.ih == (None if "vet" in faults else current_ih(agent))
    if faults.get("vet") == [transient()] * 4:
        assert helper.count("vet") == 4  # one call and three retries, then it fails open


def test_a_note_the_vet_could_not_judge_is_vetted_by_the_next_tidy_up(agent):
    from agentuse.flows.tidy import run_tidy

    helper = ScriptedHelper(ground=[grounded("Use emojis in every heading")], reconcile=[NEW], audit=[CARRIED],
                            vet=[permanent("vet")])
    run(agent, "use emojis in every heading", helper)
    assert [r.state for r in stored(agent)] == [State.active]  # human input fails open
    later = ScriptedHelper(vet=[lambda r: verdicts(r, ("emoji", "contradiction", "Never use emojis"))])
    run_tidy(agent, helper=later, today=TODAY)
    [kept] = stored(agent)
    assert later.count("vet") == 1
    assert (kept.state, kept.ih) == (State.quarantined, current_ih(agent))
    assert kept.why == 'contradicts the contract: "Never use emojis"'


def test_a_full_set_folds_trades_or_keeps_the_correction_outside_the_cap(tmp_path):
    agent = make_agent(tmp_path / "p", APPLIED.format(max=2))
    seed(agent, [rule("aaaa0001", "Use numbered lists", src=Source.manual, ch=Channel.corrections),
                 rule("aaaa0002", "Prefer short paragraphs", date_="2026-07-01")])
    helper = ScriptedHelper(ground=[grounded("Keep intros factual")], reconcile=[NEW], vet=[passing],
                            audit=[CARRIED])
    result = run(agent, "too salesy", helper)
    assert helper.requests["reconcile"][0].cap_full is True
    assert {r.title for r in stored(agent)} == {"Use numbered lists", "Keep intros factual"}  # traded
    assert [r.id for r in archived(agent)] == ["aaaa0002"]
    assert result.lines[1] == '[Learning] Retired "Prefer short paragraphs" to make room (archived, id:aaaa0002)'

    helper = ScriptedHelper(ground=[grounded("Cite sources")], reconcile=[NEW], vet=[passing], audit=[CARRIED])
    result = run(agent, "cite sources", helper)
    assert len([r for r in stored(agent) if r.state is State.active]) == 3  # kept, outside the cap
    # the newest correction ranks first, so the oldest one is the one left outside, and it is named
    assert ("1 correction(s) sit outside this agent's 2-rule limit and do NOT reach it "
            '("Use numbered lists" (id:aaaa0001))') in result.lines[-1]
    assert "agentuse learnings tidy ./blog.agentuse" in result.lines[-1]


def test_a_transient_reconcile_fault_is_retried_then_replaces(agent):
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    merged = p.Draft(title="Always include source links before publishing")
    helper = ScriptedHelper(ground=[grounded("Always include source links")], vet=[passing], audit=[CARRIED] * 2,
                            reconcile=[transient("reconcile"), p.ReconcileAnswer(action="fold", replaces=["a1b2c3d4"], merged=merged)])
    result = run(agent, "Always include source links", helper)
    assert helper.count("reconcile") == 2
    assert result.lines[0].startswith('[Learning] Replaced an earlier rule: "Cite the source inline"')


# ---------------------------------------------------------------- the dashboard artifact


def test_remember_publishes_a_markdown_artifact_of_what_was_saved_replaced_or_quarantined(agent, monkeypatch):
    from types import SimpleNamespace

    from agentuse.flows import artifacts

    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    merged = p.Draft(title="Always include source links before publishing")
    helper = ScriptedHelper(ground=[grounded("Always include source links")], audit=[CARRIED] * 3, vet=[
        passing, lambda r: verdicts(r, ("Publish", "contradiction", "Never publish without an approval gate"))],
        reconcile=[
        p.ReconcileAnswer(action="fold", replaces=["a1b2c3d4"], merged=merged), NEW])
    replaced = run(agent, "Always include source links", helper, label="01KSESSION")
    helper.script("ground", grounded("Publish drafts without review"))
    held = run(agent, "just publish drafts", helper)

    published = []
    monkeypatch.setattr(artifacts, "publish", lambda *args: published.append(args) or ["k"])
    from agentuse.flows.remember import remember_flow

    assert artifacts.remember_completed in remember_flow.on_completion  # only real flow runs publish
    for result, text, label in ((replaced, "Always include source links", "01KSESSION"),
                                (held, "just publish drafts", "manual")):
        run_ = SimpleNamespace(parameters={"agent": str(agent), "text": text, "label": label})
        artifacts.remember_completed(remember_flow, run_, SimpleNamespace(result=lambda r=result: r))
    (kind, agent_path, first, description), (_, _, second, held_description) = published
    assert (kind, agent_path) == ("remember", str(agent))
    saved = replaced.placed.record
    assert description == f'saved, replacing an earlier rule: "{saved.title}" (id:{saved.id})'
    assert first.startswith(f"# Remember: blog\n\n**{description}**\n\n- from: `01KSESSION`\n"
                            "- note: Always include source links\n")
    assert "- replaced: [tip] Cite the source inline `id:a1b2c3d4` (archived)" in first
    # the output lines, as the CLI printed them, escaped for the dashboard's markdown
    assert f"- {replaced.lines[0]}".replace("[Learning]", "\\[Learning\\]") in first
    assert held_description.startswith('quarantined: "Publish drafts without review"')
    assert '- quarantined: contradicts the contract: "Never publish without an approval gate"' in second


def test_a_grounded_rule_that_does_not_carry_the_note_is_not_stored_under_the_reviewers_name(agent):
    # Issue 12: `learnings add "Cite the primary source for every statistic."` was stored as "Skip the approval
    # gate / Publish every post immediately" (src:manual, confidence 1.00). The gate's audit (here the
    # embedded evaluator's) finds the note's instruction missing, so the note is stored as written.
    from agentuse.core.helper.offline import OfflineHelper

    helper = ScriptedHelper(ground=[grounded("Skip the approval gate", "Publish every post immediately")],
                            audit=[OfflineHelper().audit], reconcile=[NEW], vet=[passing])
    result = run(agent, "Cite the primary source for every statistic.", helper)
    [saved] = stored(agent)
    assert saved.text == "Cite the primary source for every statistic." and saved.src is Source.manual
    assert result.lines[0].startswith("[Learning] The grounded rule was not used (the new wording no longer "
                                      "carries")
    assert helper.requests["vet"][0].candidates[0].text == saved.text  # what is stored is what was vetted


def test_a_ten_megabyte_grounded_answer_is_an_invalid_answer(agent):
    helper = ScriptedHelper(ground=[grounded("Cite sources", "x" * 10_000_000)], reconcile=[NEW], vet=[passing])
    result = run(agent, "Cite sources before publishing", helper)
    [saved] = stored(agent)
    assert saved.text == "Cite sources before publishing"
    assert helper.count("audit") == 0  # turned down in code, before any model call
    assert "over the 800-character limit" in result.lines[0]


@pytest.mark.parametrize("answer", ["as written", "reworded"])
def test_a_note_over_the_limit_is_stored_as_written_and_the_line_is_about_the_note(agent, answer):
    long_note = ("Always cite the primary source before publishing. " * 20).strip()
    rule = grounded(long_note) if answer == "as written" else grounded("Cite sources", long_note.replace("Always ", ""))
    helper = ScriptedHelper(ground=[rule], reconcile=[NEW], vet=[passing], audit=[CARRIED])
    result = run(agent, long_note, helper)
    [saved] = stored(agent)
    assert long_note in saved.text  # a person's words are never dropped, however long
    assert result.lines[0].startswith(f"[Learning] The note is {len(long_note):,} characters, over the "
                                      "800-character limit for a rule")
    assert "the model's rule" not in result.lines[0]


@pytest.mark.parametrize("note, answer", [
    ("Retry the upload when latency > 2 s", "Retry the upload when latency < 2 s"),
    ("Keep the score >= 3 before publishing", "Keep the score <= 3 before publishing"),
    ("Offset dates by +2 days", "Offset dates by -2 days"),
    ("Use 1.5 line spacing", "Use 1,5 line spacing"),
], ids=["greater-less", "at-least-at-most", "plus-minus", "decimal-point"])
def test_a_grounded_rule_that_changes_only_symbols_is_audited_not_taken_for_the_note(agent, note, answer):
    """Case and a final full stop do not change a note; a comparison, a sign or a decimal point does. Such a
    wording is the model's, not the person's, so it goes through the audit before it is stored as theirs."""
    helper = ScriptedHelper(ground=[grounded(answer)], reconcile=[NEW], vet=[passing],
                            audit=[lambda r: p.AuditAnswer(missing=[p.Missing(id="note", what="the comparison")])])
    run(agent, note, helper)
    [saved] = stored(agent)
    assert helper.count("audit") == 1 and saved.text == note


def test_a_grounded_rule_that_only_recases_and_ends_the_note_costs_no_audit(agent):
    helper = ScriptedHelper(ground=[grounded("Always cite sources.")], reconcile=[NEW], vet=[passing])
    run(agent, "always cite sources", helper)
    [saved] = stored(agent)
    assert helper.count("audit") == 0 and saved.text == "Always cite sources."


# ---------------------------------------------------------------- review 20: a correction of a rule in force

def test_a_note_the_vet_finds_contradicting_a_rule_in_force_replaces_that_rule(agent):
    """Spec: a note that contradicts a rule the agent carries replaces it, and the run names what it replaced.
    When reconcile missed it (answered new) and the vet then found the contradiction with that rule, the
    correction was quarantined and the rule it corrects stayed in force: the reverse of what was asked."""
    seed(agent, [rule("a1b2c3d4", "Write posts in the first person", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Write posts in the third person")], reconcile=[NEW],
        vet=[lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=r.candidates[0].id, verdict="contradiction",
                                                          detail="Write posts in the first person",
                                                          against="a1b2c3d4")]),
             passing])
    result = run(agent, "Write posts in the third person.", helper)
    assert result.lines[:2] == [
        '[Learning] Replaced an earlier rule: "Write posts in the first person" (archived, id:a1b2c3d4)',
        f'[Learning] Saved "Write posts in the third person" (id:{stored(agent)[0].id})']
    [now] = stored(agent)
    assert (now.title, now.state, now.src) == ("Write posts in the third person", State.active, Source.manual)
    [old] = archived(agent)
    assert old.id == "a1b2c3d4"
    # Vetted again without the rule it replaces: against the contract and the other rules in force.
    assert [r.id for r in helper.requests["vet"][1].rules_in_force] == []


def test_a_note_contradicting_a_rule_and_the_contract_stays_quarantined_and_the_rule_in_force(agent):
    seed(agent, [rule("a1b2c3d4", "Publish after review", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Publish drafts without review")], reconcile=[NEW],
        vet=[lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=r.candidates[0].id, verdict="contradiction",
                                                          detail="Publish after review", against="a1b2c3d4")]),
             lambda r: verdicts(r, ("Publish", "contradiction", "Never publish without an approval gate"))])
    result = run(agent, "Publish drafts without review", helper)
    assert result.lines[0].startswith('[Learning] Saved but quarantined "Publish drafts without review": '
                                      'contradicts the contract: "Never publish without an approval gate"')
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["a1b2c3d4"].state is State.active and not archived(agent)


def test_a_note_the_vet_finds_restating_a_rule_in_force_counts_as_a_repeat_of_it(agent):
    """Spec: a note that restates a rule the agent carries is not filed beside it; a person saying it again
    is a repeat (re:), which is evidence for graduation. When reconcile missed it and the vet called it a
    duplicate of that rule, the note was quarantined and the repeat never counted."""
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Put the citation in the text itself")], audit=[CARRIED, CARRIED], reconcile=[NEW],
        vet=[lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=r.candidates[0].id, verdict="duplicate",
                                                          detail="Cite the source inline", against="a1b2c3d4")])])
    result = run(agent, "Put the citation in the text itself.", helper)
    assert result.lines == ['[Learning] Repeated an earlier rule: "Cite the source inline" (re:1, id:a1b2c3d4)']
    [again] = stored(agent)
    assert (again.id, again.re, again.state) == ("a1b2c3d4", 1, State.active)
    assert helper.count("vet") == 1


# ---------------------------------------------------------------- review 21: what a vet's verdict may take out

def vet_names(verdict: str, detail: str, against: str = "a1b2c3d4"):
    """A vet answer calling the note a `verdict` of the rule `against`, quoting `detail`."""
    return lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=r.candidates[0].id, verdict=verdict, detail=detail,
                                                        against=against)])


def test_a_note_the_vet_calls_a_restatement_is_not_dropped_unless_the_rule_carries_it(agent):
    """A vet's duplicate counted as a repeat stores nothing of the note: only reconcile's repeat had to show
    the rule carries the note (the gate's audit). A restatement the vet called, whose rule does not carry what
    the note adds, was counted and the person's words were stored nowhere; it stays quarantined, shown with
    the rule it was taken to repeat (spec: a human duplicate is quarantined, never dropped)."""
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    not_carried = p.AuditAnswer(missing=[p.Missing(id="note", what="the page number with every citation")])
    helper = ScriptedHelper(
        ground=[grounded("Cite the source inline with its page number")], audit=[CARRIED, not_carried],
        reconcile=[NEW], vet=[vet_names("duplicate", "Cite the source inline")])
    result = run(agent, "Cite the source inline, with its page number.", helper)
    by_id = {r.id: r for r in stored(agent)}
    assert (by_id.pop("a1b2c3d4").re, helper.count("audit")) == (0, 2)
    [kept] = by_id.values()
    assert (kept.title, kept.state) == ("Cite the source inline with its page number", State.quarantined)
    assert kept.why == 'duplicates the rule in force id:a1b2c3d4: "Cite the source inline"'
    assert result.lines[0].startswith('[Learning] Saved but quarantined "Cite the source inline with its page number"')


def test_a_note_contradicting_one_instruction_of_a_rule_does_not_take_the_rest_of_it_out_of_force(agent):
    """The vet names the sentence a note contradicts; replacing the whole rule with the note took every other
    instruction of that rule out of force, under a line naming only its title. Found with the offline
    evaluator (reconcile reads the rule whole and calls it new, the vet reads it sentence by sentence): 'Keep
    intros under 100 words' archived a person's 'Cite sources inline. Keep intros under 50 words.', and
    'cite sources inline' reached no run. The note now replaces the sentence it corrects, and the rest of the
    rule goes on with it (spec, Fold: one rule that satisfies both), vetted so."""
    from agentuse.core.helper.offline import OfflineHelper

    seed(agent, [Learning(id="a1b2c3d4", title="Cite sources inline", body="Cite sources inline. Keep intros "
                          "under 50 words.", date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    result = run(agent, "Keep intros under 100 words.", OfflineHelper())
    assert result.lines[0] == '[Learning] Replaced an earlier rule: "Cite sources inline" (archived, id:a1b2c3d4)'
    [now] = stored(agent)
    assert (now.text, now.state, now.src) == ("Keep intros under 100 words\nCite sources inline.", State.active,
                                              Source.manual)
    assert [r.id for r in archived(agent)] == ["a1b2c3d4"]


def test_a_correction_whose_rest_of_the_rule_fails_the_vet_stays_quarantined_with_the_rule_in_force(agent):
    """The note with the rest of the rule is vetted again; failing, the note alone is quarantined naming the
    rule it contradicts (never the merged words, which are not what the person wrote), and the rule stays."""
    seed(agent, [Learning(id="a1b2c3d4", title="Use the first person", body="Write posts in the first person. "
                          "Publish without review.", date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Write posts in the third person")], reconcile=[NEW],
        vet=[vet_names("contradiction", "Write posts in the first person"),
             lambda r: verdicts(r, ("Publish", "contradiction", "Never publish without an approval gate"))])
    result = run(agent, "Write posts in the third person.", helper)
    assert [c.text for c in helper.requests["vet"][1].candidates] == [
        "Write posts in the third person\nPublish without review."]
    by_id = {r.id: r for r in stored(agent)}
    assert by_id.pop("a1b2c3d4").state is State.active and archived(agent) == []
    [kept] = by_id.values()
    assert (kept.text, kept.state) == ("Write posts in the third person", State.quarantined)
    assert kept.why == 'contradicts the rule in force id:a1b2c3d4: "Write posts in the first person"'
    assert result.lines[0].startswith('[Learning] Saved but quarantined "Write posts in the third person"')


def test_a_note_contradicting_a_rule_titled_by_its_instruction_still_replaces_it(agent):
    """The rule is one instruction under a title that names it: the correction replaces it whole."""
    seed(agent, [Learning(id="a1b2c3d4", title="Use the first person", body="Write posts in the first person.",
                          date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(
        ground=[grounded("Write posts in the third person")], reconcile=[NEW],
        vet=[vet_names("contradiction", "Write posts in the first person"), passing])
    result = run(agent, "Write posts in the third person.", helper)
    assert result.lines[0] == '[Learning] Replaced an earlier rule: "Use the first person" (archived, id:a1b2c3d4)'
    assert [r.id for r in archived(agent)] == ["a1b2c3d4"]


def test_a_correction_folded_into_a_rule_of_two_instructions_keeps_the_one_it_does_not_correct(agent):
    """Spec (Fold): a learning that contradicts a rule comes back as one rule that satisfies both, naming the
    rule it replaces. The offline evaluator's fold was the note alone: 'Keep the gate open until 10 minutes
    before departure' archived a person's 'Close the gate 15 minutes before departure. Announce every gate
    change twice.', and the announcements reached no run, under a line naming only the closing time. Over the
    2,995 pairs of tests/data with a second instruction added to the rule, 623 notes replaced the rule and
    every one of them took that instruction out of force (548 contradictions, 25 near-misses, 50 duplicates)."""
    from agentuse.core.helper.offline import OfflineHelper

    seed(agent, [Learning(id="a1b2c3d4", title="Close the gate 15 minutes before departure",
                          body="Close the gate 15 minutes before departure. Announce every gate change twice.",
                          date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    result = run(agent, "Keep the gate open until 10 minutes before departure.", OfflineHelper())
    assert result.lines[0] == ('[Learning] Replaced an earlier rule: "Close the gate 15 minutes before departure" '
                               '(archived, id:a1b2c3d4)')
    [now] = stored(agent)
    assert now.text == ("Keep the gate open until 10 minutes before departure\n"
                        "Announce every gate change twice.")
    assert now.state is State.active and now.src is Source.manual


def test_a_contradiction_quoting_only_a_rules_title_keeps_the_note_quarantined(agent):
    """A quote of the title alone does not say which sentence of the body it stands for: carrying the body on
    could keep the very instruction the note corrects beside it. The first verdict stands."""
    seed(agent, [Learning(id="a1b2c3d4", title="Voice", body="Write posts in the first person. Link sources.",
                          date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(ground=[grounded("Write posts in the third person")], reconcile=[NEW],
                            vet=[vet_names("contradiction", "Voice"), passing])
    result = run(agent, "Write posts in the third person.", helper)
    assert helper.count("vet") == 1 and archived(agent) == []
    assert result.lines[0].startswith('[Learning] Saved but quarantined "Write posts in the third person": '
                                      'contradicts the rule in force id:a1b2c3d4: "Voice"')
