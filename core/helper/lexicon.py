"""Word lists the offline evaluator reads rules with: function words, negators, markers, verbs of presence.

General English and the vocabulary of instructions to agents (writing, code, browsers, data, support),
not phrases of any test set. Each list says why it exists; the evaluator is only as good as these, and
it says so (see `offline.py`).
"""

from __future__ import annotations

import re

# Re-exported: the groups that mean the same, name one act or exclude one another live in `synonyms.py`.
from agentuse.core.helper.synonyms import ALTERNATIVES, SCALES, SYNONYMS  # noqa: F401

# Function words and modal fluff: they carry no subject. Quantifiers like "every"/"all" are here because
# "every post" and "posts" state the same rule; negators and comparators are NOT here (they are signal).
STOPWORDS = frozenset("""
a an the to of in on at by for from with into onto as is are be been being was were am it its it's they
their them theirs this that these those there here you your yours we our i me my he she his her and or
nor so than too also just should must may might can could would will shall have has had having do does did
doing need needs needed always every each all any some both either sure please make makes
ensure ensures ensuring making kindly really very only then once again whenever which who whom whose what how where why
itself themselves yourself one ones own such via through per else first exactly against between about during throughout
over across whatever whichever like otherwise
other another anyone anybody everyone everybody whoever
""".split())

# Verbs that say "do it" without saying what: left over in a paraphrase, they are not a difference.
GENERIC = frozenset("""
use using used get got give gives given put puts keep keeps let lets go goes come comes carry carries require
requires required produce produces produced code
follow follows handle handles take takes taking apply applies applied want wants try tries set run runs
appear appears appeared require requires required mandate mandates stay stays remain remains
happen happens occur occurs
""".split())

# Nouns that stand for whatever the rule is about, not a thing of their own: "stay away from political topics"
# is "never post about politics", "finish every piece with a question" is "end with a question"; "a party of
# twelve people" is "a party of twelve" ("person" is kept: "group by person" is a means).
# ("team", "page" and "step" were tried: they named a case on a tuning set.)
PLACEHOLDERS = frozenset("""
topic topics thing things item items piece pieces stuff matter matters anything everything something people
""".split())

# Prepositions of means: what follows one is how the thing is done, one choice among others ("sort by
# author" / "sort by title", "pay by card" / "pay by transfer"), where "for"/"on"/"to" name a case. All but
# "as" (a form: "export as CSV") name a way, and are read as one ("interviews by phone" / "over video").
MEANS = frozenset({"by", "via", "using", "as", "over", "through"})

# Modal verbs: in "each listing must state the price" the verb after one is the instruction's verb, as the
# first word is in "state the price in each listing".
MODALS = frozenset({"should", "must", "shall", "need", "needs", "will", "ought"})
# Verbs of a condition that only say the case came about: "if a patient reports chest pain" is the case
# "for chest pain", "once the first week is over" the case "after the first week".
OCCURRENCE_VERBS = frozenset("""
report reports reported say says said mention mentions mentioned happen happens happened occur occurs occurred
arise arises come comes came over done finished arrive arrives arrived
""".split())
# Verbs that only say the thing a case names is there: "unless a site plan is attached" is "without a site
# plan". Read so after the thing itself; "book the room if it is available" names nothing else, so there
# "available" is the trigger.
THERE_VERBS = frozenset("""
attached exists exist present available
""".split())

# Qualifiers: words that narrow or soften what a rule asks for, and read as filler everywhere else (most
# are stopwords). A rewrite that drops one says something else: "link only to primary sources" is not
# "link to primary sources". Each word maps to its family, so "solely" carries "only". ("each", "every",
# "all" are not here: a rule read without them still applies to every case, which is what they say.)
QUALIFIERS = {
    "only": "only", "solely": "only", "exclusively": "only",
    "some": "some", "several": "some", "few": "some", "certain": "some",
    "most": "most", "mostly": "usually", "usually": "usually", "often": "usually", "generally": "usually",
    "typically": "usually", "normally": "usually",
    "sometimes": "sometimes", "occasionally": "sometimes",
    "rarely": "rarely", "seldom": "rarely",
    # Words that change whose or which ones: "other teams", "anyone else", "your own expenses", "call again",
    # "either parent" (one of them).
    "other": "other", "else": "other", "another": "other", "own": "own", "again": "again", "either": "either",
}
# "the first two sentences", "the last paragraph": a position that narrows the rule. Only after "the",
# because a bare "first" orders two steps ("check links first"), which the analysis reads as an order.
POSITIONS = frozenset({"first", "last"})

# Words that turn the clause they stand in into its opposite.
NEGATORS = frozenset({"not", "no", "never", "avoid", "avoids", "without", "nor", "refrain", "stop", "none"})

# Words opening a clause that carves an exception out of the rule ("other" only as "other than").
EXCEPTION_MARKERS = frozenset({"unless", "except", "excluding", "but", "apart", "besides", "other"})
# Words opening a condition: what follows says when the rule applies, not what it asks for, so a
# negation inside it ("if the selector is not found") is not the rule's polarity.
CONDITION_MARKERS = frozenset({"when", "if", "whenever", "once", "until", "while"})
# Words that order two events; they are read into (earlier, later) pairs instead of terms.
ORDER_MARKERS = {"before": "later", "after": "earlier", "then": "later", "afterwards": "earlier",
                 "afterward": "earlier", "prior": "later"}

# Contrast: the words after it are what the rule is against ("facts rather than a pitch").
CONTRAST_MARKERS = frozenset({"rather", "instead"})

