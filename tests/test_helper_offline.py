"""The embedded offline evaluator: every operation, deterministic, conservative, honest."""

from __future__ import annotations

import pytest

from agentuse.core.helper import protocol as p
from agentuse.core.helper.offline import OfflineHelper, contract_units
from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.render import OPERATIONS
from agentuse.core.learning import RULE_CHAR_LIMIT, Category, Verdict
from helper_cases import ANSWER_TYPES, CONTRACT, RULES, TRACE, call


@pytest.fixture
def helper():
    return OfflineHelper()


def rule(id_: str, text: str, **kw) -> p.RuleRef:
    return p.RuleRef(id=id_, text=text, **kw)


def test_is_a_helper(helper):
    assert isinstance(helper, p.Helper) and helper.name == "offline"


@pytest.mark.parametrize("operation", OPERATIONS)
def test_every_operation_answers_valid_and_deterministic(helper, operation):
    first, second = call(helper, operation), call(OfflineHelper(), operation)
    assert isinstance(first, ANSWER_TYPES[operation])
    assert ANSWER_TYPES[operation].model_validate(first.model_dump()) == first
    assert first == second
    assert helper.usage == p.HelperUsage(calls=1)  # counted, no tokens spent


# --- the pairwise judgement --------------------------------------------------------------------------


@pytest.mark.parametrize("a, b, label", [
    ("Always include source links before publishing.",
     "Before a post is published, make sure it links to every source it used.", Label.duplicate),
    ("Retry a failed upload at most 3 times.", "Do not retry a failed upload more than three times.", Label.duplicate),
    ("Never publish without an approval gate.", "Publishing always requires an approval gate first.", Label.duplicate),
    # differ only in a number, a date, a qualifier or an exception: never duplicates
    ("Include 3 actionable tips in every post.", "Include 5 actionable tips in every post.", Label.contradiction),
    ("Set the release deadline to 2026-09-01.", "Set the release deadline to 2026-10-01.", Label.contradiction),
    ("Use type hints on all Python functions.", "Use type hints on all public Python functions.", Label.near_miss),
    ("Always cite sources.", "Always cite sources, except in opinion pieces.", Label.near_miss),
    ("Use emojis in social media posts.", "Avoid emojis in social media posts.", Label.contradiction),
    ("Always run migrations before deploying.", "Run migrations only after deploying.", Label.contradiction),
    ("Use tabs for indentation.", "Use spaces for indentation, never tabs.", Label.contradiction),
    ("Use headless mode when running the browser.", "Close the browser context at the end of each task.",
     Label.unrelated),
])
def test_compare(a, b, label):
    assert compare(a, b).label is label
    assert compare(b, a).label is label  # symmetric



@pytest.mark.parametrize("a, b", [
    ("Send the weekly report every Friday.", "The weekly report goes out every Friday."),
    ("Never commit credentials to the repository.", "Do not check your credentials into the repo."),
    ("Summarize the meeting notes in three bullets.", "Give a summary of the meeting notes in three bullets."),
    ("Notify the on-call engineer when a deploy fails.", "When a deployment fails, alert the on-call engineer."),
    ("Reviewers must approve every merge request.", "Every pull request needs approval from a reviewer."),
    ("Deduplicate the contact list before each import.",
     "Before each import, remove duplicate contacts from the list."),
    ("Give each section of the report a heading.", "Use headings for every report section."),
])
def test_compare_reads_common_paraphrases_as_duplicates(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a, b, label", [
    ("Send the weekly report every Friday.", "Send the weekly report every Friday to the whole team.", Label.near_miss),
    ("Notify the on-call engineer when a deploy fails.",
     "Notify the on-call engineer when a production deploy fails.", Label.near_miss),
    ("Check the logs into the archive.", "Commit the logs to the repository.", Label.unrelated),
])
def test_paraphrase_knowledge_keeps_cases_apart(a, b, label):
    assert compare(a, b).label is label


