"""Pairwise judgement of two rules: duplicate, contradiction, near-miss or unrelated.

The known failure of memory systems is calling two rules duplicates because most of their words match,
when they differ in exactly the part that matters: a number, a date, a qualifier, an exception. So a
duplicate here needs more than similar wording: the same action (two verbs the lexicon does not know to
be one make a "cannot tell"), the same values, the same polarity, the same order of events, no exception
or restriction on one side only, and nothing specific left over on either side, a party included (verb
classes and implied parties were tried in the generalisation round and taken out: on sets never seen they
called distinct pairs duplicates). What fails those checks is a contradiction (same subject, the two cannot both be followed:
opposed actions, two values, means or quoted texts for one setting (`offline_choices.py`), doing it
automatically against never without a gate, one part of a compound rule against the other) or a
near-miss (same words, different case). What one rule puts into the work and the other keeps out ("skip
the call-to-action" / "end with a call-to-action") is read first, by `presence.py`, since such pairs may
share only one word. Besides close wording, a pair worded apart in several places with nothing unread that
could be a near-miss's detail is a duplicate (`rewording.py`): a near-miss is one rule copied with one
detail added or changed, a duplicate rewords. A qualifier family on one side only is never a duplicate
(`qualifiers.py`); where a negation reaches inside a clause is read by `negation_scope.py` ("tell the owner
not to swim" does not turn the owner around). The thresholds were set on two thirds of
tests/data/rule_pairs.jsonl and checked on the held-out third; benchmarks/offline_eval.py prints those
beside the other tuning sets (four with held-out thirds of their own) and the frozen sets never tuned on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from types import SimpleNamespace

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.measures import without_implied_measures
from agentuse.core.helper.negation_scope import only_the_verb_apart
from agentuse.core.helper.offline_choices import (alternative_conflict, clock_against_part, counted, literal_conflict,
                                                  means_conflict, values_as_cases, values_relation)
from agentuse.core.helper.opposite_cases import case_against_exception, copy_changed, roles_crossed
from agentuse.core.helper.overlap import Overlap, overlap
from agentuse.core.helper.presence import presence
from agentuse.core.helper.qualifiers import ONLY_A_WAY, qualified_apart, qualified_only, words_of
from agentuse.core.helper.restated import restated
from agentuse.core.helper.rewording import REWORDED_LEFTOVER, modifier_added, reworded, verbs_apart
from agentuse.core.helper.similarity import Analysis, Term, analyze, remembered
from agentuse.core.helper.vocabulary import FREQUENCIES, alternative_group, canon
from agentuse.core.helper.wording import normalize


class Label(str, Enum):
    duplicate = "duplicate"
    contradiction = "contradiction"
    near_miss = "near-miss"
    unrelated = "unrelated"


# Below this share of weighted terms the two rules are about different things.
RELATED = 0.45
# A duplicate must share at least this much once synonyms and fillers are set aside.
DUPLICATE = 0.62
# Leftover specific weight tolerated on one side of a duplicate: one clause-initial verb the other side
# words differently. A qualifier left over ("urgent tickets", "public functions") is a different case.
DUPLICATE_LEFTOVER = 0.5
# Close wording that differs by at most one unread word on each side: the evaluator cannot tell a
# paraphrase from a different case there.
UNSURE_LEFTOVER = 1.0
# A clause-initial leftover is usually the imperative verb ("write", "add"): paraphrases differ there.
# Only in the instruction itself: a condition's first word is its subject ("when a production deploy
# fails"), a case of its own.
LEAD_DISCOUNT = 0.5
# A contradiction on values/alternatives: at most this much else may differ (else it is another case).
CONTRADICTION_RESIDUE = 1.0
# Two values for one setting: a number names the setting more surely than a word of a closed set does, so
# the rest may differ by two words each side ("cap sessions at 30 attendees" / "sessions may hold up to 50
# people").
VALUES_RESIDUE = 2.0
# "Never X" against "X when ...": words of the forbidding side's own instruction left over (a party or a
# place: "never force users to update the app" / "force an update when ..."), one fewer on the other's.
NEVER_LEFTOVER = 2
# A choice between two members of one closed set read below RELATED: besides each side's verb, at most
# two words left over (one thing named in other words: "citations" / "references").
CHOICE_RESIDUE = 2.0


@dataclass(frozen=True)
class Relation:
    label: Label
    similarity: float
    reason: str
    # Close wording apart from a word or so on each side the lexicon cannot read: a paraphrase or a
    # different case, the evaluator cannot tell which (a vet answers "unsure" on it).
    unsure: bool = False


@lru_cache(maxsize=1)
def _by_structure() -> SimpleNamespace:
    """The readings by clause structure (`deferral.py`, `opposites.py`, `place_and_direction.py`,
    `setting_values.py`), loaded by the first comparison rather than with the evaluator, so importing it costs
    what it did before them."""
    from agentuse.core.helper import deferral, opposites, place_and_direction, setting_values

    return SimpleNamespace(
        put_off_against_early=deferral.put_off_against_early, said_both_ways=opposites.said_both_ways,
        undone=opposites.undone, one_act=place_and_direction.one_act, only_elsewhere=place_and_direction.only_elsewhere,
        run_the_other_way=place_and_direction.run_the_other_way, fixed_against_own=setting_values.fixed_against_own,
        free_against_charged=setting_values.free_against_charged,
        included_against_carved=setting_values.included_against_carved,
        values_for_own_parties=setting_values.values_for_own_parties)


def compare(a: str, b: str) -> Relation:
    whole = judge(analyze(a), analyze(b))
    if whole.label in (Label.duplicate, Label.contradiction):
        return whole
    # "Never give the answer; keep giving hints" against "give the answer after two wrong attempts": one
    # part of a compound rule is against the other rule, though the whole shares too little with it.
    for part_a in _parts(a):
        for part_b in _parts(b):
            if (part_a, part_b) != (a, b):
                rel = judge(analyze(part_a), analyze(part_b))
                if rel.label is Label.contradiction:
                    return Relation(Label.contradiction, whole.similarity, f"{rel.reason} (in \"{part_a}\" / \"{part_b}\")")
    return whole


_PART_BREAK = re.compile(r";|(?<=[.!?])\s+")


@lru_cache(maxsize=8192)  # a tidy-up compares every rule with every other, several times
def _parts(text: str) -> tuple[str, ...]:
    """A rule's independent parts: its sentences and the halves of a semicolon. Just the rule if one."""
    parts = tuple(p.strip() for p in _PART_BREAK.split(text) if p.strip(" .;"))
    return parts if len(parts) > 1 else (text,)


