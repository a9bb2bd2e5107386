"""The embedded offline evaluator: every helper operation, deterministic, with no network and no key.

It is the default when no key is set for the helper model's provider (see `factory.py`). It reads rules
lexically (`similarity.py`, `offline_judge.py`): it finds restatements, contradictions by polarity,
values, alternatives and event order, and claims whose terms a trace never mentions. It does not
understand paraphrase beyond its word lists, so it is conservative where a model would be bold:
  - it calls a pair a duplicate only when nothing specific differs (a number, a date, a qualifier or
    an exception makes a near-miss, never a duplicate);
  - its merges keep every sentence of every original that the kept ones do not already carry, by the
    audit's own test (so a reworded copy is written once, and a case, number or qualifier never lost);
  - it extracts only instructions stated outright in a run (by a person: never in what a tool returned or the
    run's model wrote, `trace.outside_run_text`), and turns a reviewer's comment into an
    order only where the shape is unmistakable, keeping the reviewer's words;
  - "pass" from it means "no restatement or conflict found by a lexical comparison", and says so.
"""

from __future__ import annotations

import re

from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import OFFLINE
from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.offline_text import (
    as_order, carries, merge_carried, merge_texts, missing_from, qualifiers, sentence_key, sentences, tighten,
    title_of, trace_vocabulary, unsupported_terms,
)
from agentuse.core.helper.overlap import overlap
from agentuse.core.helper.similarity import analyze
from agentuse.core.learning import RULE_CHAR_LIMIT, Category, Verdict
from agentuse.core.trace import outside_run_text

NAME = OFFLINE  # the helper's name, which is how a flow tells its vets are provisional (tasks/helpers.py)
# A claim is grounded when the trace mentions at least this share of its specific terms.
GROUNDED_SHARE = 0.6
UNSURE_DETAIL = "could not be vetted offline"
PASS_DETAIL = "offline evaluator: no restatement or conflict found by lexical comparison"

_DIRECTIVE = re.compile(r"^(?:[a-z]+:\s*)?(?:always|never|don't|do not|avoid|make sure|from now on|remember to|"
                        r"please always|please never|prefer|use|include|keep)\b", re.IGNORECASE)
_FRONTMATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def contract_units(contract: str) -> list[str]:
    """The contract's instructions one sentence at a time: frontmatter, headings and HTML comments
    (the learned-block markers) are structure, not instructions."""
    body = _FRONTMATTER.sub("", contract)
    units: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "<!--")):
            continue
        units.extend(sentences(stripped))
    return units


def category_for(text: str) -> Category:
    main = [t for t in analyze(text).terms if t.role == "main"]
    return Category.warning if main and main[0].negative else Category.tip


def _draft(text: str, category: Category | None = None) -> p.Draft:
    return p.Draft(category=category or category_for(text), title=title_of(text), body=text)


def containment(note: str, rule: str) -> str | None:
    """How a note stands to a rule it nearly matches: "restates" when the rule carries every sentence of
    the note and adds at most a contrast ("rather than promotional"); "sharpens" when the note carries
    the whole rule and adds only a contrast. Anything that changes the case (a term naming a narrower or
    wider scope, a value, an exception, a qualifier, opposite asks) is neither: a near-miss stays a rule
    of its own."""
    a, b = analyze(note), analyze(rule)
    if sorted(a.values) != sorted(b.values) or qualifiers(note).keys() != qualifiers(rule).keys():
        return None
    o = overlap(a, b)
    if any(x.negative != y.negative for x, y in o.shared):
        return None
    extra_note = [t for t in o.left_a if t.weight >= 1]
    extra_rule = [t for t in o.left_b if t.weight >= 1]
    if any(t.role != "contrast" for t in extra_note + extra_rule):
        return None
    if not extra_note and all(carries(rule, s) for s in sentences(note)):
        return "restates"
    if not extra_rule and all(carries(note, s) for s in sentences(rule)):
        return "sharpens"
    return None


def left_by(note: str, sentences_of_rule: list[str]) -> list[str]:
    """The sentences of a rule a correction leaves standing: those the note neither contradicts nor says."""
    return [s for s in sentences_of_rule if compare(note, s).label not in (Label.contradiction, Label.duplicate)]


def _correction(draft: p.Draft, draft_text: str, contradicted: list[p.RuleRef]) -> p.Draft | None:
    """One rule that satisfies the draft and the rules it contradicts (spec: Fold): the draft, then every
    sentence of those rules it leaves standing (`left_by`). The draft alone took a rule's other instructions
    out of force with it. None when that is over the character limit."""
    rest = left_by(draft_text, [s for rule in contradicted for s in sentences(rule.text)])
    if not rest:
        return draft
    merged = merge_texts([draft_text, *rest])
    return None if len(merged) > RULE_CHAR_LIMIT else _draft(merged, draft.category)


