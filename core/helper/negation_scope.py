"""Where a negation inside one clause begins to reach: the offline evaluator reads a clause in segments,
each with its own polarity (`similarity._clause_terms`), and these are the places inside a clause where a
negation belongs to a part of it, not to the instruction that opens it.

- "tell the owner not to swim": the negation is the told instruction's ("not"/"never" before "to"), so
  the telling and the one told are asked for, as in "advise the owner that nobody should swim";
- "check the wind and do not fly": a second instruction joined by "and", with a negation of its own;
- "relationships you have not verified": a relative clause without its pronoun (a subject pronoun, an
  auxiliary and a negation after a noun) says which ones, as "that are not verified" does;
- "advise the owner that nobody should swim", "warn users that old files may be deleted": after a verb
  of telling, "that" opens what is told, with a polarity of its own;
- "mark them in pencil, never in pen": a short clause of a negation alone after the instruction is what
  it is against, as "rather than in pen" is (`trailing_contrast`).

General English clause structure, not phrases of any test set.
"""

from __future__ import annotations

from agentuse.core.helper.lexicon import CONDITION_MARKERS, NEGATORS, ORDER_MARKERS, WORD_RE

# Who does a relative clause's verb ("the files you have not checked", "cases we did not close").
_SUBJECTS = frozenset({"you", "we", "they", "i", "he", "she"})
_AUXILIARIES = frozenset({"have", "has", "had", "do", "does", "did", "are", "is", "was", "were", "can", "could",
                          "will", "would", "should", "may", "might", "must"})
# Verbs whose "that" opens what is told, not a relative clause ("remind guests that towels are not
# included"). Their object comes between: "tell the owner that ...".
_TELLING = frozenset({"tell", "tells", "told", "advise", "advises", "remind", "reminds", "warn", "warns", "inform",
                      "informs", "notify", "notifies", "explain", "explains", "instruct", "instructs", "ask", "asks",
                      "let"})
# Negations that stand for a subject: "nobody should swim" is "do not swim".
SUBJECT_NEGATORS = frozenset({"nobody", "noone"})
_ANY_NEGATOR = NEGATORS | SUBJECT_NEGATORS


def opens(tokens: list[str], i: int, segment: list[str]) -> str | None:
    """The role of a segment that tokens[i] opens inside the current one (`segment`, its tokens so far),
    "main" or "condition", or None when tokens[i] opens none of these. The token itself is read in the
    new segment (a negation stays the new segment's)."""
    if not segment:
        return None
    tok, after = tokens[i], tokens[i + 1:i + 3]
    if tok in ("not", "never") and after[:1] == ["to"] and not _ANY_NEGATOR.intersection(segment):
        return "main"
    # An imperative only ("and do not fly"): "names stay ... and are not translated" shares its subject.
    if tok == "and" and after and (after[0] in ("never", "not") or (after == ["do", "not"])):
        return "main"
    # Not after a negation of the instruction's own: "never recommend a wine you have not tasted" is
    # "recommend only wines you have tasted", read as a whole (its two negations cancel).
    if tok in _SUBJECTS and len(after) == 2 and after[0] in _AUXILIARIES and after[1] in _ANY_NEGATOR \
            and segment[0] not in _TELLING and not _ANY_NEGATOR.intersection(segment):
        return "condition"
    if tok == "that" and segment[0] in _TELLING:
        return "main"
    return None


# At most this many words after the negation: "never in pen", "not your own words". A longer clause is an
# instruction of its own ("..., never deploy on a Friday afternoon").
_CONTRAST_WORDS = 4
_OPENS_A_CASE = CONDITION_MARKERS | frozenset(ORDER_MARKERS) | {"unless", "except"}


def trailing_contrast(clauses: list[str], ci: int) -> str:
    """Clause `ci` of a sentence, its "not"/"never" read as "rather" when it is a negation of a few words
    after an instruction (not after a condition or an order: "if it rains, never open the roof")."""
    clause = clauses[ci]
    if ci == 0 or not clause.lstrip().startswith(("not ", "never ")):
        return clause  # most clauses (a test far cheaper than reading their words)
    words = WORD_RE.findall(clause)
    if not words or words[0] not in ("not", "never") or len(words) - 1 > _CONTRAST_WORDS:
        return clause
    first = WORD_RE.findall(clauses[0])
    if not first or first[0] in _OPENS_A_CASE or ci > 1:
        return clause
    return clause.replace(words[0], "rather", 1)


def only_the_verb_apart(shared, conflict) -> bool:
    """"Reject files under 300 dpi" / "do not accept files under 300 dpi": the shared verb is against on both
    sides, and the terms read apart are its object, which "do not" reaches and a verb that is itself a
    negation ("reject" is "do not accept") leaves as written. One instruction, not two.
    `shared` pairs terms of the two rules, `conflict` those of them read with opposite polarity."""
    verbs = [(x, y) for x, y in shared if x.lead and y.lead and x.role == y.role == "main"]
    return bool(verbs) and all(x.negative and y.negative for x, y in verbs) \
        and not any(x.lead or y.lead for x, y in conflict)