@pytest.mark.parametrize("words", [("headings", "heading", "head"), ("relatable", "relate"), ("variables", "variable"),
                                   ("replies", "reply"), ("deployment", "deploy"), ("approval", "approve"),
                                   ("wrote", "write", "written")])
def test_stem_joins_forms_of_one_word(words):
    from agentuse.core.helper.similarity import stem

    assert len({stem(w) for w in words}) == 1


@pytest.mark.parametrize("a, b", [("statement", "state"), ("table", "tab"), ("comment", "come"), ("apply", "app")])
def test_stem_keeps_different_words_apart(a, b):
    from agentuse.core.helper.similarity import stem

    assert stem(a) != stem(b)

# --- vet ------------------------------------------------------------------------------------------------


def test_vet_verdicts(helper):
    answer = helper.vet(p.VetRequest(contract=CONTRACT, rules_in_force=RULES, trace=TRACE, candidates=[
        p.VetCandidate(id="c1", text="Include 5 actionable tips."),
        p.VetCandidate(id="c2", text="Before a post is published, link every source it used."),
        p.VetCandidate(id="c3", text="Deploy the Kubernetes operator with Helm charts."),
        p.VetCandidate(id="c3", text="a second verdict for c3 is ignored"),
        p.VetCandidate(id="c4", text="Deploy the Kubernetes operator with Helm charts.", human=True),
        p.VetCandidate(id="c5", text="Name the file after the post title.", human=True),
    ]))
    by_id = {v.id: v for v in answer.verdicts}
    assert [v.id for v in answer.verdicts] == ["c1", "c2", "c3", "c4", "c5"]
    assert by_id["c1"].verdict is Verdict.contradiction
    assert by_id["c1"].detail == "Include 3 actionable tips" and by_id["c1"].against == "contract"
    assert by_id["c2"].verdict is Verdict.duplicate and by_id["c2"].against in {"a1b2c3d4", "e5f6a7b8"}
    assert by_id["c3"].verdict is Verdict.ungrounded and '"kubernetes"' in by_id["c3"].detail
    assert by_id["c4"].verdict is Verdict.pass_  # a reviewer's correction is never ungrounded
    assert "lexical" in by_id["c5"].detail  # honest about what a pass from it means


def test_vet_sees_the_whole_contract(helper):
    filler = "\n".join(f"- Guideline {i}: keep paragraph {i} focused on one idea." for i in range(400))
    contract = CONTRACT + filler + "\n- A type name is not an item ID; never call store_get on one.\n"
    assert len(contract) > 20_000
    answer = helper.vet(p.VetRequest(contract=contract, trace=TRACE, candidates=[
        p.VetCandidate(id="c1", text="Call store_get on a type name.", human=True)]))
    [verdict] = answer.verdicts
    assert verdict.verdict is Verdict.contradiction
    assert verdict.detail == "A type name is not an item ID; never call store_get on one."


def test_vet_without_trace_does_not_claim_ungrounded(helper):
    answer = helper.vet(p.VetRequest(contract=CONTRACT, candidates=[p.VetCandidate(id="c1", text="Use Helm charts.")]))
    assert answer.verdicts[0].verdict is Verdict.pass_ and "no trace" in answer.verdicts[0].detail


CTA_CONTRACT = CONTRACT + "- End with a clear call-to-action\n- Cite sources before publishing\n"


@pytest.mark.parametrize("text", [
    "Do not end with a call-to-action.",
    "Skip the call-to-action.",
    "Omit the call-to-action on short posts.",  # narrowed, but the contract's "End with" has no case left out
    "Leave out the call-to-action.",
    "Never include a call-to-action.",
])
def test_vet_an_instruction_against_what_the_contract_asks_for_is_a_contradiction(helper, text):
    candidate = p.VetCandidate(id="c1", text=text, human=True)
    answer = helper.vet(p.VetRequest(contract=CTA_CONTRACT, candidates=[candidate]))
    [verdict] = answer.verdicts
    assert verdict.verdict is Verdict.contradiction, verdict
    assert (verdict.detail, verdict.against) == ("End with a clear call-to-action", "contract")


