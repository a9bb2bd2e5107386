"""The pure tidy logic: which moves code allows, what a rewrite and its audit may change, merged records."""

from __future__ import annotations

from datetime import date

from agentuse.core import gate, tidy
from agentuse.core.grouping import make_groups
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.failure import Failure

TODAY = date(2026, 11, 30)
IH = "aaaaaaaaaaaa"


def rule(rid: str, title: str, **kw) -> Learning:
    kw.setdefault("date", "2026-06-01")
    kw.setdefault("ih", IH)
    return Learning(id=rid, title=title, body=kw.pop("body", ""), **kw)


def state_of(*rules: Learning, cap: int = 15) -> tidy.TidyState:
    return tidy.new_state(agent="blog", learnings=list(rules), cap=cap, current_ih=IH, today=TODAY)


def one_group(state: tidy.TidyState) -> list[tidy.Group]:
    return [tidy.Group(agent="blog", pass_no=1, index=1, rules=[tidy.ref(r) for r in state.in_force()])]


def moves_of(state, *moves: p.Move, groups=None) -> list[p.Move]:
    groups = groups or one_group(state)
    return tidy.accept_moves(state, groups, [p.PlanAnswer(moves=list(moves))] + [p.PlanAnswer()] * (len(groups) - 1))


def test_unknown_ids_are_ignored_and_each_id_is_in_at_most_one_move():
    s = state_of(rule("r1", "Keep intros short"), rule("r2", "Short intros"), rule("r3", "Brief intros"))
    accepted = moves_of(
        s,
        p.Move(kind="merge", ids=["r1", "r2", "nope"]),
        p.Move(kind="merge", ids=["r2", "r3"]),  # r2 already taken: only r3 left, not a merge
        p.Move(kind="retire", ids=["r3"], superseded_by="r1"),
    )
    assert [(m.kind.value, m.ids) for m in accepted] == [("merge", ["r1", "r2"]), ("retire", ["r3"])]


def test_an_id_claimed_in_one_group_is_not_claimable_in_another():
    s = state_of(rule("r1", "A"), rule("r2", "B"), rule("r3", "C"))
    g1 = tidy.Group(agent="blog", pass_no=1, index=1, rules=[tidy.ref(s.get("r1")), tidy.ref(s.get("r2"))])
    g2 = tidy.Group(agent="blog", pass_no=1, index=2, rules=[tidy.ref(s.get("r2")), tidy.ref(s.get("r3"))])
    accepted = tidy.accept_moves(s, [g1, g2], [p.PlanAnswer(moves=[p.Move(kind="merge", ids=["r1", "r2"])]),
                                               p.PlanAnswer(moves=[p.Move(kind="merge", ids=["r2", "r3"])])])
    assert [m.ids for m in accepted] == [["r1", "r2"]]


def test_retire_limits_repeated_young_and_unsupported():
    s = state_of(rule("keep", "Newer rule"), rule("rep", "Repeated", re=1), rule("young", "Young", date="2026-11-20"),
                 rule("old", "Old"), rule("gone", "Relies on a retired rule"))
    accepted = moves_of(
        s,
        p.Move(kind="retire", ids=["rep", "young", "old"], superseded_by="keep"),
        p.Move(kind="retire", ids=["gone"], superseded_by="old"),  # "old" is being retired: refused
        p.Move(kind="retire", ids=["keep"], superseded_by="missing"),  # not in the group
    )
    assert [(m.ids, m.superseded_by) for m in accepted] == [(["old"], "keep")]


def test_a_rule_others_rely_on_is_not_retired_later_in_the_pass():
    s = state_of(rule("a", "A"), rule("b", "B"), rule("c", "C"))
    accepted = moves_of(s, p.Move(kind="retire", ids=["b"], superseded_by="a"),
                        p.Move(kind="retire", ids=["a"], superseded_by="c"))
    assert [m.ids for m in accepted] == [["b"]]


def test_rewrite_needs_a_repeat_and_compress_needs_length():
    long_body = " ".join(["word"] * 210)
    s = state_of(rule("r", "Repeated", re=2), rule("plain", "Plain"), rule("long", "Long", body=long_body),
                 rule("short", "Short"))
    accepted = moves_of(s, p.Move(kind="rewrite", ids=["r"]), p.Move(kind="rewrite", ids=["plain"]),
                        p.Move(kind="compress", ids=["long"]), p.Move(kind="compress", ids=["short"]))
    assert [(m.kind.value, m.ids) for m in accepted] == [("rewrite", ["r"]), ("compress", ["long"])]


def test_tool_errors_records_never_reach_the_free_text_path():
    s = state_of(rule("t1", "write_file: x", ch=Channel.tool_errors, tool="write_file", sig="x"),
                 rule("t2", "write_file: y", ch=Channel.tool_errors, tool="write_file", sig="y"),
                 rule("a", "Keep intros short"), rule("b", "Keep intros brief"), cap=1)
    groups = tidy.make_groups(s, 1)
    assert {r.id for g in groups for r in g.rules} == {"a", "b"}