def _leftover_weight(terms) -> float:
    # A step's first word ("before every schema migration") is its subject, not a verb: no discount.
    return sum(t.weight * (LEAD_DISCOUNT if t.lead and t.role == "main" and not t.subordinate else 1.0)
               for t in terms if t.weight >= 1)


_MANNER = frozenset(canon(w) for w in lx.MANNER | lx.PLACES)
_INCLUDE = canon("include")


def _is_manner(word: str) -> bool:
    """How or where it is done: a manner, a part of the work, or one of a set of alternatives."""
    return word in _MANNER or alternative_group(word) is not None


def _polarity_conflict(o: Overlap) -> list[str]:
    conflict = [(x, y) for x, y in o.shared
                if x.negative != y.negative and x.role in ("main", "contrast") and y.role in ("main", "contrast")
                and (max(x.weight, y.weight) >= 1 or (x.lead and y.lead))]  # the verb itself ("drop"/"keep")
    if conflict and (_negates_a_manner(o, conflict) or only_the_verb_apart(o.shared, conflict)
                     or _both_take_out(o, conflict)):
        return []
    return [x.word for x, _ in conflict]


# Verbs asked for that take out some of what they name: "dedupe rows" removes rows, as "drop null rows"
# does (phrases.py reads "remove duplicate rows" as "dedupe rows").
_TAKING_OUT = frozenset({canon("dedupe")})