# Verbs whose meaning is the negation of another verb: "omit X" says "do not include X".
NEGATED_VERBS = {
    "omit": "include", "exclude": "include", "skip": "include", "leaveout": "include",
    "disable": "enable", "deactivate": "enable", "turnoff": "enable",
    "reject": "accept", "decline": "accept", "refuse": "accept",
    "hide": "show", "conceal": "show", "withhold": "publish", "forbid": "allow", "block": "allow", "deny": "allow", "prohibit": "allow",
    "ban": "allow", "disallow": "allow", "unlock": "lock", "decrease": "increase", "reduce": "increase", "lower": "raise",
    "drop": "keep", "remove": "keep", "delete": "keep", "discard": "keep", "cut": "keep", "strip": "keep",
    "revoke": "keep", "ignore": "use", "disregard": "use", "waive": "charge",
}
# The verbs above that take out the thing they name: "skip the tests" is against the tests themselves
# (so it opposes "run the tests"), not only against "including" them. Their object reads as negated.
# "ignore applicant photos" is "do not use them": its object is what is not used.
OMISSION_TARGETS = frozenset({"include", "keep", "enable", "use"})

# Verbs that put something into the work ("include a summary", "end with a call-to-action", "use emojis"):
# a rule against the thing they put in ("skip the summary", "never use emojis") is against the rule, whatever
# verb each side uses. "start"/"end" also say where it goes: "do not end with X" still lets X stand elsewhere.
# ("keep" is not one: "keep intros short" sets a property. Its antonyms drop/remove/delete/discard are read
# as "do not include" here.)
PRESENCE_VERBS = frozenset({"include", "use", "put", "start", "end"})
POSITIONAL_VERBS = frozenset({"start", "end"})
REMOVAL_VERBS = frozenset({"drop", "remove", "delete", "discard", "strip"})
# Parts of a piece of work: "never include code samples in the intro" says where they may not go, not that
# there are none, so it does not contradict "include code samples".
PLACES = frozenset("""
intro introduction conclusion outro heading headline title subject header footer body signature caption
sidebar paragraph sentence top bottom middle beginning start end opening closing margin footnote
""".split())
# Words that end the thing a presence verb puts in and open its scope ("emojis | in replies").
SCOPE_OPENERS = frozenset("""
in on at for to from into onto inside across under over during per by about with after before within
when if whenever while unless except once until atmost atleast
""".split())

# How or where an action is done, not what is done: "never cite sources inline" is against citing inline,
# not against citing, so it does not contradict "cite sources". Every word of an ALTERNATIVES group is one
# too (a choice among ways: tabs or spaces, inline or footnotes).
MANNER = frozenset("""
inline bold italic italics verbatim manually automatically separately parenthetically abbreviated
""".split())

# Irregular forms of verbs common in instructions, read as their base form before stemming ("wrote" is
# "write", "sent" is "send"). Only forms that are not also a different common word ("left", "read", "saw"
# and "found" are not here).
IRREGULAR = {
    "wrote": "write", "written": "write", "sent": "send", "went": "go", "gone": "go", "ran": "run",
    "gave": "give", "given": "give", "took": "take", "taken": "take", "made": "make", "chose": "choose",
    "chosen": "choose", "began": "begin", "begun": "begin", "broke": "break", "broken": "break", "kept": "keep",
    "got": "get", "gotten": "get", "built": "build", "paid": "pay", "said": "say", "told": "tell",
    "thought": "think", "brought": "bring", "bought": "buy", "caught": "catch", "taught": "teach", "meant": "mean",
    "shown": "show", "hidden": "hide", "hid": "hide", "forgot": "forget", "forgotten": "forget", "spent": "spend",
    "understood": "understand", "drew": "draw", "drawn": "draw", "froze": "freeze", "frozen": "freeze",
    "information": "info",  # not "inform" once "-ation" is stripped
    "publication": "publish", "publications": "publish", "finding": "result", "findings": "result",
    "eaten": "eat", "licence": "license", "licences": "licenses",  # British spelling
    "rewrote": "rewrite", "rewritten": "rewrite", "withdrew": "withdraw", "withdrawn": "withdraw",
    "advice": "advise",  # the noun of the verb, spelt apart ("medical advice" / "advise patients")
}

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "seventy": 70, "eighty": 80, "ninety": 90,
    "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100, "twice": 2, "thrice": 3,
    # Ordinals ("first" orders two steps and "second" is a unit of time, so neither is here).
    "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}

# Time units in seconds, so "24 hours" and "1 day" are the same value.
TIME_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "ms": 0.001, "millisecond": 0.001,
    "milliseconds": 0.001, "min": 60, "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hr": 3600,
    "hrs": 3600, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400, "week": 604800, "weeks": 604800,
    # A month read as 30 days and a year as 365: "within a month" is how people say "within 30 days".
    "month": 2592000, "months": 2592000, "year": 31536000, "years": 31536000,
}
# A duration without end: one more value for a setting that takes durations ("ban permanently" against
# "ban for 7 days").
FOREVER = frozenset({"permanently", "permanent", "forever", "indefinitely", "indefinite"})

# Identifiers keep their dots and underscores (robots.txt, store_get); hyphens split words.
WORD_RE = re.compile(r"[a-z][a-z0-9]*(?:[._/#+][a-z0-9]+)*|\d+(?:[.,:]\d+)*(?:st|nd|rd|th|k|s|ms|m|h|d)?")
