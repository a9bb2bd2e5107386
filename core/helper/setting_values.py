"""Two values of one setting, read by the structure of the two rules where no closed set names them (the closed
sets and numbers are `offline_choices.py`'s):

- a fixed member against the party's own value of its setting: "answer in French" / "in the customer's
  language", "schedule in UTC" / "in each attendee's time zone" (`fixed_against_own`);
- free against charged: "offer free parking to visitors" / "charge visitors for parking" (`free_against_charged`);
- taken in against carved out, the taking in the instruction's own verb: "include tax in the price" / "print the
  price before tax" (`included_against_carved`);
- and, against a contradiction, two values each set for its own party: "book taxis for staff a day ahead" /
  "for visitors a week ahead" are two cases (`values_for_own_parties`).

Each asks that nothing else differ but the verbs and the words saying the value, so a case of its own on one
side keeps the pair a near-miss. `offline_judge.py` decides with them.
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, Term, canon
from agentuse.core.helper.vocabulary import alternative_group, number_of, written
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy


# The setting a closed set fills, by one member of the set: the noun that names it.
_SETTINGS = {"english": ("language",), "euro": ("currency",), "utc": ("zone", "timezone", "time")}
# Words that make the setting the party's own ("the customer's language", "their own currency", "local time").
_OWNED = lazy(r"\b(?:\w+'s|\w+s'|their|his|her|your|my|our|own|local|native|preferred)\b")
_POSSESSIVE = lazy(r"\b(\w+?)(?:'s|s')(?!\w)")
_OWN_WORDS = frozenset(canon(w) for w in ("own", "local", "native", "preferred"))


@lru_cache(maxsize=1)
def _setting_nouns() -> dict[int, frozenset[str]]:
    """The nouns of each setting, by the closed set that fills it."""
    return {alternative_group(canon(member)): frozenset(canon(n) for n in names) for member, names in _SETTINGS.items()}


def fixed_against_own(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """A member fixed on one side, the party's own value of its setting on the other: the two, or None."""
    settings = _setting_nouns()
    if not any(alternative_group(t.word) in settings for t in o.left_a + o.left_b):
        return None  # no member of a set whose setting has a name: most pairs
    for fixed, owned, left_fixed, left_owned in ((a, b, o.left_a, o.left_b), (b, a, o.left_b, o.left_a)):
        found = _fixed_and_owned(owned, _own(left_fixed), _own(left_owned))
        if found and not any(x.negative != y.negative for x, y in o.shared) \
                and any(x.lead and y.lead and x.role == y.role == "main" for x, y in o.shared):
            return found
    return None


def _own(left: list[Term]) -> list[Term]:
    return [t for t in left if t.weight >= 1 and not t.lead]


@lru_cache(maxsize=4096)
def _possessors(text: str) -> frozenset[str]:
    """The stems of the words a text writes as owners: "the customer's", "each attendee's", "users'"."""
    return frozenset(written(m.group(1)) for m in _POSSESSIVE.finditer(text.lower()))


def _fixed_and_owned(owned: Analysis, left_fixed: list[Term], left_owned: list[Term]) -> tuple[str, str] | None:
    if len(left_fixed) != 1 or left_fixed[0].negative or left_fixed[0].role != "main":
        return None
    group = alternative_group(left_fixed[0].word)
    nouns = _setting_nouns().get(group) if group is not None else None
    if nouns is None or not _OWNED.search(owned.text.lower()):
        return None
    setting = [t for t in left_owned if t.word in nouns]
    # The one word more may only be whose it is ("the customer's"), not which things ("EU clients").
    rest = [t for t in left_owned if t.word not in nouns and t.word not in _OWN_WORDS]
    if not setting or len(rest) > 1 or any(t.negative or t.role != "main" for t in left_owned):
        return None
    if rest and (rest[0].surface or rest[0].word) not in _possessors(owned.text):
        return None
    if any(alternative_group(t.word) == group for t in owned.terms if t.word not in _OWN_WORDS):
        return None  # the owned side names a member itself
    return left_fixed[0].word, " ".join(t.word for t in left_owned)


_FREE = lazy(r"\b(?:free|at no (?:extra )?(?:cost|charge)|complimentary|gratis)\b")
_CHARGE = canon("charge")
_PRICE_WORDS = frozenset(canon(w) for w in ("free", "charge", "fee", "cost", "price", "complimentary"))
_CURRENCY = alternative_group(canon("euro"))


@lru_cache(maxsize=4096)
def _says_free(text: str) -> bool:
    low = text.lower()
    return any(map(low.__contains__, ("free", "no ", "complimentary", "gratis"))) and bool(_FREE.search(low))


def free_against_charged(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """What is free on one side and charged for on the other, or None."""
    free_a, free_b = _says_free(a.text), _says_free(b.text)
    if free_a == free_b:
        return None  # most pairs: neither says free
    for free, charged in ((a, b), (b, a)) if free_a else ((b, a),):
        lead = next((t for t in charged.terms if t.lead and t.role == "main"), None)
        if lead is None or lead.negative or (lead.word != _CHARGE and not charged.values):
            continue
        if free.values or any(t.negative for t in free.terms + charged.terms):
            continue
        rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and not (t.lead and t.role == "main")
                and t.word not in _PRICE_WORDS and alternative_group(t.word) != _CURRENCY]
        things = [x.word for x, _ in o.shared if x.weight >= 1 and x.word not in _PRICE_WORDS]
        if not rest and things:
            return ", ".join(things)
    return None


_INCLUDE = canon("include")


def included_against_carved(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """What `a` (or `b`) puts in with its own verb and the other carves out, or None."""
    for taking, carving, pairs in ((a, b, o.shared), (b, a, [(y, x) for x, y in o.shared])):
        if not _includes(taking):
            continue
        carved = [x.word for x, y in pairs if y.role == "exception" and x.role == "main" and not x.negative
                  and not x.lead and x.weight >= 1]
        if not carved:
            continue
        # Everything the carving side leaves out is what the taking side puts in; nothing else carved.
        if any(t.role == "exception" and t.word not in carved for t in carving.terms):
            continue
        rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and not (t.lead and t.role == "main")]
        if rest or any(x.negative or y.negative for x, y in o.shared):
            continue
        return ", ".join(carved)
    return None


def _includes(a: Analysis) -> bool:
    """Its instruction's verb, asked for, puts something in."""
    lead = next((t for t in a.terms if t.lead and t.role == "main"), None)
    return lead is not None and lead.word == _INCLUDE and not lead.negative


_WORD = lazy(r"[a-z0-9][a-z0-9'-]*")


def values_for_own_parties(a_text: str, b_text: str, o: Overlap) -> bool:
    """One scoped word of its own on each side, neither what a number counts: the values are per party."""
    own_a = [t for t in o.left_a if t.weight >= 1 and not t.lead]
    own_b = [t for t in o.left_b if t.weight >= 1 and not t.lead]
    if len(own_a) != 1 or len(own_b) != 1:
        return False
    return _party(own_a[0], a_text) and _party(own_b[0], b_text)


def _party(t: Term, text: str) -> bool:
    return t.scoped and not t.means and t.role == "main" and not t.negative and t.surface not in _counted(text)


def _counted(text: str) -> set[str]:
    """The stems of the words right after a number: the things it counts ("two sentences")."""
    words = _WORD.findall(normalize(text))
    return {written(w) for prev, w in zip(words, words[1:]) if number_of(prev) is not None}