@pytest.mark.parametrize("a, b, label", [
    # against the object the other puts in, whatever verb each uses
    ("Skip the call-to-action.", "End every post with a clear call-to-action.", Label.contradiction),
    ("Remove the table of contents.", "Add a table of contents to long guides.", Label.contradiction),
    ("Exclude emojis from replies.", "Use emojis in every reply.", Label.contradiction),
    ("Do not start with a question.", "Start each post with a question.", Label.contradiction),
    # each for its own case, place or kind: both can hold
    ("Omit the call-to-action on short posts.", "End long posts with a call-to-action.", Label.near_miss),
    ("Never include code samples in the intro.", "Include code samples.", Label.near_miss),
    ("Do not end with a call-to-action.", "Include a call-to-action.", Label.near_miss),
    ("Do not start replies with a hook.", "Start every post with a hook.", Label.near_miss),
    ("Do not use clickbait titles.", "Use a clear title.", Label.near_miss),
    ("Avoid emojis in headlines.", "Use emojis sparingly.", Label.near_miss),
    ("Omit the call-to-action on short posts.", "End with a clear call-to-action unless the post is short.",
     Label.near_miss),
    # a different object after the same verbs
    ("Skip the summary.", "End every post with a clear call-to-action.", Label.unrelated),
    ("Omit the date on short posts.", "End every post with a call-to-action.", Label.unrelated),
])
def test_compare_an_instruction_against_its_object(a, b, label):
    assert compare(a, b).label is label
    assert compare(b, a).label is label


@pytest.mark.parametrize("a, b, label", [
    # against a manner of doing it, not the doing: the candidate still cites
    ("Never cite the source inline; put sources at the end.", "Cite sources before publishing.", Label.near_miss),
    ("Never cite sources inline.", "Cite sources before publishing.", Label.near_miss),
    ("Do not use tabs for indentation.", "Use spaces for indentation.", Label.near_miss),
    # against the doing itself
    ("Never cite sources.", "Cite sources before publishing.", Label.contradiction),
    ("Never cite the source inline; put sources at the end.", "Cite the source inline.", Label.contradiction),
    ("Do not include source links in published posts.", "Always include source links before publishing.",
     Label.contradiction),
])
def test_compare_tells_a_negated_manner_from_a_negated_action(a, b, label):
    assert compare(a, b).label is label
    assert compare(b, a).label is label


def test_vet_passes_a_rule_against_a_manner_the_contract_leaves_open(helper):
    answer = helper.vet(p.VetRequest(contract=CTA_CONTRACT, candidates=[
        p.VetCandidate(id="c1", text="Never cite the source inline; put sources at the end", human=True),
        p.VetCandidate(id="c2", text="Never cite sources.", human=True)]))
    by_id = {v.id: v for v in answer.verdicts}
    assert by_id["c1"].verdict is Verdict.pass_, by_id["c1"]
    assert by_id["c2"].verdict is Verdict.contradiction and by_id["c2"].detail == "Cite sources before publishing"


def test_contract_units_skip_frontmatter_headings_and_markers():
    units = contract_units(CONTRACT + "\n<!-- agentuse:learned -->\n## Learned Guidance\n- [tip] Cite sources\n"
                                      "<!-- /agentuse:learned -->\n")
    assert "Start with a relatable hook" in units and "Cite sources" in units
    assert not any(u.startswith(("model", "#", "<!--", "---")) for u in units)


# --- capture: extract, ground, reconcile --------------------------------------------------------------


def test_extract_keeps_stated_instructions_in_scope(helper):
    trace = TRACE + "reviewer: Never schedule posts on weekends.\nuser: Always cite the primary source for statistics.\n"
    answer = helper.extract(p.ExtractRequest(guidance="Only capture rules about sources and citations.",
                                             contract=CONTRACT, trace=trace))
    titles = [c.title for c in answer.candidates]
    assert titles == ["Always include source links before publishing",
                      "Always cite the primary source for statistics"]
    assert len(answer.candidates) <= 5


