"""Graduation into the agent file's learned block, and the rewrite of that block as one document
(spec: What makes a learning permanent; Tidying up, the last two of its six changes).

The block in the file is the source of truth: the caller reads it back before every edit, so wording
changed by hand is what the rewrite works from. The rewrite is checked twice before anything is written:
every input must be claimed exactly once (or the whole rewrite is discarded, naming what vanished), and
each combined rule is audited against the inputs it claims; inputs reported missing go back untouched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from agentuse.core.gate import Decision, Proposal
from agentuse.core.helper.protocol import BlockAnswer, BlockRequest, Draft, RuleRef
from agentuse.core.helper.protocol import RewrittenRule
from agentuse.core.learned_block import BlockRule
from agentuse.core.learning import Learning
from agentuse.core.ranking import graduation_eligible
from agentuse.core.redact import redact_texts
from agentuse.core.tidy_state import TidyState
from agentuse.core.model_defaults import empty_list

EditKind = Literal["added", "combined", "reworded", "dropped", "kept back"]


class BlockEdit(BaseModel):
    kind: EditKind
    category: str
    text: str
    sources: list[str] = Field(default_factory=empty_list, description="texts of the block rules it came from")
    reason: str = ""


def writable(path: Path) -> bool:
    """The file itself, and its folder: the atomic write puts a temporary file beside it. A file with no
    write bit for anyone is read-only by intent, and is treated so even for a superuser, whom
    `os.access` would let through."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o222) and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def skipped_message(path: Path, count: int) -> str:
    return (f"Graduation skipped: {path} is not writable. {count} learning(s) ready to become permanent stay "
            f"in force until it is.")


def eligible(state: TidyState) -> list[Learning]:
    """Proven rules in force that were vetted against the current instructions. A rule nobody has checked
    against the rules already there does not go permanent, whoever wrote it."""
    # A rule with no words cannot be a block bullet: it stays staged rather than crash the tidy-up.
    return [r for r in _proven(state) if r.id not in state.recurring]


def _proven(state: TidyState) -> list[Learning]:
    return [r for r in state.in_force()
            if graduation_eligible(r) and state.current_ih is not None and r.ih == state.current_ih
            and r.text.strip()]


def held_back(state: TidyState) -> list[Learning]:
    """Proven by the spec's rule, but a tool-errors recovery whose failure came back in the latest run it was
    in force for: stricter than the spec on purpose (README), since that run says the recipe is not landing."""
    return [r for r in _proven(state) if r.id in state.recurring]


def held_back_note(rules: list[Learning]) -> str:
    return (f"{len(rules)} tool-errors rule(s) wait to become permanent: their failure came back in the latest "
            f"run they were in force for (" + ", ".join(f'"{r.title}"' for r in rules) + "); a later run "
            "without it confirms the recovery")


def block_rule(rule: Learning) -> BlockRule:
    """The rule as the agent file will hold it. Redacted here too, as a run's prompt is (core/inject.py): a
    rule typed by hand into the learnings file, or stored before redaction, is stamped by no helper, and the
    agent file is committed."""
    [text] = redact_texts(rule.text)
    return BlockRule(category=rule.category, text=text or rule.text)


def graduate(state: TidyState, block: list[BlockRule], *, pass_no: int) -> tuple[list[BlockRule], list[BlockEdit]]:
    """Move every eligible rule into the block; the staged copy stays behind with state:graduated."""
    rules = list(block)
    edits: list[BlockEdit] = []
    present = {(b.category, b.text) for b in rules}
    for rule in eligible(state):
        item = block_rule(rule)
        if (item.category, item.text) not in present:  # re-running never appends a second copy
            rules.append(item)
            present.add((item.category, item.text))
            edits.append(BlockEdit(kind="added", category=item.category.value, text=item.text))
        state.graduate(rule, pass_no=pass_no)
    return rules, edits


# --- rewriting the block as one document ---------------------------------------------------------------