def test_a_group_that_cannot_be_planned_is_noted_and_the_others_proceed():
    s = state_of(rule("a", "A"), rule("b", "B"), rule("c", "C"), rule("d", "D"))
    g1 = tidy.Group(agent="blog", pass_no=1, index=1, rules=[tidy.ref(s.get("a")), tidy.ref(s.get("b"))])
    g2 = tidy.Group(agent="blog", pass_no=1, index=2, rules=[tidy.ref(s.get("c")), tidy.ref(s.get("d"))])
    accepted = tidy.accept_moves(s, [g1, g2], [Failure(operation="plan_groups", message="invalid answer"),
                                               p.PlanAnswer(moves=[p.Move(kind="merge", ids=["c", "d"])])])
    assert [m.ids for m in accepted] == [["c", "d"]]
    assert s.unplanned == {"a", "b"}
    assert "could not be planned" in s.notes[0]


def _merge_job(s, ids):
    return tidy.jobs_for(s, [p.Move(kind="merge", ids=ids, reason="near-duplicates")], 1)[0]


DRAFT = p.Draft(category="tip", title="Keep intros under 40 words", body="Except for tutorials, keep intros short.")


def gated(replacements, audits, verdict="pass"):
    """The gate's decisions for the replacements: one vet answer for all of them, then their audits."""
    proposals = tidy.proposals(replacements)
    vet = p.VetAnswer(verdicts=[p.VetVerdict(id=x.key, verdict=verdict) for x in proposals])
    return gate.decide(proposals, vet, audits)


def test_originals_a_rewrite_leaves_out_stay_as_they_are():
    s = state_of(rule("a", "Short intros"), rule("b", "Brief intros"), rule("c", "Intros: one paragraph"))
    job = _merge_job(s, ["a", "b", "c"])
    answer = p.RewriteAnswer(rule=DRAFT, covers=["a", "b"], dropped=[p.Dropped(id="c", reason="different scope")])
    replacement = tidy.accept_replacement(s, job, answer)
    assert replacement.covers == ["a", "b"]
    tidy.apply_pass(s, 1, [job.move], [replacement], gated([replacement], [p.AuditAnswer()]))
    assert s.get("c").title == "Intros: one paragraph"
    assert not s.has("a") and not s.has("b")


def test_a_rewrite_that_claims_nothing_or_is_too_long_is_discarded():
    s = state_of(rule("a", "Short intros"), rule("b", "Brief intros"))
    job = _merge_job(s, ["a", "b"])
    assert tidy.accept_replacement(s, job, p.RewriteAnswer(rule=DRAFT, covers=["zzz"])) is None
    long = p.Draft(title="x", body="y" * 900)
    assert tidy.accept_replacement(s, job, p.RewriteAnswer(rule=long, covers=["a", "b"])) is None
    assert len(s.notes) == 2 and all("discarded" in n for n in s.notes)


def test_an_audit_that_reports_a_missing_exception_restores_exactly_those_originals():
    originals = [rule("a", "Short intros", body="Keep intros under 40 words."),
                 rule("b", "Brief intros", body="Keep intros brief, except in tutorials, where setup comes first."),
                 rule("c", "Intro length", body="Intros are one paragraph.")]
    s = state_of(*originals)
    job = _merge_job(s, ["a", "b", "c"])
    replacement = tidy.accept_replacement(s, job, p.RewriteAnswer(rule=DRAFT, covers=["a", "b", "c"]))
    audit = p.AuditAnswer(missing=[p.Missing(id="b", what='the exception "except in tutorials"')])
    tidy.apply_pass(s, 1, [job.move], [replacement], gated([replacement], [audit]))

    assert s.get("b") == originals[1]  # put back untouched
    assert not s.has("a") and not s.has("c")  # the rest of the rewrite still applies
    merged = [r for r in s.in_force() if r.id not in {"a", "b", "c"}]
    assert len(merged) == 1 and merged[0].title == DRAFT.title
    restored = [c for c in s.changes if c.kind == "restored"]
    assert [(c.ids, c.reason) for c in restored] == [(["b"], 'the exception "except in tutorials"')]


def test_a_failed_audit_keeps_every_original():
    s = state_of(rule("a", "Short intros"), rule("b", "Brief intros"))
    job = _merge_job(s, ["a", "b"])
    replacement = tidy.accept_replacement(s, job, p.RewriteAnswer(rule=DRAFT, covers=["a", "b"]))
    tidy.apply_pass(s, 1, [job.move], [replacement],
                    gated([replacement], [Failure(operation="audit", message="overloaded")]))
    assert {r.id for r in s.in_force()} == {"a", "b"}