def test_extract_skips_what_the_contract_or_rules_already_say(helper):
    answer = helper.extract(p.ExtractRequest(guidance="", contract=CONTRACT, rules_in_force=RULES[:1], trace=TRACE))
    assert answer.candidates == []


@pytest.mark.parametrize("comment, rule_text", [
    ("This intro is too salesy.", "Do not make the intro too salesy."),
    ("Please always include source links before publishing", "Always include source links before publishing."),
    ("the summary is missing a call to action", "Include a call to action in the summary."),
])
def test_ground_keeps_the_reviewers_words(helper, comment, rule_text):
    answer = helper.ground(p.GroundRequest(comment=comment, reviewed_output="# Inbox zero\nBuy now!"))
    assert answer.rule.body == rule_text and len(answer.rule.body) < RULE_CHAR_LIMIT
    assert "\n" not in answer.rule.title


def test_ground_marks_prohibitions_as_warnings(helper):
    assert helper.ground(p.GroundRequest(comment="Never use em dashes in headlines.")).rule.category is Category.warning


def test_reconcile_actions(helper):
    rules = [rule("r1", "Include 3 actionable tips in every post.", human=True),
             rule("r2", "Use UTC timestamps in all log lines."),
             rule("r3", "Always squash commits before merging.")]
    ask = lambda title, **kw: helper.reconcile(p.ReconcileRequest(draft=p.Draft(title=title), rules_in_force=rules, **kw))
    assert ask("Every post needs exactly three actionable tips.").model_dump() == {
        "action": "repeat", "replaces": ["r1"], "merged": None}
    folded = ask("Never squash commits before merging.", draft_is_human=True)
    assert folded.action is p.ReconcileAction.fold and folded.replaces == ["r3"]
    assert folded.merged.title == "Never squash commits before merging."
    # an auto-extracted draft never overrides a person's rule: the vet quarantines it instead
    assert ask("Include 5 actionable tips in every post.").action is p.ReconcileAction.new
    assert ask("Write headlines in sentence case.").action is p.ReconcileAction.new
    near = ask("Use UTC timestamps in all audit log lines.", cap_full=True)
    assert near.action is p.ReconcileAction.fold and near.replaces == ["r2"]
    assert "in all log lines" in near.merged.body and "audit log lines" in near.merged.body


# --- tidy ---------------------------------------------------------------------------------------------------


TIDY_RULES = [
    rule("r1", "Always include source links before publishing."),
    rule("r2", "Before a post is published, make sure it links to every source it used."),
    rule("r3", "Include 3 actionable tips in every post."),
    rule("r4", "Include 5 actionable tips in every post."),
    rule("r5", "Use UTC timestamps in all log lines.", re=2),
    rule("r6", "Use UTC timestamps in all audit log lines."),
    rule("r7", "Keep intros factual. Keep each tip under 20 words."),
    rule("r8", "Keep each tip under 20 words."),
    rule("r9", " ".join(["Please note that you should check every outbound link by opening it."] * 20)),
]


def test_plan_groups(helper):
    moves = helper.plan_groups(p.PlanRequest(rules=TIDY_RULES)).moves
    by_kind = {(m.kind, tuple(m.ids)): m for m in moves}
    assert (p.MoveKind.merge, ("r1", "r2")) in by_kind
    assert (p.MoveKind.rewrite, ("r5",)) in by_kind
    assert (p.MoveKind.compress, ("r9",)) in by_kind
    assert by_kind[(p.MoveKind.retire, ("r8",))].superseded_by == "r7"
    ids = [i for m in moves for i in m.ids]
    assert len(ids) == len(set(ids))  # each id in at most one move
    # a contradiction (3 vs 5 tips) and a near-miss (audit logs) are never merged away
    assert not {"r3", "r4", "r6"} & set(ids)


