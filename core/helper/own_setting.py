"""One fixed value of a setting against the party's own value of it, a contradiction of two values: "answer
in French" / "answer in the customer's language", "bill in euros" / "in their own currency", "schedule in
UTC" / "in each attendee's time zone". The fixed side names a member of a closed set (`synonyms.py`); the
other names the setting that set fills (language, currency, time zone), held by a party ("the customer's",
"their own", "local").

Nothing else may differ but each side's verb and the one word naming the party: "answer emails from Quebec
in the customer's language" names a case of its own and stays a near-miss. `offline_judge.py` decides with it.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, Term, canon
from agentuse.core.helper.vocabulary import alternative_group
from agentuse.core.lazy_regex import lazy

# The setting a closed set fills, by one member of the set: the noun that names it.
_SETTINGS = {"english": ("language",), "euro": ("currency",), "utc": ("zone", "timezone", "time")}
# Words that make the setting the party's own ("the customer's language", "their own currency", "local time").
_OWNED = lazy(r"\b(?:\w+'s|\w+s'|their|his|her|your|my|our|own|local|native|preferred)\b")
_OWN_WORDS = frozenset(canon(w) for w in ("own", "local", "native", "preferred"))


def fixed_against_own(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """A member fixed on one side, the party's own value of its setting on the other: the two, or None."""
    for fixed, owned, left_fixed, left_owned in ((a, b, o.left_a, o.left_b), (b, a, o.left_b, o.left_a)):
        found = _fixed_and_owned(owned, _own(left_fixed), _own(left_owned))
        if found and not any(x.negative != y.negative for x, y in o.shared) \
                and any(x.lead and y.lead and x.role == y.role == "main" for x, y in o.shared):
            return found
    return None


def _own(left: list[Term]) -> list[Term]:
    return [t for t in left if t.weight >= 1 and not t.lead]


def _fixed_and_owned(owned: Analysis, left_fixed: list[Term], left_owned: list[Term]) -> tuple[str, str] | None:
    if len(left_fixed) != 1 or left_fixed[0].negative or left_fixed[0].role != "main":
        return None
    group = alternative_group(left_fixed[0].word)
    nouns = next((frozenset(canon(n) for n in names) for member, names in _SETTINGS.items()
                  if alternative_group(canon(member)) == group), None)
    if group is None or nouns is None or not _OWNED.search(owned.text.lower()):
        return None
    setting = [t for t in left_owned if t.word in nouns]
    rest = [t for t in left_owned if t.word not in nouns and t.word not in _OWN_WORDS]
    if not setting or len(rest) > 1 or any(t.negative or t.role != "main" for t in left_owned):
        return None
    if any(alternative_group(t.word) == group for t in owned.terms if t.word not in _OWN_WORDS):
        return None  # the owned side names a member itself
    return left_fixed[0].word, " ".join(t.word for t in left_owned)