def _both_take_out(o: Overlap, conflict: list[tuple]) -> bool:
    """"Drop null rows" against "drop duplicate rows": the object kept out on one side and named by a verb
    that takes some of it out on the other. Both remove rows, each its own kind: not opposed."""
    leads_a = [t for t in o.left_a + [x for x, _ in o.shared] if t.lead and t.role == "main"]
    leads_b = [t for t in o.left_b + [y for _, y in o.shared] if t.lead and t.role == "main"]
    for x, y in conflict:
        removing, taking_out = (leads_a, leads_b) if x.negative else (leads_b, leads_a)
        if any(t.negative for t in removing) and any(t.word in _TAKING_OUT and not t.negative for t in taking_out):
            return True
    return False


def _negates_a_manner(o: Overlap, conflict: list[tuple]) -> bool:
    """"Never cite sources inline" against "cite sources": the negation falls on how ("inline"), a way the
    other rule never asked for, so the action itself is still done. Scope words ("in published posts")
    are not manners: a rule against the action in some case still contradicts one that asks for it always."""
    a_negative = sum(x.negative for x, _ in conflict) >= sum(y.negative for _, y in conflict)
    leftover = o.left_a if a_negative else o.left_b
    # A period in a scope ("in their first month") is when, not how: "never give admin rights in the first
    # month" still contradicts "give them on day one".
    # The clause's own verb is what is done, never how ("disable autofill": "enable" is also one of a set).
    return any(t.negative and t.role == "main" and not t.lead and _is_manner(t.word)
               and not (t.scoped and t.word in FREQUENCIES) for t in leftover)


def _opposed(o: Overlap) -> bool:
    """Any shared term asked for on one side and against on the other: never a duplicate, whatever else."""
    apart = [(x, y) for x, y in o.shared if x.negative != y.negative and x.role == y.role and max(x.weight, y.weight) >= 1]
    return bool(apart) and not only_the_verb_apart(o.shared, apart)


# Manners that say an act is done with no check first.
_UNGATED = frozenset(canon(w) for w in ("automatically", "automatic", "unconditionally", "unchecked", "unreviewed"))


def _without_against_never_without(o: Overlap) -> str | None:
    """"Approve small PRs without running them" against "never approve a PR without running it": the same
    action asked for on both sides, one leaving out what the other makes its condition."""
    actions = [(x, y) for x, y in o.shared if x.role == y.role == "main" and x.lead and y.lead]
    if not actions or any(x.negative or y.negative for x, y in actions):
        return None
    for x, y in o.shared:
        roles = {x.role, y.role}
        if roles == {"contrast", "exception"} and (x if x.role == "contrast" else y).negative:
            return x.word
    # "Approve refunds automatically" against "never approve refunds without a manager": done with no gate
    # at all, against a gate the other makes its condition.
    for gated, free in ((o.left_a, o.left_b), (o.left_b, o.left_a)):
        gate = [t.word for t in gated if t.role == "exception" and t.weight >= 1]
        if gate and any(t.word in _UNGATED and t.role == "main" and not t.negative for t in free):
            return " ".join(gate)
    return None


def _verbs_against(o: Overlap) -> bool:
    """The two verbs left over, one asked against and the other for, and nothing else asked against."""
    leads = [t for t in o.left_a + o.left_b if t.lead and t.role == "main" and t.weight >= 1]
    return len({t.negative for t in leads}) == 2 and not any(x.negative or y.negative for x, y in o.shared)


def _order_conflict(a: Analysis, b: Analysis) -> tuple[str, str] | None:
    for x, y in sorted(a.order):
        if (y, x) in b.order and (x, y) not in b.order:
            return x, y
    return None


_ALWAYS = frozenset({"always", "every", "all", "each", "any"})