def test_plan_never_retires_a_repeated_rule(helper):
    rules = [rule("r1", "Keep each tip under 20 words.", re=1), rule("r2", "Keep intros factual. Keep each tip under 20 words.")]
    moves = helper.plan_groups(p.PlanRequest(rules=rules)).moves
    assert [(m.kind, m.ids) for m in moves] == [(p.MoveKind.rewrite, ["r1"])]


def test_merge_writes_each_instruction_once_and_passes_its_audit(helper):
    originals = [rule("r1", "Always include source links before publishing. Prefer primary sources."),
                 rule("r2", "Before a post is published, make sure it links to every source it used.\n"
                            "Always include source links before publishing.", human=True)]
    answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.merge, originals=originals))
    body = answer.rule.body
    assert sorted(answer.covers) == ["r1", "r2"] and answer.dropped == []
    # The two source-link sentences say one thing (a duplicate, test_compare above): one wording is kept.
    assert ("Always include source links before publishing." in body) != ("links to every source it used." in body)
    assert "Prefer primary sources." in body
    assert helper.audit(p.AuditRequest(originals=originals, rewritten=answer.rule)).missing == []


def test_rules_that_differ_only_in_each_and_every_merge_into_one_wording_the_audit_accepts(helper):
    originals = [rule("r1", "Include a time estimate in each actionable tip\n"
                            "Every actionable tip should include a time estimate so it feels achievable."),
                 rule("r2", "Include a time estimate in every actionable tip\n"
                            "Add a time estimate to each actionable tip so it feels achievable.")]
    answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.merge, originals=originals))
    assert sorted(answer.covers) == ["r1", "r2"] and answer.dropped == []
    assert answer.rule.body == "Every actionable tip should include a time estimate so it feels achievable."
    assert helper.audit(p.AuditRequest(originals=originals, rewritten=answer.rule)).missing == []


def test_merged_rules_merge_again_instead_of_outgrowing_the_limit(helper):
    """The demo's case: a cluster merged in two halves, then the halves merged. Keeping every reworded
    sentence made each half several hundred characters, so the last merge could carry only one of them."""
    from tidy_scenario import SEED

    from agentuse.core.store_format import parse

    cluster = [rule(r.id, f"{r.title}\n{r.body}") for r in parse(SEED.read_text()).learnings
               if "time estimate" in r.title and "minutes" not in r.body]
    assert len(cluster) >= 8

    def merge(originals):
        answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.merge, originals=originals))
        assert answer.covers == [r.id for r in originals] and answer.dropped == []
        assert helper.audit(p.AuditRequest(originals=originals, rewritten=answer.rule)).missing == []
        return rule(f"m{len(originals)}", f"{answer.rule.title}\n{answer.rule.body}")

    halves = merge(cluster[:5]), merge(cluster[5:])
    final = merge(list(halves))
    assert len(final.text) <= max(len(r.text) for r in cluster) * 2


def test_a_merge_keeps_the_sentence_that_adds_a_qualifier(helper):
    originals = [rule("r1", "Link to primary sources."), rule("r2", "Link only to primary sources.")]
    answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.merge, originals=originals))
    assert "Link only to primary sources." in answer.rule.body and sorted(answer.covers) == ["r1", "r2"]
    assert helper.audit(p.AuditRequest(originals=originals, rewritten=answer.rule)).missing == []


def test_the_block_rewrite_keeps_a_qualifier_that_one_rule_adds(helper):
    rules = [rule("b1", "Link to primary sources."), rule("b2", "Link only to primary sources.")]
    answer = helper.rewrite_block(p.BlockRequest(rules=rules))
    assert "Link only to primary sources." in " ".join(r.text for r in answer.rules)
    for out in answer.rules:
        covered = [r for r in rules if r.id in out.covers]
        draft = p.Draft(title="Block rule", body=out.text)
        assert helper.audit(p.AuditRequest(originals=covered, rewritten=draft)).missing == []