def test_a_rewrite_that_fails_the_vet_keeps_every_original():
    # A merged wording that contradicts the contract or a rule that stays in force replaces nothing.
    s = state_of(rule("a", "Short intros"), rule("b", "Brief intros"))
    job = _merge_job(s, ["a", "b"])
    replacement = tidy.accept_replacement(s, job, p.RewriteAnswer(rule=DRAFT, covers=["a", "b"]))
    tidy.apply_pass(s, 1, [job.move], [replacement], gated([replacement], [None], verdict="contradiction"))
    assert {r.id for r in s.in_force()} == {"a", "b"} and s.archived == []
    assert "not applied: the new wording failed the vet (contradiction)" in s.notes[-1]


def test_merged_record_takes_the_strongest_source_and_the_evidence_of_all():
    # Texts the merged DRAFT carries: a person's rule it shares no term with would not leave (the gate).
    s = state_of(rule("a", "Keep intros short", src=Source.auto, confidence=0.7, injected=9, ok=1, re=1,
                      date="2026-05-01"),
                 rule("b", "Keep intros under 40 words", src=Source.manual, ch=Channel.corrections, confidence=0.9,
                      injected=2, ok=2, re=2, date="2026-04-01"),
                 rule("c", "Keep intros short, except for tutorials", src=Source.approval, injected=4,
                      date="2026-06-01"))
    job = _merge_job(s, ["a", "b", "c"])
    replacement = tidy.accept_replacement(s, job, p.RewriteAnswer(rule=DRAFT, covers=["a", "b", "c"]))
    tidy.apply_pass(s, 1, [job.move], [replacement], gated([replacement], [p.AuditAnswer()]))
    (merged,) = s.in_force()
    assert (merged.src, merged.ch, merged.confidence, merged.injected, merged.ok, merged.re) == \
        (Source.manual, Channel.corrections, 0.9, 9, 2, 3)
    assert merged.date == "2026-06-01" and merged.ih == IH and merged.state is State.active
    assert [a.learning.id for a in s.archived] == ["a", "b", "c"]
    assert all(a.reason == f"merged into {merged.id}" for a in s.archived)


def test_groups_keep_near_duplicates_together_and_are_balanced():
    texts = [f"Give each tip a time estimate in minutes variant {i}" for i in range(8)] + \
            [f"Keep paragraphs short for phone readers variant {i}" for i in range(8)] + \
            [f"Unrelated rule number {i} about {w}" for i, w in enumerate("titles emoji links voice".split())]
    groups = make_groups(texts, size=10)
    assert sorted(len(g) for g in groups) == [10, 10]
    for members in groups:
        kinds = {texts[i].split()[0] for i in members if not texts[i].startswith("Unrelated")}
        assert len(kinds) == 1  # each cluster landed whole in one group


def test_re_vet_restamps_what_holds_quarantines_what_does_not_and_leaves_the_unjudged_alone():
    from agentuse.core import revet

    contract = "# Blog Writer\n\n- Include 3 actionable tips\n"
    s = tidy.new_state(agent="blog", cap=15, current_ih=IH, today=TODAY, learnings=[
        rule("stale", "Cite sources", ih="oldoldoldold"), rule("bare", "Five tips per post", ih=None),
        rule("fresh", "Keep intros short"), rule("mech", "write_file: x", ih="oldoldoldold", ch=Channel.tool_errors),
    ])
    revet.restamp_structural(s)
    assert s.get("mech").ih == IH  # mechanics, not policy: no model vet
    (request,) = revet.requests(s, contract)
    assert [c.id for c in request.candidates] == ["stale", "bare"]
    assert [r.id for r in request.rules_in_force] == ["fresh", "mech"]

    revet.apply(s, request, p.VetAnswer(verdicts=[
        p.VetVerdict(id="stale", verdict="pass"),
        p.VetVerdict(id="bare", verdict="contradiction", detail="Include 3 actionable tips"),
        p.VetVerdict(id="bare", verdict="pass"),  # the first verdict per id wins
        p.VetVerdict(id="nope", verdict="pass"),  # unknown ids are ignored
    ]))
    assert s.get("stale").ih == IH and s.get("stale").state is State.active
    assert s.get("bare").state is State.quarantined
    assert s.get("bare").why == 'contradicts the contract: "Include 3 actionable tips"'


def test_a_failed_re_vet_keeps_stale_rules_held_out_and_out_of_planning():
    from agentuse.core import revet

    s = tidy.new_state(agent="blog", cap=1, current_ih=IH, today=TODAY, learnings=[
        rule("stale", "Cite sources", ih="oldoldoldold"), rule("bare", "Cite sources always", ih=None),
        rule("a", "Keep intros short"), rule("b", "Keep intros brief")])
    (request,) = revet.requests(s, "contract")
    revet.apply(s, request, Failure(operation="vet", message="overloaded"))
    assert s.get("stale").ih == "oldoldoldold" and s.get("bare").ih is None
    assert {r.id for r in tidy.plannable(s)} == {"a", "b"}
    assert "could not be re-vetted" in s.notes[0]
