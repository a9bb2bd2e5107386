"""Which words of a rule only describe the things it is about, not what it sets.

Two members of one closed set are two values of one setting when the value is the manner or output of
the action ("reply in Spanish" / "in German", "export as CSV" / "as JSON"). When the member sits in the
object's own description it picks WHICH things the rule is about: after a participle on the object
("reviews written in German", "payments made by card"), inside a relative clause ("incidents that happen
on weekends") or after "for", "about", "of", "from" ("notes for mobile users", "tickets from internal
teams"). Two such rules are about different cases and both can hold (`offline_choices.py` reads this).
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.vocabulary import canon
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy

# Compiled on first use: only a pair holding two members of one closed set asks (tidy, add and capture
# import this module whether or not one does).

# Up to two words between the opener and the member: a determiner or a modifier ("about the morning").
# The gap holds no preposition: in "tickets written in Spanish into English" the member after "into" is
# what the translation is set to.
_GAP = r"(?:(?!(?:in|into|as|by|on|at|to|from|with|for|of|about|via|over|through)\b)[a-z'-]+\s+){0,2}"
_OF_A_KIND = lazy(r"\b(?:for|about|of|from)\s+" + _GAP + r"$")
# A participle after the object, then the preposition that carries the member. -en/-ed words that are no
# participle ("when", "often", "need") are left out; irregular participles come from the lexicon.
_NOT_PARTICIPLES = frozenset({"when", "then", "even", "often", "open", "listen", "need", "seed", "feed",
                              "embed", "proceed", "exceed", "succeed", "speed", "indeed", "between", "screen"})
_PARTICIPLE = lazy(r"\b([a-z]+(?:ed|en)|" + "|".join(sorted(lx.IRREGULAR)) + r")\s+"
                         r"(?:in|as|by|on|at|from|with|via|through|over|during)\s+" + _GAP + r"$")
_RELATIVE = lazy(r"\b(?<!sure )(?<!so )(?:that|which|who|whose|where)\b[^,;:.!?]*$")
# A participle after one of these verbs says what the object is to be ("keep dates stored in UTC",
# "have replies written in Spanish"): the value the rule sets, not which things it is about.
_RESULT_VERBS = lazy(r"\b(?:keep|keeps|have|has|leave|get|make|want|need|needs|ensure|ensures)\b")
_CLAUSE_BREAK = lazy(r"[,;:.!?]")
_NOUN_NEXT = lazy(r"\s+(?!(?:" + "|".join(sorted(lx.STOPWORDS)) + r"|and|or|not|no|until|unless|when|if|before|after)\b)[a-z]")


@lru_cache(maxsize=8192)
def described_words(text: str) -> frozenset[str]:
    """The canonical words that sit in the description of what `text` is about: a closed-set member or a
    means there ("invoices which arrive as PDF") picks which things, it sets nothing."""
    norm = normalize(text)
    found = set()
    for m in lx.WORD_RE.finditer(norm):
        word = canon(m.group(0))
        before = _CLAUSE_BREAK.split(norm[:m.start()])[-1]
        after = _CLAUSE_BREAK.split(norm[m.end():])[0]
        if _describes(before, after):
            found.add(word)
    return frozenset(found)


def _describes(before: str, after: str) -> bool:
    """Whether the words of the clause around a word put it in the object's description."""
    # After "for"/"of"/"from" a word is a kind only when it modifies a noun ("for mobile users"); the
    # object of the preposition itself is a value set ("plan it for the morning", "from Monday").
    if _OF_A_KIND.search(before) and _NOUN_NEXT.match(after):
        return True
    if _RELATIVE.search(before):
        return True
    participle = _PARTICIPLE.search(before)
    if participle is None or participle.group(1) in _NOT_PARTICIPLES:
        return False
    head = before[:participle.start()]
    # The participle follows the object: some word before it, and no verb that makes it a result.
    return bool(lx.WORD_RE.search(head)) and not _RESULT_VERBS.search(head)