@pytest.mark.parametrize("original, rewritten, reported", [
    # the same content words, worded differently: carried
    ("Include a time estimate in each actionable tip.", "Include a time estimate in every actionable tip.", None),
    ("Every actionable tip should include a time estimate so it feels achievable.",
     "Add a time estimate to each actionable tip so it feels achievable.", None),
    # every content word kept, but a qualifier, a bound, a position, a number or an exception dropped
    ("Link only to primary sources.", "Link to primary sources.", 'the qualifier "only"'),
    ("Rarely use exclamation marks.", "Use exclamation marks.", 'the qualifier "rarely"'),
    ("Add a worked example to some tips.", "Add a worked example to tips.", 'the qualifier "some"'),
    ("Use at most three tips per post.", "Use three tips per post.", 'the bound "at most 3"'),
    ("Put the main takeaway in the first two sentences.", "Put the main takeaway in two sentences.",
     'the qualifier "the first"'),
    ("Keep posts under 200 words.", "Keep posts under 300 words.", "the value 200"),
    ("Always cite sources, except in opinion pieces.", "Always cite sources.", 'the exception "opinion"'),
    ("Include a time estimate in each actionable tip.", "Include a time estimate in each tip.", '"actionable"'),
])
def test_audit_accepts_the_same_words_and_reports_a_dropped_qualifier(helper, original, rewritten, reported):
    missing = helper.audit(p.AuditRequest(originals=[rule("r1", original)],
                                          rewritten=p.Draft(title="Rule", body=rewritten))).missing
    if reported is None:
        assert missing == []
    else:
        assert [m.id for m in missing] == ["r1"] and reported in missing[0].what


def test_merge_that_would_pass_the_limit_leaves_the_rest_out(helper):
    long_a = " ".join(f"Cite statistic number {i} with a primary source link." for i in range(9))
    long_b = " ".join(f"Name the author of quoted study number {i}." for i in range(9))
    answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.merge,
                                                   originals=[rule("r1", long_a), rule("r2", long_b)]))
    assert answer.covers == ["r1"] and [d.id for d in answer.dropped] == ["r2"]
    assert "800" in answer.dropped[0].reason


def test_compress_and_rewrite_keep_the_instruction(helper):
    long_rule = TIDY_RULES[-1]
    answer = helper.rewrite_group(p.RewriteRequest(kind=p.MoveKind.compress, originals=[long_rule]))
    assert answer.rule.body == "Check every outbound link by opening it." and answer.covers == ["r9"]
    assert helper.audit(p.AuditRequest(originals=[long_rule], rewritten=answer.rule)).missing == []


@pytest.mark.parametrize("rewritten, reported", [
    ("Keep posts between 150 and 200 words.", "excluding"),  # an exception dropped
    ("Keep posts between 150 and 300 words, excluding the title and captions.", "200"),  # a value changed
    ("Posts: 150-200 words, title and captions excluded.", None),  # shorter, same meaning: passes
])
def test_audit_judges_meaning_not_length(helper, rewritten, reported):
    original = rule("c9d0e1f2", "Keep posts between 150 and 200 words, excluding the title and captions.")
    missing = helper.audit(p.AuditRequest(originals=[original], rewritten=p.Draft(title="Posts", body=rewritten))).missing
    if reported is None:
        assert missing == []
    else:
        assert [m.id for m in missing] == ["c9d0e1f2"] and reported in missing[0].what


def test_rewrite_block_claims_every_rule_exactly_once(helper):
    answer = helper.rewrite_block(p.BlockRequest(rules=TIDY_RULES[:8]))
    claimed = [i for r in answer.rules for i in r.covers] + [d.id for d in answer.dropped]
    assert sorted(claimed) == sorted(r.id for r in TIDY_RULES[:8])
    covers = {tuple(r.covers): r.text for r in answer.rules}
    assert covers[("r1", "r2")] == "Always include source links before publishing."
    assert covers[("r7", "r8")] == "Keep intros factual. Keep each tip under 20 words."
    assert ("r3",) in covers and ("r4",) in covers and ("r6",) in covers  # not duplicates: kept apart
    assert len(answer.rules) < 8


