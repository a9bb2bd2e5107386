"""Qualifiers: the words that narrow or soften what a rule asks for ("only", "most", "your own", "again",
"the first"), read from its text. A qualifier family one rule uses and the other does not makes two rules
never a duplicate, whatever else matches (`qualified_apart`); "only" before a way or a thing restricts
the rule, before an order or a condition it orders it (`ONLY_A_WAY`). `offline_judge.py` reads them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.similarity import Analysis
from agentuse.core.helper.wording import normalize

# "only" before a way or a thing ("only through the portal", "in English only"), not before an order or a
# condition ("only after CI passes" is read as an order).
# A passive between keeps it an order: "the outer gate may only be opened once the inner one is locked".
ONLY_A_WAY = re.compile(r"\b(?:only|solely|exclusively)\b(?!\s+(?:(?:be|been|get|gets|is|are)\s+[a-z]+(?:ed|en|t)\s+)?"
                        r"(?:after|before|when|if|once|until|while|whenever|prior)\b)")


@lru_cache(maxsize=8192)
def tokens_of(text: str) -> tuple[str, ...]:
    """A text's words once normalized."""
    return tuple(lx.WORD_RE.findall(normalize(text)))


_QUALIFYING = frozenset(lx.QUALIFIERS) | lx.POSITIONS


@lru_cache(maxsize=8192)
def qualifiers(text: str) -> dict[str, str]:
    """The qualifier families a text uses, each with the word it used for it (lexicon.QUALIFIERS)."""
    found: dict[str, str] = {}
    tokens = tokens_of(text)
    if _QUALIFYING.isdisjoint(tokens) and not any(token.endswith("pos") for token in tokens):
        return found  # most rules hold none
    for i, token in enumerate(tokens):
        if token in lx.QUALIFIERS and not (token == "other" and tokens[i + 1:i + 2] == ("than",)):
            found.setdefault(lx.QUALIFIERS[token], token)
        elif token in lx.POSITIONS and i > 0 and tokens[i - 1] == "the":
            found.setdefault(token, f"the {token}")
        elif token.endswith("pos") and token[:-3] in lx.POSITIONS:  # normalize's "the first" + noun
            found.setdefault(token[:-3], f"the {token[:-3]}")
    return found


def qualified_apart(a: Analysis, b: Analysis) -> str | None:
    """A qualifier family one rule uses and the other does not ("most messages" / "all messages", "your own
    expenses" / "expenses"): never a duplicate, whatever else matches."""
    qa, qb = _restricting(a), _restricting(b)
    # Said the other way on the other side: "only recommend wines you have tasted" is "never recommend one
    # you have not" (its negation says the "only"); "your own expenses" is "expenses you submitted yourself".
    for family, said_by in (("only", lx.NEGATORS), ("own", _REFLEXIVES)):
        if family in qa and not said_by.isdisjoint(tokens_of(b.text)):
            qa = {f: word for f, word in qa.items() if f != family}
        if family in qb and not said_by.isdisjoint(tokens_of(a.text)):
            qb = {f: word for f, word in qb.items() if f != family}
    apart = [word for f, word in qa.items() if f not in qb] + [word for f, word in qb.items() if f not in qa]
    return ", ".join(apart) if apart else None


_REFLEXIVES = frozenset({"yourself", "yourselves", "themselves", "himself", "herself", "myself", "ourselves"})


def _restricting(a: Analysis) -> dict[str, str]:
    return _restricting_text(a.text)


@lru_cache(maxsize=8192)
def _restricting_text(text: str) -> dict[str, str]:
    """`qualifiers` that restrict the rule: not a position ("the first line" is a term of its own), not
    "only" before an order or a condition ("X only after Y", how "never X until Y" is read: an order), not
    "the most" of a superlative ("the most important finding")."""
    found = {family: word for family, word in qualifiers(text).items() if family not in lx.POSITIONS}
    if "only" in found and not ONLY_A_WAY.search(normalize(text)):
        del found["only"]
    if found.get("most") == "most" and re.search(r"\bthe most\b", normalize(text)) \
            and not re.search(r"(?<!the )\bmost\b", normalize(text)):
        del found["most"]
    return found


_ONLY_FAMILY = frozenset(word for word, family in lx.QUALIFIERS.items() if family == "only")


def qualified_only(tokens: frozenset[str]) -> bool:
    return not _ONLY_FAMILY.isdisjoint(tokens)


@lru_cache(maxsize=8192)
def words_of(text: str) -> frozenset[str]:
    return frozenset(lx.WORD_RE.findall(text.lower()))