def block_ids(block: list[BlockRule]) -> list[str]:
    return [f"b{i + 1}" for i in range(len(block))]


def block_request(block: list[BlockRule]) -> BlockRequest:
    return BlockRequest(rules=[RuleRef(id=i, category=b.category, text=b.text, human=True)
                               for i, b in zip(block_ids(block), block, strict=True)])


def _short(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def check_claims(block: list[BlockRule], answer: BlockAnswer) -> str | None:
    """None when every input is claimed exactly once; otherwise why the whole rewrite is discarded."""
    by_id = dict(zip(block_ids(block), block, strict=True))
    claims: dict[str, int] = {i: 0 for i in by_id}
    for rule in answer.rules:
        for rule_id in set(rule.covers):
            if rule_id in claims:
                claims[rule_id] += 1
    # Dropped counts as a claim only with a reason: a rule may leave the block, never silently.
    for dropped in {d.id for d in answer.dropped if d.reason.strip()}:
        if dropped in claims:
            claims[dropped] += 1
    vanished = [by_id[i] for i, n in claims.items() if n == 0]
    twice = [by_id[i] for i, n in claims.items() if n > 1]
    if vanished:
        names = ", ".join(f'"{_short(b.text)}"' for b in vanished)
        return f"The rewrite of the permanent block was discarded: it lost {names}"
    if twice:
        names = ", ".join(f'"{_short(b.text)}"' for b in twice)
        return f"The rewrite of the permanent block was discarded: it claimed {names} more than once"
    if not answer.rules and not answer.dropped:
        return "The rewrite of the permanent block was discarded: it returned no rules"
    return None


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text).lower().split())


def _changed(block: list[BlockRule], rule: RewrittenRule) -> bool:
    """A rule passed through with only its line breaks or punctuation touched is not an edit: it keeps
    the wording as the file has it, and costs no audit."""
    by_id = dict(zip(block_ids(block), block, strict=True))
    covers = _known(rule.covers, by_id)
    if len(covers) != 1:
        return True
    original = by_id[covers[0]]
    return original.category != rule.category or _plain(original.text) != _plain(rule.text)


def proposals(agent: str, block: list[BlockRule], answer: BlockAnswer) -> list[Proposal]:
    """Each output rule that is not an input passed through unchanged, for the gate (core/gate.py), keyed by
    its index in the answer, with the inputs dropped for it: it must state those too. An unchanged rule
    that absorbs a drop is audited for the drop alone (its own wording is the file's, nothing to vet).
    Inputs it is audited as losing go back untouched, so none is required."""
    refs = {r.id: r for r in block_request(block).rules}
    drops = drops_by_rule(block, answer)
    out = []
    for index, rule in enumerate(answer.rules):
        covers = _known(rule.covers, refs)  # a rule that claims no input carries nothing to audit
        changed = bool(covers) and _changed(block, rule)
        absorbed = [refs[d.id] for d in drops.get(index, [])]
        if changed or absorbed:
            first, _, rest = rule.text.partition("\n")
            out.append(Proposal(key=str(index), label=f"{agent}/block/rule-{index + 1}", must_carry=[],
                                draft=Draft(category=rule.category, title=first, body=rest), vet=changed,
                                originals=[*(refs[i] for i in covers if changed), *absorbed]))
    return out


def drops_by_rule(block: list[BlockRule], answer: BlockAnswer) -> dict[int, list]:
    """The drops that name a rule of the rewrite, by the index of the output rule that covers the rule named
    (spec: a rule is dropped only when another rule now fully states it). Any other drop is no drop."""
    by_id = dict(zip(block_ids(block), block, strict=True))
    dropped = {d.id for d in answer.dropped}
    owner: dict[str, int] = {}
    for index, rule in enumerate(answer.rules):
        for rule_id in _known(rule.covers, by_id):
            owner.setdefault(rule_id, index)
    out: dict[int, list] = {}
    for drop in _first_per_id(answer):
        target = drop.stated_by
        if drop.id in by_id and drop.reason.strip() and target in owner and target not in dropped:
            out.setdefault(owner[target], []).append(drop)
    return out