# --- the deliberate path end to end: reconcile against the rules in force, then vet against the contract --


@pytest.fixture
def blog(tmp_path):
    from capture_support import make_agent, seed
    from capture_support import rule as stored_rule

    from agentuse.core.learning import Channel, Source

    agent = make_agent(tmp_path / "p", "learning:\n  capture: true\n  apply: true\n  max: 15")
    agent.write_text(agent.read_text().replace("## Guidelines\n", "## Guidelines\n- Cite sources before publishing\n"))
    seed(agent, [stored_rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections)])
    return agent


def remember(agent, text: str):
    from capture_support import TODAY

    from agentuse.flows.remember import run_remember

    return run_remember(agent=str(agent), text=text, helper=OfflineHelper(), today=TODAY,
                            agent_arg="./blog.agentuse")


def test_remember_offline_replaces_the_rule_its_note_corrects(blog):
    from capture_support import archived, stored

    from agentuse.core.learning import State

    result = remember(blog, "Never cite the source inline; put sources at the end")
    assert result.lines[0] == '[Learning] Replaced an earlier rule: "Cite the source inline" (archived, id:a1b2c3d4)'
    [now] = stored(blog)
    assert now.state is State.active and now.title == "Never cite the source inline; put sources at the end"
    [old] = archived(blog)
    assert (old.id, old.state) == ("a1b2c3d4", State.retired)


def test_remember_offline_counts_a_restatement_on_the_rule_it_repeats(blog):
    from capture_support import stored

    result = remember(blog, "Always cite the source inline.")
    assert result.lines == ['[Learning] Repeated an earlier rule: "Cite the source inline" (re:1, id:a1b2c3d4)']
    assert [(r.id, r.re) for r in stored(blog)] == [("a1b2c3d4", 1)]


def test_remember_offline_quarantines_a_note_against_the_contract_and_replaces_nothing(blog):
    from capture_support import archived, stored

    from agentuse.core.learning import State

    result = remember(blog, "Never cite sources.")
    assert result.lines == ['[Learning] Saved but quarantined "Never cite sources": contradicts the contract: '
                            '"Cite sources before publishing". It will not be injected; resolve the conflict in '
                            './blog.agentuse or discard the rule.']
    assert {r.id: r.state for r in stored(blog)}["a1b2c3d4"] is State.active and archived(blog) == []


@pytest.mark.parametrize("a, b, label", [
    # an action against its omission: the omitted object is what the rule is against
    ("Skip the load tests before a hotfix.", "Run the load tests before a hotfix.", Label.contradiction),
    ("Leave out the pricing table.", "Include the pricing table.", Label.contradiction),
    # two members of one closed set of choices for one setting
    ("Show weights in metric units.", "Show weights in imperial units.", Label.contradiction),
    ("Water the plants in the morning.", "Water the plants in the evening.", Label.contradiction),
    ("Back up the laptop every week.", "Back up the laptop daily.", Label.contradiction),
    ("Quote the fee in pounds.", "Quote the fee in euros.", Label.contradiction),
    # "only A" against "always B" for the same action
    ("Only refund orders that arrived damaged.", "Always refund every order.", Label.contradiction),
    ("Call suppliers on the first day of the month.", "Call suppliers on every day of the month.", Label.near_miss),
    # a number of one side only names a case; the same frequency in other words is one rule
    ("Add two examples to guides longer than 900 words.", "Add two examples to every guide.", Label.near_miss),
    ("Send the digest once a week.", "Send the digest weekly.", Label.duplicate),
    ("Pick a supplier near the warehouse.", "Choose suppliers close to the warehouse.", Label.duplicate),
    # a non-word against its word
    ("Sell non-returnable items at a discount.", "Sell returnable items at a discount.", Label.contradiction),
])
def test_compare_judges_by_category(a, b, label):
    assert compare(a, b).label is label