def _only_against_always(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """"Only email customers who opted in" against "always email every customer": the first restricts the
    action to a case, the second does it in every case; both cannot be followed. Without "only" the
    narrower rule is a near-miss ("two approvals for production deploys" / "for all deploys")."""
    tokens_a, tokens_b = words_of(a.text), words_of(b.text)
    if not qualified_only(tokens_a) or qualified_only(tokens_b) or not _ALWAYS & tokens_b:
        return None
    lead_a = next((t for t in a.terms if t.lead and t.role == "main"), None)
    lead_b = next((t for t in b.terms if t.lead and t.role == "main"), None)
    if lead_a is None or lead_b is None or lead_a.negative != lead_b.negative:
        return None
    if not _by_structure().one_act(lead_a.word, lead_b.word) and not _other_party(o):
        return None  # the same action, asked for on both sides
    # The case may be a value alone: "only studies published after 2015" / "all studies".
    case = [t.word for t in o.left_a if t.weight >= 1] or list(a.values)
    return ", ".join(case) if case else None




def _only_against_another(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """"Accept applications only through the portal" against "accept applications by email": the same act
    on both sides, `a` restricting it to one way or case and `b` naming another in its place, so `b` does
    what `a` rules out. With nothing in its place ("accept applications") `b` is only wider: a near-miss."""
    if not qualified_only(words_of(a.text)) or not ONLY_A_WAY.search(normalize(a.text)) \
            or qualified_only(words_of(b.text)) or _restricted(b):
        return None
    if not any(x.lead and y.lead and x.role == y.role == "main" and x.negative == y.negative for x, y in o.shared):
        return None
    own_a = [t for t in o.left_a if t.weight >= 1 and not t.lead]
    own_b = [t for t in o.left_b if t.weight >= 1 and not t.lead]
    if not own_a or not own_b or any(t.role != "main" or t.negative for t in own_a + own_b):
        return None
    # One way or thing in the other's place, in a word or two each, and not for a narrower case ("ship
    # fragile orders in padded boxes" against "ship orders only in recycled boxes").
    if len(own_a) > 2 or len(own_b) > 2 or modifier_added(b, o.left_b, {y.word for _, y in o.shared}):
        return None
    return " ".join(t.word for t in own_a), " ".join(t.word for t in own_b)


def _other_party(o: Overlap) -> bool:
    """"Only the lead auditor may close a finding" / "always let the control owner close findings": the
    act and its object shared and asked for on both sides, each side naming its own one who does it or
    thing it is done to, so the "only" shuts out what the other always lets in."""
    acts = [(x, y) for x, y in o.shared if x.role == y.role == "main" and x.weight >= 1 and x.negative == y.negative]
    own_a = [t for t in o.left_a if t.role == "main" and t.weight >= 1 and not t.lead]
    own_b = [t for t in o.left_b if t.role == "main" and t.weight >= 1 and not t.lead]
    return bool(acts and own_a and own_b)


def _only_in_a_case(a: Analysis, b: Analysis, shared: list[tuple[Term, Term]]) -> bool:
    """`a` allows the action only after or when something (an order or a condition, "only"), and `b`
    forbids the action outright, with no order or condition of its own. `shared` pairs `a`'s terms first."""
    if not qualified_only(words_of(a.text)) and "only" not in normalize(a.text).split():
        return False
    if not (a.order or any(t.role == "condition" for t in a.terms)):
        return False
    if b.order or any(t.role in ("condition", "exception") for t in b.terms):
        return False
    return any(x.lead and y.lead and x.role == y.role == "main" and not x.negative and y.negative for x, y in shared)


def _one_sided_order(a: Analysis, b: Analysis) -> bool:
    """`a` orders two steps and `b` neither orders nor conditions anything: "after it is fixed" and "once it
    is fixed" name the same trigger; "never sign without a review" and "review before signing" the same
    step, so a condition or carve-out on the other side may be the order in other words."""
    return bool(a.order) and not b.order and not any(t.role in ("condition", "exception") for t in b.terms)


# Scope words after which a party narrows the case ("calls with clients", "a discount for students").
# A restriction the sentence ends on ("share it with the analytics team only", "for internal use solely"):
# "only after"/"only when" orders or conditions the act, and is read as such elsewhere.
_RESTRICTED = re.compile(r"\b(?:only|solely|exclusively)\s*(?:[.,;:!?)]|$)|\b(?:solely|exclusively)\b")
# Words that carve a part out of what the rule covers ("prices excluding VAT"), unlike "never X without Y",
# whose Y is a condition of doing X.
_EXCLUDING = re.compile(r"\b(?:excluding|except|excepting|besides|other than|apart from)\b")


_TAKING_IN = re.compile(r"\binclud(?:ing|ed)\b|\binclusive of\b")


def _takes_in(a: Analysis) -> bool:
    return bool(_TAKING_IN.search(normalize(a.text)))


def _rest_besides_include(o: Overlap) -> bool:
    """Anything left over but the word that takes the thing in ("including")."""
    return any(t.weight >= 1 and t.word != _INCLUDE for t in o.left_a + o.left_b)


def _restricted(a: Analysis) -> bool:
    return bool(_RESTRICTED.search(normalize(a.text)))


def _excludes(a: Analysis) -> bool:
    return bool(_EXCLUDING.search(normalize(a.text)))


def _choice_in_other_words(o: Overlap, a: Analysis, b: Analysis) -> tuple[str, str] | None:
    """Two members of one closed set for one shared thing (a term that leads at most one side: "indent
    code with spaces" / "use tabs for indentation"), with little else left over on either side but each
    instruction's own verb (paraphrases differ there)."""
    alt = alternative_conflict(o, a, b)
    if alt is None or not any(x.weight >= 1 and y.weight >= 1 and not (x.lead and y.lead) for x, y in o.shared):
        return None
    rest = [t for t in o.left_a + o.left_b if t.word not in alt and t.weight >= 1 and not (t.lead and t.role == "main")]
    return alt if sum(t.weight for t in rest) <= CHOICE_RESIDUE else None


def _member_against(o: Overlap, a: Analysis, b: Analysis) -> tuple[str, str] | None:
    """A member of a closed set left over on `a`'s side, and another member of that set anywhere in `b`."""
    for x in o.left_a:
        group = alternative_group(x.word)
        if group is not None and x.weight >= 1:
            y = next((t.word for t in b.terms if t.word != x.word and alternative_group(t.word) == group), None)
            if y:
                return x.word, y
    return None


_ONE = re.compile(r"\b(?:one|a single)\b(?! (?:or|and|to|of|in|per)\b)")


def _lone_one(a: Analysis, b: Analysis) -> bool:
    """`a`'s only value is a "one" before a noun and `b` has none: "one member's schedule" is "a member's"."""
    return a.values == ("1",) and not b.values and bool(_ONE.search(normalize(a.text))) \
        and not re.search(r"\b1\b", normalize(a.text))


def _swapped(o: Overlap) -> Overlap:
    return Overlap(shared=[(y, x) for x, y in o.shared], left_a=o.left_b, left_b=o.left_a)


def _never_against_when(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """`a` forbids an act outright, with no case of its own, and `b` asks for the same act in a case (a
    condition), its instruction otherwise no wider than `a`'s: the condition of `b` is said against `a`."""
    if not remembered(a, "_forbids_outright", _forbids_outright):
        return None
    case = remembered(b, "_case_only", _case_only)
    if case is None:
        return None
    if not any(x.lead and y.lead and x.role == y.role == "main" and x.negative and not y.negative for x, y in o.shared):
        return None
    left_a = [t for t in o.left_a if t.weight >= 1]
    left_b = [t for t in o.left_b if t.role == "main" and t.weight >= 1]
    if len(left_a) > NEVER_LEFTOVER or len(left_b) > NEVER_LEFTOVER - 1:
        return None
    return case


def _forbids_outright(a: Analysis) -> bool:
    """`_never_against_when`'s side of `a`, which is `a`'s alone: no order, nothing but its instruction, and
    every word of that negated ("never X; do Y" is a compound rule, read part by part in compare())."""
    return not a.order and all(t.role == "main" for t in a.terms) \
        and all(t.negative for t in a.terms if t.role == "main" and t.weight >= 1)


def _case_only(b: Analysis) -> str | None:
    """`_never_against_when`'s side of `b`: the words of its case, when it has one and no order, exception
    or contrast; else None."""
    case = [t.word for t in b.terms if t.role == "condition" and t.weight >= 1]
    if b.order or not case or any(t.role in ("exception", "contrast") for t in b.terms):
        return None
    return " ".join(case)


def _unless_copy_changed(a: Analysis, b: Analysis, o: Overlap, duplicate: Relation) -> Relation:
    """`duplicate`, unless each rule excepts what the other asks for, or one rule is the other copied with a
    negation put in or two words swapped."""
    crossed = roles_crossed(o)
    if crossed:
        return Relation(Label.contradiction, duplicate.similarity, f"one excepts what the other asks for: {crossed}")
    changed = copy_changed(a, b)
    return Relation(Label.near_miss, duplicate.similarity, changed) if changed else duplicate


def judge(a: Analysis, b: Analysis) -> Relation:
    o = restated(overlap(a, b), a, b)
    st = _by_structure()
    sim = o.dice
    # Checked before relatedness: "Skip the call-to-action" shares one word with "End every post with a
    # clear call-to-action", and still forbids what it asks for.
    stance = presence(a.text, b.text)
    if stance.clash:
        return Relation(Label.contradiction, sim, f"one puts in what the other leaves out: {stance.clash}")
    if sim < RELATED:
        choice = _choice_in_other_words(o, a, b)
        if choice:
            # "Write all manifests in YAML" / "author every manifest as JSON": the verbs differ, so the
            # overlap is low, but one thing gets two members of one closed set and nothing else differs.
            return Relation(Label.contradiction, sim, f"they choose different values: {choice[0]} / {choice[1]}")
        never = _never_against_when(a, b, o) or (
            _never_against_when(b, a, _swapped(o)) if remembered(b, "_forbids_outright", _forbids_outright) else None)
        if never and values_relation(a, b) != "mismatch":
            # "Never deploy on Fridays" / "deploy on Fridays when it is an urgent hotfix": the condition's
            # words keep the overlap low, but the one forbids outright what the other does in a case.
            return Relation(Label.contradiction, sim, f"one never does it, the other does it when {never}")
        elsewhere = st.only_elsewhere(a, b, o) or st.only_elsewhere(b, a, _swapped(o))
        if elsewhere:
            return Relation(Label.contradiction, sim, f"one does it only {elsewhere[0]}, the other {elsewhere[1]}")
        later = st.put_off_against_early(a, b, o) or st.put_off_against_early(b, a, _swapped(o))
        if later:
            return Relation(Label.contradiction, sim, f"one puts it off until {later}, the other does it early")
        return Relation(Label.unrelated, sim, "they share too few terms to be about the same thing")
    values = values_relation(a, b)
    if values not in ("same", "none"):
        moved = values_as_cases(a, b, o)
        if moved:
            # One number set on one side and named in a case on the other: read as the same value.
            a, b, o = moved
            sim, values = o.dice, values_relation(a, b)
    if values == "same":
        o = without_implied_measures(o)  # "hold the temperature at 4 degrees C" / "keep it at 4 degrees C"
    left_a, left_b = _leftover_weight(o.left_a), _leftover_weight(o.left_b)
    exception_only = [t.word for t in o.left_a + o.left_b if t.role == "exception" and t.weight >= 1]
    literal = literal_conflict(o)

    reversed_act = st.undone(a, b, o)
    if reversed_act and not exception_only:  # "install the client" / "uninstall the client"
        return Relation(Label.contradiction, sim, "one undoes what the other does: " + " / ".join(reversed_act))
    both = (a.text + " " + b.text).lower()
    direction = st.run_the_other_way(a.text, b.text) if "from" in both or "out of" in both else None
    if direction == "values" and values in ("same", "none") and max(left_a, left_b) <= LEAD_DISCOUNT:
        return Relation(Label.contradiction, sim, "they run one span the opposite way")
    if direction:
        return Relation(Label.near_miss, sim, "the same span run the other way")
    conflict = [] if stance.apart else _polarity_conflict(o)
    if st.said_both_ways(a, b, o, conflict):
        conflict = []  # "never go beyond the trail" / "keep within the trail"
    if conflict and any(x.role == "exception" or y.role == "exception" for x, y in o.shared):
        # "End with a CTA unless the post is short" against "omit the CTA on short posts": the carve-out
        # on one side is exactly the other's case, so both hold.
        return Relation(Label.near_miss, sim, "one side's exception is the other's case")
    if conflict and not exception_only:
        if _only_in_a_case(a, b, o.shared) or _only_in_a_case(b, a, [(y, x) for x, y in o.shared]):
            # "Never book red-eye flights" / "never book them before a meeting" (read "book them only after
            # a meeting"): the narrower rule forbids a case of what the other forbids always.
            return Relation(Label.near_miss, sim, "one rules it out always, the other only in a case")
        return Relation(Label.contradiction, sim, f"one asks for and the other against: {', '.join(conflict)}")
    without = _without_against_never_without(o)
    if without:
        return Relation(Label.contradiction, sim, f"one does it without {without}, the other never without it")
    order = _order_conflict(a, b)
    if order and not exception_only:
        return Relation(Label.contradiction, sim, f"they order {order[0]} and {order[1]} the opposite way")
    own = st.fixed_against_own(a, b, o)
    if own and not exception_only:  # "in French" / "in the customer's language"
        return Relation(Label.contradiction, sim, f"they choose different values: {own[0]} / {own[1]}")
    priced = st.free_against_charged(a, b, o)
    if priced and not exception_only:  # "offer free parking" / "charge for parking"
        return Relation(Label.contradiction, sim, f"one gives free what the other charges for: {priced}")
    alt = alternative_conflict(o, a, b) or means_conflict(o, a, b)
    if alt:
        residue = max(left_a, left_b) - 1
        if residue <= CONTRADICTION_RESIDUE and not exception_only:
            return Relation(Label.contradiction, sim, f"they choose different values: {alt[0]} / {alt[1]}")
        return Relation(Label.near_miss, sim, f"different choices ({alt[0]} / {alt[1]}) in different cases")
    if literal and not exception_only:
        return Relation(Label.contradiction, sim, f"they quote different words for one place: {literal[0]} / {literal[1]}")
    if values == "mismatch":
        if max(left_a, left_b) <= VALUES_RESIDUE and not exception_only \
                and not st.values_for_own_parties(a.text, b.text, o):
            return Relation(Label.contradiction, sim, "same rule, different values: "
                            f"{', '.join(counted(a, b))} / {', '.join(counted(b, a))}")
        return Relation(Label.near_miss, sim, "different values for different cases")
    only = _only_against_always(a, b, o) or _only_against_always(b, a, o)
    if only and not exception_only:
        return Relation(Label.contradiction, sim, f"one does it only for {only}, the other always")
    later = st.put_off_against_early(a, b, o) or st.put_off_against_early(b, a, _swapped(o))
    if later and not exception_only:
        return Relation(Label.contradiction, sim, f"one puts it off until {later}, the other does it early")
    if exception_only:
        return Relation(Label.near_miss, sim, f"an exception on one side only: {', '.join(exception_only)}")
    clock = clock_against_part(a, b, o) if values == "one-sided" else None
    if clock and not exception_only and max(left_a, left_b) <= VALUES_RESIDUE:
        return Relation(Label.contradiction, sim, f"same rule, different values: {clock[0]} / {clock[1]}")
    if values in ("one-sided", "extra") and not (_lone_one(a, b) or _lone_one(b, a)):
        return Relation(Label.near_miss, sim, "a number or date on one side only")
    if _one_sided_order(a, b) or _one_sided_order(b, a):
        # "Show prices before tax" orders what the other rule does not: a trigger or a step of its own.
        return Relation(Label.near_miss, sim, "an order of steps on one side only")
    carved = [x.word for x, y in o.shared if x.role != y.role and "exception" in (x.role, y.role)
              and _excludes(a) != _excludes(b)]
    taken_in = st.included_against_carved(a, b, o) if carved else None
    if taken_in:
        return Relation(Label.contradiction, sim, f"one puts in what the other leaves out: {taken_in}")
    if carved and _takes_in(a if _excludes(b) else b) and not _rest_besides_include(o):
        # "Show prices excluding VAT" / "show prices including VAT": one setting, two values.
        return Relation(Label.contradiction, sim, f"one takes in what the other leaves out: {', '.join(carved)}")
    if carved:
        # "Show prices excluding VAT" / "prices of software": one side carves out what the other takes in.
        return Relation(Label.near_miss, sim, f"an exception on one side only: {', '.join(carved)}")
    only_other = _only_against_another(a, b, o) or (
        _only_against_another(b, a, _swapped(o)) if qualified_only(words_of(b.text)) else None)
    only_other = only_other or st.only_elsewhere(a, b, o) or st.only_elsewhere(b, a, _swapped(o))
    if only_other:
        return Relation(Label.contradiction, sim, f"one does it only {only_other[0]}, the other {only_other[1]}")
    if _restricted(a) != _restricted(b) and not ONLY_A_WAY.search(normalize((b if _restricted(a) else a).text)):
        # "Share the export with the analytics team only": a restriction the other rule does not make (or makes
        # before its case: "on weekends only" / "only on weekends").
        return Relation(Label.near_miss, sim, "one restricts it to that case alone, the other does not")
    opposed = _opposed(o)
    excepted = case_against_exception(o, a, b)
    if excepted:  # "refund it if the ticket is unused" / "refund it unless the ticket is unused"
        return Relation(Label.near_miss, sim, f"one side's case is the other's exception: {excepted}")
    if not opposed and (sim >= DUPLICATE or max(left_a, left_b) <= REWORDED_LEFTOVER):
        qualified = qualified_apart(a, b)
        if qualified:
            return Relation(Label.near_miss, sim, f"a qualifier on one side only: {qualified}")
    if not opposed and max(left_a, left_b) <= REWORDED_LEFTOVER:
        other = _member_against(o, a, b) or (
            _member_against(_swapped(o), b, a) if any(alternative_group(t.word) is not None for t in o.left_b) else None)
        if other:
            # "Squash commits when merging PRs" / "merge PRs with a merge commit": the one left over is one
            # of a closed set whose other member the other rule names, though it shares that one too.
            return Relation(Label.near_miss, sim, f"different choices of one set: {other[0]} / {other[1]}")
        if reworded(a, b, o, left_a, left_b):
            # A near-miss is the other rule copied with one detail added or changed; a rule worded apart in
            # several places and left with at most a word or so unread on each side is a paraphrase.
            return _unless_copy_changed(a, b, o, Relation(Label.duplicate, sim, "they say the same thing in other words"))
    if sim >= DUPLICATE and max(left_a, left_b) <= DUPLICATE_LEFTOVER and not opposed:
        verbs = verbs_apart(o)
        if verbs and _verbs_against(o):
            # "Decline every read receipt request" / "send read receipts when asked": one object, an act
            # refused on one side and another done to it on the other.
            return Relation(Label.contradiction, sim, f"one refuses what the other does: {verbs}")
        if verbs:
            # "Archive old tickets" / "close old tickets": one object, two actions the lexicon does not
            # know to be one. A paraphrase or another action: the evaluator cannot tell which.
            return Relation(Label.near_miss, sim, f"the same object, different actions: {verbs}", unsure=True)
        return _unless_copy_changed(a, b, o, Relation(Label.duplicate, sim, "they say the same thing"))
    unsure = sim >= DUPLICATE and max(left_a, left_b) <= UNSURE_LEFTOVER and not opposed
    return Relation(Label.near_miss, sim, "close wording, but each says something the other does not", unsure)