def _first_per_id(answer: BlockAnswer) -> list:
    """A model that names one rule dropped twice drops it once (check_claims counts it once)."""
    first: dict[str, object] = {}
    for drop in answer.dropped:
        first.setdefault(drop.id, drop)
    return list(first.values())


def _known(ids: list[str], by_id: dict) -> list[str]:
    """Ids the block has, once each: check_claims counts only these, so an id the model made up claims
    nothing (indexing by it would crash the whole tidy-up after every check had passed)."""
    return [i for i in dict.fromkeys(ids) if i in by_id]


def fold_edits(edits: list[BlockEdit]) -> list[BlockEdit]:
    """A rule made permanent by this tidy-up and then reworded by the block rewrite is one edit: added,
    in its final wording."""
    added = {e.text: i for i, e in enumerate(edits) if e.kind == "added"}
    folded = list(edits)
    drop: set[int] = set()
    for index, edit in enumerate(edits):
        if edit.kind == "reworded" and len(edit.sources) == 1 and edit.sources[0] in added:
            first = added[edit.sources[0]]
            folded[first] = folded[first].model_copy(update={"text": edit.text, "category": edit.category})
            drop.add(index)
    return [e for i, e in enumerate(folded) if i not in drop]


def apply_rewrite(block: list[BlockRule], answer: BlockAnswer,
                  decisions: dict[str, Decision]) -> tuple[list[BlockRule], list[BlockEdit]]:
    """The new block: each output rule, with inputs the gate says it lost put back untouched beside it
    (all of its inputs when its wording failed the vet or could not be audited), and so are the inputs
    dropped for it that it does not state, and every drop that names no rule of the rewrite."""
    by_id = dict(zip(block_ids(block), block, strict=True))
    drops = drops_by_rule(block, answer)
    result: list[BlockRule] = []
    edits: list[BlockEdit] = []

    def keep_back(rule_id: str, reason: str) -> None:
        original = by_id[rule_id]
        result.append(original)
        edits.append(BlockEdit(kind="kept back", category=original.category.value, text=original.text,
                               reason=reason))

    for index, rule in enumerate(answer.rules):
        covers = _known(rule.covers, by_id)
        mine = drops.get(index, [])
        changed = _changed(block, rule)
        decision = decisions.get(str(index))
        audited = [*(covers if changed else []), *(d.id for d in mine)]
        if decision is None:
            missing: dict[str, str] = {}
        elif not decision.passed:
            missing = {i: decision.why for i in audited}
        else:
            missing = {}
            for m in decision.missing:
                missing[m.id] = f"{missing[m.id]}; {m.what}" if m.id in missing else m.what
        carried = [i for i in covers if i not in missing]
        if carried and not changed:
            result.append(by_id[carried[0]])
        elif carried:
            new = BlockRule(category=rule.category, text=rule.text)
            result.append(new)
            kind = "combined" if len(carried) > 1 else "reworded"
            edits.append(BlockEdit(kind=kind, category=new.category.value, text=new.text,
                                   sources=[by_id[i].text for i in carried]))
        for rule_id in covers:
            if rule_id in missing:
                keep_back(rule_id, missing[rule_id])
        for drop in mine:
            if drop.id in missing or not carried:
                keep_back(drop.id, missing.get(drop.id) or "the rule it was dropped for was not kept")
            else:
                original = by_id[drop.id]
                edits.append(BlockEdit(kind="dropped", category=original.category.value, text=original.text,
                                       reason=drop.reason))
    placed = {d.id for ds in drops.values() for d in ds}
    for drop in _first_per_id(answer):
        if drop.id in by_id and drop.id not in placed:
            keep_back(drop.id, "dropped without naming a rule of the rewrite that states it")
    return result, edits
