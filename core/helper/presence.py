"""What a rule puts into the work or keeps out of it: "end with a clear call-to-action" puts a
call-to-action in; "skip the call-to-action", "omit it on short posts" and "never include one" keep it out.

Two rules that disagree on the presence of one thing contradict each other even when they share almost no
other words, which the term overlap in `offline_judge.py` cannot see ("Skip the call-to-action" shares one
term with "End every post with a clear call-to-action"). Each clause is read for its verb (a presence verb
from `lexicon.PRESENCE_VERBS`, an antonym such as omit/skip/exclude/drop, or "avoid"), the thing it puts in
or keeps out (its object: the words up to the first scope word, "of" kept inside, so "table of contents"),
and its scope (every other content word, conditions included: "on short posts", "when the post is long").

Two such claims clash when one keeps out what the other puts in and their scopes overlap: one scope holds
every word of the other ("on short posts" inside the unconditional "end with", the spec's "narrows one so
far the two cannot both be satisfied"). Scopes that each add their own words ("long posts" / "short
posts") name different cases, and both rules hold. A clause with an exception makes no claim: a carve-out
may be exactly the other rule's case. Deterministic and conservative: no object, no claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.overlap import similar_words
from agentuse.core.helper.vocabulary import canon
from agentuse.core.helper.wording import normalize, split_clauses, split_sentences

_PRESENCE = frozenset(canon(w) for w in lx.PRESENCE_VERBS)
_POSITIONAL = frozenset(canon(w) for w in lx.POSITIONAL_VERBS)
_INCLUDE = canon("include")
_ANTONYMS = {canon(k): canon(v) for k, v in lx.NEGATED_VERBS.items() if canon(v) in _PRESENCE}
_ANTONYMS.update({canon(w): _INCLUDE for w in lx.REMOVAL_VERBS})
_PLACES = frozenset(canon(w) for w in lx.PLACES)
# "avoid X" is "do not use X"; "avoid adding X" is "do not add X" (the verb after it decides).
_AVOID = frozenset({"avoid", "avoids", "refrain"})
_USE = canon("use")


@dataclass(frozen=True)
class Claim:
    present: bool  # the rule puts the object in (True) or keeps it out (False)
    verb: str  # canonical presence verb ("include", "end", ...)
    head: str  # the object's head word: the last before "of" or the scope ("clear cta" -> "cta")
    words: frozenset[str]  # the object's content words
    scope: frozenset[str]  # every other content word of the clause: where and when it applies

    def positional(self) -> bool:
        return self.verb in _POSITIONAL


@lru_cache(maxsize=8192)
def claims(text: str) -> tuple[Claim, ...]:
    found: list[Claim] = []
    for sentence in split_sentences(normalize(text)):
        parts = [lx.WORD_RE.findall(clause) for clause in split_clauses(sentence)]
        # "When the post is short, skip the call-to-action": a condition clause scopes its sentence.
        condition = frozenset(w for tokens in parts if tokens and tokens[0] in lx.CONDITION_MARKERS
                              for w in map(_content, tokens) if w)
        for tokens in parts:
            claim = _claim(tokens)
            if claim is not None:
                found.append(Claim(present=claim.present, verb=claim.verb, head=claim.head, words=claim.words,
                                   scope=claim.scope | condition))
    return tuple(found)


def _content(token: str) -> str | None:
    if token in lx.STOPWORDS or token in lx.NEGATORS or token in lx.CONDITION_MARKERS or token in lx.SCOPE_OPENERS \
            or not token[0].isalpha():
        return None
    word = canon(token)
    return None if word in lx.STOPWORDS else word


def _claim(tokens: list[str]) -> Claim | None:
    if any(t in lx.EXCEPTION_MARKERS for t in tokens) or "rather" in tokens or "instead" in tokens:
        return None  # a carve-out or a contrast: the clause's case is not all it says
    negated = False
    i = 0
    while i < len(tokens) and tokens[i] not in _AVOID and (tokens[i] in lx.STOPWORDS or tokens[i] in lx.NEGATORS):
        negated ^= tokens[i] in lx.NEGATORS and tokens[i] not in ("without", "nor")
        i += 1
    if i == len(tokens):
        return None
    verb = canon(tokens[i])
    if tokens[i] in _AVOID:
        negated = not negated
        following = canon(tokens[i + 1]) if i + 1 < len(tokens) else ""
        if following in _PRESENCE or following in _ANTONYMS:
            i, verb = i + 1, following
        else:
            verb = _USE
    if verb in _ANTONYMS:
        verb, negated = _ANTONYMS[verb], not negated
    if verb not in _PRESENCE:
        return None
    rest = tokens[i + 1:]
    if verb in _POSITIONAL:
        # "end every post with a call-to-action": what it ends with follows "with"; the rest is scope.
        if "with" not in rest:
            return None
        at = rest.index("with")
        before, rest = rest[:at], rest[at + 1:]
    else:
        before = []
    cut = next((j for j, t in enumerate(rest) if t in lx.SCOPE_OPENERS or t in lx.CONDITION_MARKERS), len(rest))
    obj = rest[:cut]
    while len(obj) > 1 and obj[-1].endswith("ly") and _content(obj[-2]):  # "use emojis sparingly": a manner
        cut -= 1
        obj = obj[:-1]
    head_part = obj[:obj.index("of")] if "of" in obj else obj
    head = next((w for w in map(_content, reversed(head_part)) if w), None)
    if head is None:
        return None
    words = frozenset(w for w in map(_content, obj) if w)
    scope = frozenset(w for w in map(_content, before + rest[cut:]) if w and w not in lx.NEGATORS)
    return Claim(present=not negated, verb=verb, head=head, words=words, scope=scope)


@dataclass(frozen=True)
class Presence:
    """How two rules stand on the things they put in or keep out. `clash`: the thing one puts in and the
    other keeps out in a shared case. `apart`: one keeps out what the other puts in, but never in the same
    case, place or kind ("not in the intro", "long posts" / "short posts", "clickbait titles" / "a clear
    title"), so the two can both hold however their other words compare."""

    clash: str | None = None
    apart: bool = False


def presence(a: str, b: str) -> Presence:
    apart = False
    for x in claims(a):
        for y in claims(b):
            if x.present == y.present or not similar_words(x.head, y.head):
                continue
            put, out = (x, y) if x.present else (y, x)
            if _clashes(put, out):
                return Presence(clash=out.head)
            apart = True
    return Presence(apart=apart)


def _clashes(put: Claim, out: Claim) -> bool:
    small, large = sorted((put.words, out.words), key=len)
    if not all(any(similar_words(w, v) for v in large) for w in small):
        return False  # "a summary table" is not "the data table"
    # "do not end with X" leaves X free to stand elsewhere; "skip X" does not.
    if out.positional() and out.verb != put.verb:
        return False
    # "not in the intro" against "include X": the rule against it only says where X may not go.
    if (out.scope - put.scope) & _PLACES:
        return False
    # One scope inside the other: the narrower rule's case is also the broader rule's.
    return put.scope <= out.scope or out.scope <= put.scope
