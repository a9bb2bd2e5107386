"""Leftovers one rule restates in the other's place: words left over on both sides of an overlap that the
two rules say each in their own way, so that neither is a detail of its own.

- Two qualifiers of one family ("usually" / "typically", "solely" / "exclusively") are one qualifier said
  two ways: the family is what `qualifiers.py` compares, so the words are matched as one term, written apart.
- A possessive placeholder says whose, not who: "sharing someone's number" is "sharing a number"
  ("someone else's" is another's, a qualifier of its own).
- A place with none named, before the place it stresses: "anywhere in the newsletter" is "in the newsletter".
- A state kept is its opposite forbidden: "keep the cat on the harness" is "don't let the cat off the
  harness", "keep the window closed" is "never open the window". The forbidding side is read as asking for
  the state the other keeps (`_opposite_state`).
- A noun that only says "one of these" ("vegetarian options", "a kind of bread") stands where the other rule
  has a placeholder ("something vegetarian"): each side's is the thing itself.

`offline_judge.py` reads every pair through `restated` before it judges; most pairs have none of these and
pass unchanged after a look at their leftovers.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.qualifiers import tokens_of
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import canon
from agentuse.core.lazy_regex import lazy

# Nouns that name no thing but a choice among things: "gluten-free options" is "something gluten-free".
_CHOICE_NOUNS = ("option", "options", "choice", "choices", "kind", "kinds", "variety", "varieties")
# Whose, with no one named: the possessive of a placeholder person ("someone's", "somebody's").
_POSSESSIVE_PLACEHOLDER = lazy(r"\b(?:someone|somebody)['\u2019]s\b")
_PERSON_PLACEHOLDERS = ("someone", "somebody")
# A place with none named before the place it stresses: "anywhere in the newsletter" is "in the newsletter"
# (a bare "anywhere" is every place, wider than one).
_PLACE_PLACEHOLDERS = ("anywhere", "everywhere")
_BEFORE_A_PLACE = lazy(r"\b(?:anywhere|everywhere) (?:in|on|at|within|inside|across|throughout)\b")


# A state and the words of its opposite: general English, the places and positions a rule keeps a thing in.
_OPPOSITES = {"off": ("on",), "outside": ("inside", "in", "within", "atmost"), "inside": ("outside",), "beyond": ("within", "inside", "atmost"),
              "open": ("closed", "shut"), "closed": ("open",), "shut": ("open",), "out": ("in", "inside", "within", "atmost")}


@lru_cache(maxsize=1)
def _opposites() -> dict[str, tuple[str, ...]]:
    return {canon(word): opposite for word, opposite in _OPPOSITES.items()}


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """Built on first use: most comparisons never need them."""
    families = {canon(word): family for word, family in lx.QUALIFIERS.items()}
    return (families, frozenset(canon(w) for w in _CHOICE_NOUNS), frozenset(canon(w) for w in lx.PLACEHOLDERS),
            frozenset(canon(w) for w in _PERSON_PLACEHOLDERS), frozenset(canon(w) for w in _PLACE_PLACEHOLDERS))


def restated(o: Overlap, a: Analysis, b: Analysis) -> Overlap:
    """`o` with what each side restates of the other taken off its leftovers; `o` itself when nothing is."""
    if not o.left_a and not o.left_b:
        return o
    flipped = _opposite_state(o, a, b)
    if flipped is not None:
        o = flipped
    families, choices, placeholders, persons, places = _tables()
    shared, left_a, left_b = list(o.shared), list(o.left_a), list(o.left_b)
    changed = flipped is not None
    for x in list(left_a):
        family = families.get(x.word)
        y = next((t for t in left_b if family and families.get(t.word) == family and t.negative == x.negative), None)
        if y is not None:
            shared.append((x, y))
            left_a.remove(x)
            left_b.remove(y)
            changed = True
    for side, text in ((left_a, a.text), (left_b, b.text)):
        if any(t.word in persons for t in side) and _POSSESSIVE_PLACEHOLDER.search(text.lower()):
            side[:] = [t for t in side if t.word not in persons]
            changed = True
    for side, text in ((left_a, a.text), (left_b, b.text)):
        if any(t.word in places for t in side) and _BEFORE_A_PLACE.search(text.lower()):
            side[:] = [t for t in side if t.word not in places]
            changed = True
    for side, other in ((left_a, left_b), (left_b, left_a)):
        if _is_a_choice(side, choices) and any(t.word in placeholders for t in other):
            side[:] = [t for t in side if t.word not in choices]
            changed = True
    return Overlap(shared=shared, left_a=left_a, left_b=left_b) if changed else o


def _is_a_choice(side: list[Term], choices: frozenset[str]) -> bool:
    """A choice noun left over on this side, and nothing else but its verb."""
    return any(t.word in choices for t in side) and all(t.word in choices or t.weight < 1 or t.lead for t in side)


def _opposite_state(o: Overlap, a: Analysis, b: Analysis) -> Overlap | None:
    """One side forbids a state ("never let the cat off the harness") whose opposite the other keeps
    ("keep the cat on the harness"), asking for nothing against: the forbidding side read as asking for
    the kept state, the state word dropped. None when the pair is not so."""
    opposites = _opposites()
    for a_forbids in (True, False):
        forbids, keeps = (o.left_a, o.left_b) if a_forbids else (o.left_b, o.left_a)
        state = next((t for t in forbids if t.negative and t.role == "main" and t.word in opposites), None)
        if state is None:
            continue
        kept = [y if a_forbids else x for x, y in o.shared] + keeps
        if any(t.negative for t in kept) or not set(opposites[state.word]) & set(tokens_of((b if a_forbids else a).text)):
            continue
        kept_words = {canon(w) for w in opposites[state.word]}
        forbids = [_asked(t) for t in forbids if t is not state]
        keeps = [t for t in keeps if t.word not in kept_words]
        if any(t.weight >= 1 for t in forbids) and any(t.weight >= 1 for t in keeps):
            # Each keeps it somewhere of its own: "never store paint out of the cabinet" is "only in the
            # cabinet", which "store paint in the basement" goes against. Not one state said two ways.
            continue
        if a_forbids:
            return Overlap(shared=[(_asked(x), y) for x, y in o.shared], left_a=forbids, left_b=keeps)
        return Overlap(shared=[(x, _asked(y)) for x, y in o.shared], left_a=keeps, left_b=forbids)
    return None


def _asked(t: Term) -> Term:
    """The term of the instruction asked for, not against."""
    return replace(t, negative=False) if t.role == "main" else t