class OfflineHelper:
    name = NAME
    in_process = True  # pure computation here, no request to wait on (flows/runner.py fan_out)

    def __init__(self) -> None:
        self.usage = p.HelperUsage()  # no tokens are spent; calls are still counted

    # --- capture ---------------------------------------------------------------------------------------
    def extract(self, request: p.ExtractRequest) -> p.ExtractAnswer:
        """Instructions stated outright in the run ("always ...", "never ...", "use ..."), within the
        guidance's scope, not already said by the contract or a rule in force. Up to 5."""
        self.usage.add(0, 0)
        scope = {t.word for t in analyze(request.guidance).terms if t.weight >= 1}
        known = contract_units(request.contract) + [r.text for r in request.rules_in_force]
        found: list[p.Draft] = []
        # A person's instructions only: what a tool returned or the run's model wrote may hold any text
        # (a file that says "Always run curl ... | sh"), and an instruction in it is no lesson.
        for line in outside_run_text(request.trace):
            for s in sentences(line):
                if len(found) == 5 or not _DIRECTIVE.match(s) or len(s) > RULE_CHAR_LIMIT:
                    continue
                text = re.sub(r"^[a-z]+:\s*", "", s, flags=re.IGNORECASE)
                words = {t.word for t in analyze(text).terms}
                if scope and not scope & words:
                    continue
                if any(compare(text, k).label in (Label.duplicate, Label.contradiction) for k in known):
                    continue
                if any(compare(text, d.body).label is Label.duplicate for d in found):
                    continue
                found.append(_draft(as_order(text)))
        return p.ExtractAnswer(candidates=found)

    def vet(self, request: p.VetRequest) -> p.VetAnswer:
        self.usage.add(0, 0)
        units = [("contract", u) for u in contract_units(request.contract)]
        units += [(r.id, s) for r in request.rules_in_force for s in sentences(r.text)]
        vocabulary = trace_vocabulary(request.trace)
        verdicts: list[p.VetVerdict] = []
        seen: set[str] = set()
        for cand in request.candidates:
            if cand.id in seen:
                continue  # a candidate listed twice is judged once: one verdict per id
            seen.add(cand.id)
            verdicts.append(self._vet_one(cand, units, vocabulary, has_trace=bool(request.trace.strip())))
        return p.VetAnswer(verdicts=verdicts)

    def _vet_one(self, cand: p.VetCandidate, units, vocabulary, *, has_trace: bool) -> p.VetVerdict:
        parts = sentences(cand.text) or [cand.text]
        judged = [[(source, unit, compare(part, unit)) for source, unit in units] for part in parts]
        for source, unit, rel in (x for row in judged for x in row):
            if rel.label is Label.contradiction:
                return p.VetVerdict(id=cand.id, verdict=Verdict.contradiction, detail=unit, against=source)
        # A duplicate only when every sentence of the candidate is already said somewhere.
        restated = [next(((s, u) for s, u, rel in row if rel.label is Label.duplicate), None) for row in judged]
        if all(restated):
            source, unit = restated[0]
            return p.VetVerdict(id=cand.id, verdict=Verdict.duplicate, detail=unit, against=source)
        unread = next(((s, u) for row in judged for s, u, rel in row if rel.unsure), None)
        if unread is not None:
            source, unit = unread
            return p.VetVerdict(id=cand.id, verdict=Verdict.unsure, against=source,
                                detail=f'{UNSURE_DETAIL}: its wording is close to "{unit}" and the evaluator '
                                       "cannot tell a restatement from a different case")
        if not cand.human and has_trace:  # a reviewer's correction is never judged ungrounded
            missing, total = unsupported_terms(cand.text, vocabulary)
            if total and (total - len(missing)) / total < GROUNDED_SHARE:
                return p.VetVerdict(id=cand.id, verdict=Verdict.ungrounded,
                                    detail="the trace never mentions " + ", ".join(f'"{w}"' for w in missing))
        # Without a trace (a re-vet of stored rules) groundedness cannot be judged, so it is not claimed.
        return p.VetVerdict(id=cand.id, verdict=Verdict.pass_,
                            detail=PASS_DETAIL if has_trace or cand.human else PASS_DETAIL + "; no trace to check")

    def ground(self, request: p.GroundRequest) -> p.GroundAnswer:
        """Keep the reviewer's words; make them an order where the shape is unmistakable. The offline
        evaluator does not invent scope: a comment stays as broad or as narrow as the reviewer wrote it."""
        self.usage.add(0, 0)
        text = as_order(request.comment) or request.comment.strip()
        return p.GroundAnswer(rule=_draft(text))

    def reconcile(self, request: p.ReconcileRequest) -> p.ReconcileAnswer:
        self.usage.add(0, 0)
        draft_text = merge_texts([request.draft.title, request.draft.body])
        relations = [(rule, compare(draft_text, rule.text)) for rule in request.rules_in_force]
        duplicates = [r for r, rel in relations if rel.label is Label.duplicate]
        if duplicates:
            return p.ReconcileAnswer(action=p.ReconcileAction.repeat, replaces=[duplicates[0].id])
        # A correction replaces what it contradicts (the newer instruction wins on that point); an
        # auto-extracted draft never overrides a person's rule: the vet quarantines that conflict instead.
        contradicted = [r for r, rel in relations if rel.label is Label.contradiction
                        and (request.draft_is_human or not r.human)]
        if contradicted:
            merged = _correction(request.draft, draft_text, contradicted)
            if merged is not None:
                return p.ReconcileAnswer(action=p.ReconcileAction.fold, replaces=[r.id for r in contradicted],
                                         merged=merged)
            return p.ReconcileAnswer(action=p.ReconcileAction.new)  # the vet names the conflict instead
        if request.draft_is_human:
            answer = self._restated_or_sharpened(request, draft_text, relations)
            if answer is not None:
                return answer
        if request.cap_full:
            near = sorted(((rel.similarity, i, r) for i, (r, rel) in enumerate(relations)
                           if rel.label is Label.near_miss), key=lambda x: (-x[0], x[1]))
            for _, _, rule in near:
                merged = merge_texts([rule.text, draft_text])  # both cases, every sentence kept
                if len(merged) <= RULE_CHAR_LIMIT:
                    return p.ReconcileAnswer(action=p.ReconcileAction.fold, replaces=[rule.id],
                                             merged=_draft(merged, rule.category))
        return p.ReconcileAnswer(action=p.ReconcileAction.new)

    def _restated_or_sharpened(self, request: p.ReconcileRequest, draft_text: str, relations):
        """A person's note against a rule's whole text (title and body): a note the rule already says
        in full is a repeat of it; a note that says all the rule says and only sharpens it ("rather than
        promotional") replaces it. A model-authored draft never gets here: a repeat is a person's signal."""
        near = [r for r, rel in relations if rel.label is Label.near_miss]
        for rule in near:
            if containment(draft_text, rule.text) == "restates":
                return p.ReconcileAnswer(action=p.ReconcileAction.repeat, replaces=[rule.id])
        for rule in near:
            if containment(draft_text, rule.text) == "sharpens":
                merged = merge_carried([rule.text, draft_text])  # what the rule said is carried, by the audit's test
                if len(merged) > RULE_CHAR_LIMIT:
                    continue
                same = sentence_key(merged) == sentence_key(draft_text)
                return p.ReconcileAnswer(action=p.ReconcileAction.fold, replaces=[rule.id],
                                         merged=request.draft if same else _draft(merged, request.draft.category))
        return None

    # --- tidy ----------------------------------------------------------------------------------------------
    def plan_groups(self, request: p.PlanRequest) -> p.PlanAnswer:
        from agentuse.core.helper.offline_plan import plan_moves  # a tidy-up's planning loads with the tidy-up

        self.usage.add(0, 0)
        return p.PlanAnswer(moves=plan_moves(request.rules))

    def rewrite_group(self, request: p.RewriteRequest) -> p.RewriteAnswer:
        self.usage.add(0, 0)
        originals = sorted(request.originals, key=lambda r: (not r.human, -r.re))  # the strongest leads
        if request.kind is not p.MoveKind.merge:
            lead = originals[0]
            text = tighten(lead.text) or lead.text
            return p.RewriteAnswer(rule=_draft(text, lead.category), covers=[r.id for r in request.originals])
        texts, covers, dropped = [], [], []
        for rule in originals:
            candidate = merge_carried(texts + [rule.text])
            if texts and len(candidate) > RULE_CHAR_LIMIT:
                dropped.append(p.Dropped(id=rule.id, reason=f"merging it would pass {RULE_CHAR_LIMIT} characters; "
                                                            "it stays as it is"))
                continue
            texts.append(rule.text)
            covers.append(rule.id)
        return p.RewriteAnswer(rule=_draft(merge_carried(texts), originals[0].category), covers=covers,
                               dropped=dropped)

    def audit(self, request: p.AuditRequest) -> p.AuditAnswer:
        """Meaning, not length: every sentence of every original must be carried (same sentence, a strict
        duplicate, or all its terms, values, polarity and exceptions present); fewer words is fine."""
        self.usage.add(0, 0)
        rewritten = merge_texts([request.rewritten.title, request.rewritten.body])
        missing: list[p.Missing] = []
        for rule in request.originals:
            for s in sentences(rule.text):
                gaps = missing_from(s, rewritten)
                if gaps:
                    missing.append(p.Missing(id=rule.id, what=f'"{s}" — no longer carries {"; ".join(gaps)}'))
        return p.AuditAnswer(missing=missing)

    def rewrite_block(self, request: p.BlockRequest) -> p.BlockAnswer:
        from agentuse.core.helper.offline_plan import rewrite_block

        self.usage.add(0, 0)
        return rewrite_block(request.rules)
