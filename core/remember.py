"""The deliberate human path (spec: Deliberate Learning from Review Comments): `--remember`, the Learn
checkbox, and `agentuse learnings add`.

A reviewer's note is saved immediately as `src:manual`, `ch:corrections`: grounded in the work it was
written about (a scoped rule, not a universal one), reconciled against the rules in force (a restatement
or contradiction replaces the earlier rule, which is archived; a repeat counts on the rule it repeats),
then vetted against the contract. Every model step fails open: a note is never lost because a helper
call failed — ungrounded it is stored as written, unreconciled it is stored beside the others, unvetted
it is stored active. It works with no learning configuration at all; it reaches future runs only when
`learning.apply` is on.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from pydantic import BaseModel

from agentuse.core.cap import Incoming, Placed, Placement, traded_for, valid_fold
from agentuse.core.capture import Candidate, Disposition, Judged, stamp
from agentuse.core.helper.protocol import Draft, ReconcileAction, ReconcileAnswer
from agentuse.core.learned_block import BlockRule, read_block, write_block
from agentuse.core.learning import RULE_CHAR_LIMIT, Category, Channel, Learning, State, Verdict, title_said_once
from agentuse.core.clip import clip
from agentuse.core.store import retired
from agentuse.core.store_merge import carried_by
from agentuse.core.terminal_text import shell_word

TITLE_CHARS = 80
NOTE_KEY = "note"  # the vet's id for the one candidate of this path


class Note(BaseModel):
    """What a reviewer asked to keep, and the context it was written in."""

    text: str
    comment: str | None = None  # the revise comment given with it, if any
    reviewed_output: str = ""
    session: str | None = None


def verbatim(text: str) -> Draft:
    """The note as written: what is stored when grounding is unavailable."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "Reviewer note")
    title = first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1].rstrip() + "…"
    return Draft(category=Category.tip, title=title, body=text.strip())


def to_vet(note: Note, draft: Draft, fold: ReconcileAnswer | None, rules: list[Learning]) -> Draft:
    """The wording that will be stored, so it is what gets vetted: the merged rule when the note folds
    into rules in force, the grounded note otherwise."""
    if fold is not None and fold.action is ReconcileAction.fold and fold.merged and valid_fold(fold, rules):
        return fold.merged
    return draft


def is_verbatim(draft: Draft, text: str) -> bool:
    """The model handed the note back as written: nothing to audit, it carries the note by construction.
    Case, spacing and the sentence's closing mark do not count; every other character does (the words-only
    `text_key` would take `latency > 2 s` for `latency < 2 s`, and `1.5` for `1,5`)."""
    return _as_written(draft.text) == _as_written(text)


def _as_written(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(".!;: ")


def candidate(note: Note, draft: Draft) -> Candidate:
    return Candidate(key=NOTE_KEY, channel=Channel.corrections, draft=draft, human=True, confidence=1.0,
                     evidence=f'reviewer: "{clip(" ".join(note.text.split()), 300)}"')


def saved_as(learnings: list[Learning], note: Note) -> Learning | None:
    """The rule this session's note was saved as, if it is in `learnings`: a person's rule stamped with the
    session and with the reviewer's words as its evidence (`candidate`, `stamp`). A resume killed after the
    save and before its result line was logged is run again; the note must not be saved twice. (A note
    saved as a repeat of an existing rule changed only that rule's count: its session's log journals it,
    `repeat_landed`.)"""
    if not note.session:
        return None
    expected = stamp(Judged(candidate=candidate(note, verbatim(note.text)), disposition=Disposition.active),
                     rule_id="00000000", session=note.session, ih=None, today=date.today()).evidence
    return next((rule for rule in learnings if rule.is_human and rule.sess == note.session
                 and rule.evidence == expected), None)


def record(judged: Judged, *, rule_id: str, note: Note, ih: str | None, today: date,
           offline: bool = False) -> Learning:
    return stamp(judged, rule_id=rule_id, session=note.session, ih=ih, today=today, offline=offline)


def colliding_rule(judged: Judged, rules: list[Learning]) -> Learning | None:
    """The rule in force (not the contract) a person's note was quarantined for contradicting or restating:
    the rule the note corrects, which it replaces if it passes the vet without it, or the rule it repeats
    (flows/remember.py). Tool-errors records describe mechanics and are never replaced by free text."""
    if not (judged.candidate.human and judged.verdict in (Verdict.contradiction, Verdict.duplicate)
            and judged.disposition is Disposition.quarantined and judged.against):
        return None
    return next((r for r in valid_fold(ReconcileAnswer(action=ReconcileAction.fold, replaces=[judged.against],
                                                       merged=judged.candidate.draft), rules)), None)


def about(note: str, text: str) -> bool:
    """Whether a note is about a rule's text at all (offline_text.shares_a_term). Whether a note corrects a
    rule is a model's answer (the vet's contradiction, reconcile's fold), and one naming an unrelated rule
    would take it out of force: a correction is about what it corrects."""
    from agentuse.core.helper.offline_text import shares_a_term  # the offline reading; loaded here only

    return shares_a_term(note, text)


def left_standing(rule: Learning, detail: str | None, note: str) -> list[str] | None:
    """The sentences of `rule` a note leaves standing when the text the vet quoted for its contradiction is
    what it corrects: each sentence of its body (or of its title, when it has no body) that is neither in the
    quote nor holds it, and its title when it is neither and shares no word that counts with the quote (a
    title that is an instruction of its own: a note stored as written keeps its first sentence as the title);
    less any the offline reading finds the note contradicting or saying (`offline.left_by`). [] when the
    quote is all the rule says. None when it cannot be told, in a rule of more than one sentence: no quote,
    or a quote that is none of its body's sentences (its title alone, a paraphrase), and when the note is
    about nothing the rule says (`about`); a quoted sentence the note is not about stands."""
    from agentuse.core.helper.offline import left_by  # the offline reading; loaded here only
    from agentuse.core.helper.offline_text import sentence_key, sentences
    from agentuse.core.helper.similarity import analyze

    if not about(note, rule.text):
        return None
    quoted = f" {sentence_key(detail or '')} "
    if not quoted.strip():
        return [] if len(sentences(rule.text)) == 1 else None

    def said(sentence: str) -> bool:
        key = f" {sentence_key(sentence)} "
        return key in quoted or quoted in key

    parts = sentences(rule.body or rule.title)
    standing = [s for s in parts if not said(s) or not about(note, s)]
    if len(standing) == len(parts):  # the quote is none of them (a title, a paraphrase): which is not known
        return [] if len(sentences(rule.text)) == 1 else None
    if rule.body and not all(said(s) for s in sentences(rule.title)):
        content = [{t.word for t in analyze(text).terms if t.weight >= 1} for text in (rule.title, detail or "")]
        if not content[0] & content[1]:
            standing = sentences(rule.title) + standing
    return left_by(note, standing)


def correction(draft: Draft, standing: list[str]) -> Draft | None:
    """The note, then the sentences of the rule it corrects that it leaves standing: one rule that satisfies
    both (spec: Fold), in the person's words and the rule's. None when that is over the character limit."""
    if not standing:
        return draft
    from agentuse.core.helper.offline_text import with_period

    body = " ".join([with_period(draft.body.strip() or draft.title.strip()), *map(with_period, standing)])
    title, body = title_said_once(draft.title, body)  # as the store will read it back
    merged = draft.model_copy(update={"title": title, "body": body})
    return None if len(merged.text) > RULE_CHAR_LIMIT else merged


def is_repeat(fold: ReconcileAnswer | None, rules: list[Learning]) -> bool:
    return fold is not None and fold.action is ReconcileAction.repeat and bool(valid_fold(fold, rules))


# ---------------------------------------------------------------- rules already permanent


def _words(text: str) -> str:
    """Rule text for matching a vet's quote: bullet markers, case and punctuation do not count."""
    return " ".join(re.findall(r"[a-z0-9]+", re.sub(r"^\s*[-*+]\s+(?:\[[a-z-]+\]\s*)?", "", text.lower())))


def permanent_rules(agent_text: str, learnings: list[Learning]) -> list[BlockRule]:
    """The rules already permanent: the agent file's learned block, then staged copies marked graduated
    that the block does not hold yet (the file could not be written when they graduated)."""
    block = read_block(agent_text) or []
    held = {_words(r.text) for r in block}
    staged = [BlockRule(category=r.category, text=r.text) for r in learnings
              if r.state is State.graduated and _words(r.text) not in held]
    return block + staged


def with_permanent(contract: str, block: list[BlockRule], permanent: list[BlockRule]) -> str:
    """The contract the note is vetted against: staged graduated copies are part of it already (they are
    permanent, only not yet written into the file), so they sit in its learned block as they will."""
    if len(permanent) == len(block):
        return contract
    return write_block(contract, permanent, frontmatter=False)  # the contract is a body


def already_permanent(judged: Judged, permanent: list[BlockRule]) -> BlockRule | None:
    """The permanent rule a note restates: the vet called it a duplicate and quoted that rule (or a
    sentence of it). The note is quarantined naming that rule (`permanent_duplicate`): a person's
    duplicate is kept and shown, never dropped."""
    if judged.verdict is not Verdict.duplicate or not judged.detail:
        return None
    quoted = _words(judged.detail)
    if not quoted:
        return None
    quoted = f" {quoted} "
    return next((r for r in permanent if quoted in f" {_words(r.text)} " or f" {_words(r.text)} " in quoted), None)


def permanent_duplicate(judged: Judged, rule: BlockRule) -> Judged:
    """A person's note that restates a permanent rule: quarantined with the rule it duplicates, so the
    reviewer sees it and can discard it (the spec: human duplicates are quarantined, never dropped)."""
    why = f'duplicates the learned block: "{clip(" ".join(rule.text.split()), 300)}"'
    return judged.model_copy(update={"disposition": Disposition.quarantined, "why": why})


def to_store(judged: Judged, fold: ReconcileAnswer | None, *, permanent: list[BlockRule], rule_id: str,
             note: Note, ih: str | None, today: date, offline: bool = False,
             seen: dict[str, str] | None = None) -> tuple[Judged, Incoming]:
    """What the note writes: a note the vet found restating a permanent rule is quarantined naming it; a
    quarantined note never takes an earlier rule out of force, so only a rule that passed (or could not be
    vetted) replaces what it folds."""
    if (restated := already_permanent(judged, permanent)) is not None:
        judged, fold = permanent_duplicate(judged, restated), None
    stored = record(judged, rule_id=rule_id, note=note, ih=ih, today=today, offline=offline)
    return judged, Incoming(record=stored, fold=fold if stored.state is State.active else None, seen=seen)


class Result(BaseModel):
    """What the remember path did, as lines for the run output and the session log."""

    lines: list[str]
    placed: Placed | None = None
    judged: Judged | None = None


def result_lines(placed: Placed, judged: Judged, *, agent_arg: str, applies: bool, cap: int,
                 notes: list[str], outside: list[Learning] | None = None) -> list[str]:
    """The spec's wording for replacements and quarantines; plain statements for the rest."""
    rule = placed.record
    lines = [f"[Learning] {note}" for note in notes]
    if placed.how is Placement.repeated and rule.state is State.quarantined:
        lines.append(repeat_line(rule, agent_arg=agent_arg))
        return lines
    if judged.disposition is Disposition.quarantined:
        lines.append(f'[Learning] Saved but quarantined "{rule.title}": {judged.why}. It will not be injected; '
                     f"resolve the conflict in {agent_arg} or discard the rule.")
        return lines
    if placed.unfolded:
        lines.append(f"[Learning] Not folded into {', '.join(f'id:{i}' for i in placed.unfolded)}: that rule changed "
                     "or left the store while this note was being saved (a tidy-up, an edit), so the note is saved "
                     f"beside the rules in force now. Fold them: agentuse learnings tidy {shell_word(agent_arg)}")
    if placed.how is Placement.repeated:
        lines.append(repeat_line(rule, agent_arg=agent_arg))
    elif placed.how is Placement.folded:
        lines += [f'[Learning] Replaced an earlier rule: "{old.title}" (archived, id:{old.id})'
                  for old in placed.replaced]
        lines.append(f'[Learning] Saved "{rule.title}" (id:{rule.id})')
    else:
        lines.append(f'[Learning] Saved "{rule.title}" (id:{rule.id})')
        if placed.how is Placement.traded:
            lines += [f'[Learning] Retired "{old.title}" to make room (archived, id:{old.id})'
                      for old in placed.replaced]
        elif placed.how is Placement.outside_cap:
            # Precedence decides which correction falls outside (the newest ranks first), so name them.
            named = "; ".join(f'"{r.title}" (id:{r.id})' for r in outside or [rule])
            lines.append(f"[Learning] {len(outside or [rule])} correction(s) sit outside this agent's {cap}-rule "
                         f"limit and do NOT reach it ({named}) - {placed.note}. "
                         f"Fold the set down: agentuse learnings tidy {shell_word(agent_arg)}")
    if not applies:
        lines.append("[Learning] It is stored, but reaches future runs only when learning.apply is enabled.")
    return lines


REWORDED_REASON = "reworded: its new wording was saved in its place"  # the web UI's Edit (serve/actions.py)


def recorded_lines(saved: Learning, archived: list[Learning], note: Note, *, agent_arg: str, applies: bool,
                   cap: int) -> list[str]:
    """The result lines of a note the store holds as `saved`, told from the files alone: a resume killed
    after the save and before its lines were logged is run again. The rules the note replaced or traded
    away are in the archive, each with a reason naming `saved` (its newest copy: the last one wins)."""
    newest = list({rule.id: rule for rule in archived}.values())
    replaced = [r for r in newest if carried_by(r) == saved.id]
    traded = [r for r in newest if r.why == retired(r, reason=traded_for(saved.id)).why]
    how = Placement.folded if replaced else Placement.traded if traded else Placement.added
    quarantined = saved.state is State.quarantined
    judged = Judged(candidate=candidate(note, verbatim(note.text)), why=saved.why if quarantined else None,
                    disposition=Disposition.quarantined if quarantined else Disposition.active)
    return result_lines(Placed(record=saved, how=how, replaced=replaced or traded), judged, agent_arg=agent_arg,
                        applies=applies, cap=cap, notes=[])


def repeat_line(rule: Learning, *, agent_arg: str) -> str:
    """What a note counted as a repeat of `rule` says (its count as it is now)."""
    if rule.state is State.quarantined:
        return (f'[Learning] Repeated a quarantined rule: "{rule.title}" (re:{rule.re}, id:{rule.id}): {rule.why}. '
                f"It will not be injected; resolve the conflict in {agent_arg} or discard the rule.")
    return f'[Learning] Repeated an earlier rule: "{rule.title}" (re:{rule.re}, id:{rule.id})'


def repeat_landed(learnings: list[Learning], rule_id: str, re: int) -> Learning | None:
    """The rule a journaled repeat counted on, if the store holds that count (`re` is the rule's re: once the
    repeat is written): a write killed after the journal and before the store leaves a lower count, and the
    note must be saved again. A rule gone since (a tidy-up merged it) cannot be told: the note is saved
    again, never lost. (Another person's repeat of the same rule between the crash and the re-run reads as
    this one, which is then not counted: the approval credit's one blind spot too.)"""
    return next((r for r in learnings if r.id == rule_id and r.re >= re), None)


def over_limit(note: str) -> bool:
    return len(note.strip()) > RULE_CHAR_LIMIT


def long_note(note: str) -> str:
    return (f"The note is {len(note.strip()):,} characters, over the {RULE_CHAR_LIMIT}-character limit for a "
            "rule, and no shorter wording that still carries it was found; stored as written. A rule that long "
            "is hard to compare with the others: shorten it with --edit.")


def failure_note(step: str, message: str, *, rejected: bool = False, note: str = "") -> str:
    if rejected:  # the call answered, but the gate turned its wording down
        if over_limit(note):  # the person's own words are over the limit: say so, not the model's
            return long_note(note)
        return f"The grounded rule was not used ({clip(message, 200)}); stored as written."
    consequence = {
        "ground": "stored as written",
        "reconcile": "stored beside the rules in force, not folded",
        "vet": "stored active: a correction is never dropped",
    }[step]
    return f"The {step} call failed ({clip(message, 200)}); {consequence}."
