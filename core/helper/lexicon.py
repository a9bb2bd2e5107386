"""Word lists the offline evaluator reads rules with: function words, negators, synonyms, alternatives.

General English and the vocabulary of instructions to agents (writing, code, browsers, data, support),
not phrases of any test set. Each list says why it exists; the evaluator is only as good as these, and
it says so (see `offline.py`).
"""

from __future__ import annotations

import re

# Function words and modal fluff: they carry no subject. Quantifiers like "every"/"all" are here because
# "every post" and "posts" state the same rule; negators and comparators are NOT here (they are signal).
STOPWORDS = frozenset("""
a an the to of in on at by for from with into onto as is are be been being was were am it its it's they
their them theirs this that these those there here you your yours we our i me my he she his her and or
nor so than too also just should must may might can could would will shall have has had having do does did
doing need needs needed always every each all any some both either whole entire full sure please make makes
ensure ensures kindly really very only then once again whenever which who whom whose what how where why
itself themselves yourself one ones own such via per else first exactly against between about during throughout
other another anyone anybody everyone everybody
""".split())

# Verbs that say "do it" without saying what: left over in a paraphrase, they are not a difference.
GENERIC = frozenset("""
use using used get got give gives given put puts keep keeps let lets go goes come comes carry carries require
requires required produce produces produced code
follow follows handle handles take takes taking apply applies applied want wants try tries set run runs
appear appears appeared require requires required mandate mandates stay stays remain remains
happen happens occur occurs
""".split())

# Prepositions of means: what follows one is how the thing is done, one choice among others ("sort by
# author" / "sort by title", "pay by card" / "pay by transfer"), where "for"/"on"/"to" name a case.
MEANS = frozenset({"by", "via", "using", "as"})

# Modal verbs: in "each listing must state the price" the verb after one is the instruction's verb, as the
# first word is in "state the price in each listing".
MODALS = frozenset({"should", "must", "shall", "need", "needs", "will", "ought"})
# Verbs of a condition that only say the case came about: "if a patient reports chest pain" is the case
# "for chest pain", "once the first week is over" the case "after the first week".
OCCURRENCE_VERBS = frozenset("""
report reports reported say says said mention mentions mentioned happen happens happened occur occurs occurred
arise arises come comes came over done finished
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
}
# The verbs above that take out the thing they name: "skip the tests" is against the tests themselves
# (so it opposes "run the tests"), not only against "including" them. Their object reads as negated.
OMISSION_TARGETS = frozenset({"include", "keep"})

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
    "publication": "publish", "publications": "publish",
    "rewrote": "rewrite", "rewritten": "rewrite", "withdrew": "withdraw", "withdrawn": "withdraw",
}

def _clock(hour: int, part: str) -> int:
    """The 24-hour hour of "10 pm", "3 in the afternoon", "10 at night" (but "1 at night" is 01)."""
    later = part.startswith("p") or part == "in the afternoon" or (part in ("in the evening", "at night") and hour >= 5)
    return hour % 12 + (12 if later else 0)


# Phrases read as one word before tokenising (multiword terms, comparators, idioms).
PHRASES: list[tuple[str, str]] = [
    (r"\bdon['’]?t\b", "do not"), (r"\bdoesn['’]?t\b", "does not"), (r"\bcan['’]?t\b|\bcannot\b", "can not"),
    (r"\bwon['’]?t\b", "will not"), (r"\b(\w+)n['’]t\b", r"\1 not"),
    (r"\b(?:no|not|never) (?:more|longer|greater|higher) than\b", " atmost "),
    (r"\b(?:no|not|never) (?:less|fewer|shorter|lower) than\b", " atleast "),
    (r"\bat most\b|\bup to\b|\b(?:a )?maximum of\b|\bno more\b", " atmost "),
    (r"\bat least\b|\b(?:a )?minimum of\b", " atleast "),
    (r"\b(?:less|fewer|shorter|lower) than\b|\bunder\b(?= \$?\d| (?:one|two|three|four|five|six|seven|eight|nine|ten)\b)|\bbelow\b(?= \$?\d)|\bwithin\b", " atmost "),
    (r"\b(?:more|greater|longer|higher) than\b|\b(?:over|above)\b(?= \$?\d)", " atleast "),
    (r"\b(?:do|does|must|should|may|can|will) not exceed\b|\bnot exceeding\b", " atmost "),
    (r"\bexceed(?:s|ing)?\b", " atleast "),
    (r"\bprefer\b(.*?)\bover\b", r"prefer\1 rather "), (r"\brather than\b", " rather "), (r"\binstead of\b", " instead "),
    (r"\bpull requests?\b|\bmerge requests?\b", " pr "), (r"\bcall[- ]to[- ]action\b", " cta "),
    (r"\bback(?:ed|ing)? up\b|\bbackups?\b", " backup "), (r"\bplain[- ]?text\b", " plaintext "),
    (r"\be-?mails?\b", " email "), (r"\bweb ?sites?\b", " site "), (r"\blook(?:ing|ed|s)? up\b", " lookup "),
    (r"\bleav(?:e|es|ing) out\b|\bleft out\b", " leaveout "), (r"\bturn(?:s|ed|ing)? off\b", " turnoff "),
    (r"\bcheck(?:ed|ing|s)? in(?:to)?\b(?! with)", " commit "),
    # "check API keys into the repo": the object may sit between "check" and "into" (a few words at most).
    (r"\bcheck(?:ed|ing|s)?\b((?: [\w'-]+){1,6}?) into\b(?= (?:the |a |your |our |any )?"
     r"(?:repo|repository|repositories|git|version control|source control|codebase|main|branch)\b)", r" commit\1 into"),
    # "the report goes out on Friday" is "send the report on Friday".
    (r"\b(?:go|goes|going|went|gone) out\b", " send "),
    # "remove duplicate records" is "deduplicate records".
    (r"\b(?:remove|removing|removed|drop|dropping|dropped|delete|deleting|deleted|eliminate|eliminating|discard)"
     r"(?: any| all| the)? duplicat(?:e|es|ed)\b", " dedupe "),
    # "every week", "once a week", "per week" are the frequency "weekly"; "each month" is "monthly".
    (r"\b(twice|thrice|\w+ times) (?:a|an|per|every|each) (day|week|month|year|quarter|hour)\b",
     lambda m: f" {m.group(1)} " + {"day": "daily"}.get(m.group(2), m.group(2) + "ly") + " "),
    (r"\b(?:every|each|once an?|once per|per)\s+(day|week|month|year|quarter|hour)\b",
     lambda m: " " + {"day": "daily"}.get(m.group(1), m.group(1) + "ly") + " "),
    (r"\bannual(?:ly)?\b|\bevery year\b", " yearly "), (r"\bin[- ]person\b|\bface[- ]to[- ]face\b", " inperson "),
    (r"\bon[- ]site\b", " onsite "),
    # "the first visit", "the last paragraph": a position that narrows the rule is a term of its own.
    (r"\b(?:the|your|our|their|its|each|every) (first|last|final|opening|closing)\b(?= [a-z])", lambda m: " the " + {"final": "last", "opening": "first", "closing": "last"}.get(m.group(1), m.group(1)) + "pos "),
    (r"\bclose to\b", " near "), (r"\bdegrees? (celsius|fahrenheit|kelvin)\b", r" \1 "), (r"\ball caps\b|\bcapital letters\b|\bblock capitals\b", " uppercase "),
    (r"\bblog posts?\b", " post "),
    (r"\bhow many\b", " count "), (r"\bnumber of\b", " count "), (r"\bsales pitch\b|\bsalesy\b", " promotional "),
    (r"\btitle case\b", " titlecase "), (r"\bsentence case\b", " sentencecase "),
    (r"\bfirst person\b", " firstperson "), (r"\bsecond person\b", " secondperson "), (r"\bthird person\b", " thirdperson "),
    (r"\bfirst class\b", " firstclass "), (r"\b(economy|business|premium) class\b", r" \1 "),
    # Verb particles that make another verb: "write down" is "record", "give out" is "share".
    (r"\b(?:write|writes|wrote|writing|note|notes|noting|noted|jot|jots|jotted) down\b", " record "),
    (r"\b(?:give|gives|gave|giving|hand|hands|handed|handing) out\b", " share "),
    (r"\bfilter(?:s|ed|ing)? out\b|\bweed(?:s|ed|ing)? out\b", " exclude "),
    (r"\bleav(?:e|es|ing) (the \w+(?: \w+)?|it|them) out\b|\bleft (the \w+(?: \w+)?|it|them) out\b",
     lambda m: " leaveout " + (m.group(1) or m.group(2)) + " "),
    (r"\bcheck(?:s|ed|ing)? in with\b|\breach(?:es|ed|ing)? out to\b|\bget(?:s|ting)? in touch with\b", " contact "),
    # "leave brand names untranslated" is "do not translate brand names".
    (r"\b(?:leave|leaves|leaving|left|keep|keeps|keeping|kept) ((?:[a-z]+ ){1,3}?)un([a-z]{4,}ed)\b(?=\s*(?:$|[.,;:!?)]|(?:in|on|for|when|if|unless|until|except)\b))", r" do not \2 \1 "),
    (r"\bon behalf of\b", " for "), (r"\bdue dates?\b", " deadline "), (r"\bdouble[- ]check", " check"),
    (r"\bwrap(?:s|ped|ping)? up\b", " finish "), (r"\bcall(?:s|ed|ing)? off\b", " cancel "),
    (r"\bput(?:s|ting)? off\b|\bhold(?:s|ing)? off(?: on)?\b", " postpone "), (r"\bopt(?:s|ed|ing)? for\b", " choose "), (r"%|\bper ?cent(?:age)?s?\b", " percent "),
    (r"\bdecimal places?\b|\bdecimal points?\b", " decimals "),
    (r"\b(?:the nearest )?(?:whole numbers?|integers?)\b", " 0 decimals "), (r"\bright away\b|\bat once\b", " immediately "),
    (r"\bunder no circumstances\b|\bat no time\b", " never "), (r"\bevery time\b|\beach time\b", " whenever "),
    (r"\bfollowing\b(?= (?:a|an|the|each|every|any)\b)", " after "), (r"\blet ((?:\w+ ){0,2}?\w+) know\b", r" notify \1 "),
    (r"\bas long as\b", " if "),
    (r"\bsign(?:s|ed|ing)? off on\b", " approve "),
    # "test it again" is "retest it".
    (r"\b(test|check|send|run|try|verify|review|read|write|submit)(s|ed|ing)? ((?:it|them|this|that) )?again\b",
     r" re\1\2 \3 "), (r"\bno longer\b", " not "), (r"\b(?:giv(?:e|es|ing|en)|gave) away\b", " reveal "),
    (r"\bmak(?:e|es|ing) up\b|\bmade up\b", " invent "), (r"\ba single\b", " one "),
    (r"\bfree of charge\b|\bat no (?:extra )?(?:cost|charge)\b", " not charged "),
    # "ten or fewer" is "at most ten". ("two or more" is left alone: "more than one" is read as "at least
    # one", so either reading would make one of those two pairs differ in their number.)
    (r"\b(\w+) or (?:fewer|less)\b", r" atmost \1 "),
    # "shipping to P.O. boxes is not allowed" is "do not ship to P.O. boxes": the negation is the rule's.
    (r"\b(?:is|are|be|being)( not| never)? (?:allowed|permitted|acceptable|ok|okay)\b", r" \1 "),
    (r"\b(?:is|are|be|being)(?: strictly| always)? (?:forbidden|prohibited|banned|disallowed)\b", " not "),
    (r"\bno later than\b", " by "), (r"\blater than\b", " after "), (r"\bearlier than\b", " before "),
    # "never deploy unless the tests pass" is "deploy only when the tests pass"; "do not merge before a
    # review" (or "until") is "merge only after a review".
    (r"\b(?:never|do not|does not|must not|should not|can not)\s+((?:(?!\b(?:unless|until|before|without)\b)[^,.;!?])+?)"
     r"\s+(unless|until|before)\b", lambda m: f" {m.group(1)} only {'when' if m.group(2) == 'unless' else 'after'} "),
    # "p.o. boxes": an abbreviation, not a sentence end ("e.g." and "i.e." are dropped below).
    (r"\b(?!e\.g\.|i\.e\.)([a-z])\.([a-z])\.(?= )", r"\1\2"),
    # "in plain language", "using simple words": one manner of writing.
    (r"\b(?:in |using |with )?(?:simple|plain|everyday) (?:words|language|english|terms)\b", " plainlanguage "),
    (r"\b(?:business|working|work) days?\b", " workday "),
    (r"\blast (week|month|year|quarter|time|run)\b", r" previous \1 "),
    (r"\bhead(?:ed|ful)\b|\bvisible window\b", " headed "), (r"\bsame[- ]day\b", " sameday "),
    (r"\bmake sure(?: that| to)?\b|\bbe sure to\b|\bremember to\b|\bit is important to\b", " "),
    # How a person asks, not what: "I'd like you to", "going forward", "can you".
    (r"\bi(?: would|'?d) like you to\b|\bi (?:want|need) you to\b|\b(?:could|can|would) you\b|\bgoing forward\b"
     r"|\bfrom now on\b|\bmoving forward\b|\bin future\b", " "),
    # "don't forget to X" asks for X; "be careful not to X" and "try not to X" are against it.
    (r"\b(?:do not|never) forget to\b|\bfeel free to\b|\btake care to\b|\bbe careful to\b", " "),
    (r"\b(?:be careful|take care|try) not to\b", " do not "),
    (r"\bsteer(?:s|ing)? clear of\b|\bstay(?:s|ing)? away from\b|\bkeep(?:s|ing)? away from\b", " avoid "),
    (r"\bin (?:case|the event) of\b|\bin case\b", " if "),
    # "put the summary first" / "last": a place in the work, one choice ("check links first" is an order).
    (r"\b(put|puts|place|places|list|lists|show|shows|mention|sort|order|rank)((?: [\w'-]+){1,5}?) (first|last)"
     r"(?=\s*(?:[.;!?)]|$))", r"\1\2 \3place "),
    # "reject PRs without a description" is "do not accept PRs without one" (accept only with one).
    (r"\b(reject|decline|refuse)(?:s|d|ing)?\s+((?:[\w'-]+\s+){1,5}?)without\b", r" do not accept \2 without "),
    (r"\b(deny|denies|block|ban|forbid|prohibit)(?:s|ed|ned|ing)?\s+((?:[\w'-]+\s+){1,5}?)without\b",
     r" do not allow \2 without "),
    (r"\bwith\s+no\b", " without "), (r"\btext messages?\b|\b(?<=by )texts?\b", " sms "), (r"\bdirect messages?\b", " dm "),
    (r"\bhalf an hour\b", " 30 minutes "), (r"\bhalf a (day|year)\b", lambda m: {"day": " 12 hours ", "year": " 6 months "}[m.group(1)]),
    (r"\bkeep(?:s|ing)? ((?:[\w'-]+\s+){1,4}?)hidden\b", r" hide \1 "), (r"\bclos(?:e|es|ing) with\b", " end with "),
    (r"\bword for word\b", " verbatim "), (r"\blog(?:arithmic)? scale\b", " logscale "),
    # "within a week of release" is "within a week after release".
    (r"\b(?:within|atmost)\s+((?:a|an|one|\d+|\w+) (?:minute|hour|day|week|month|year)s?) of\b", r" atmost \1 after "),
    (r"\bmailing lists?\b", " email list "), (r"\bnon-?disclosure agreements?\b", " nda "), (r"\bauto-(?=[a-z])", "automatic "), (r"\bin advance\b|\bahead(?: of)?\b|\bbeforehand\b", " before "),
    (r"\bday (?:one|1)\b", " the firstpos day "),
    # "posts containing X", "posts that contain X" and "posts with X" name the same posts.
    (r"\b(?:that|which|who) (?:contain|contains|have|has) no\b", " without "),
    (r"\bcontaining\b|\b(?:that|which|who) (?:contain|contains|have|has)\b", " with "), (r"\bset(?:s|ting)? up\b", " create "),
    (r"\b(?:in )?under\b(?= (?:a|an) (?:second|minute|hour|day|week|month|year)\b)", " atmost "), (r"\ba dozen\b", " 12 "), (r"\ba fortnight\b", " 2 weeks "),
    (r"\btest suites?\b", " tests "), (r"\b(?:is|are|was|were|be) not found\b", " fails "),
    (r"\b(main|master) branch\b", " main "), (r"\b(british|american) english\b", r" \1 "),
    # Times of day read as HH:MM values: "10 pm", "10 at night" and "22:00" are one time.
    (r"\b(\d{1,2})(?::(\d{2}))? ?(a\.?m\.?|p\.?m\.?|in the morning|in the afternoon|in the evening|at night)(?![a-z])",
     lambda m: f" {_clock(int(m.group(1)), m.group(3)):02d}:{m.group(2) or '00'} "),
    (r"\bnoon\b|\bmidday\b", " 12:00 "), (r"\bmidnight\b", " 00:00 "),
    (r"\bin order to\b", " to "), (r"'s\b", ""), (r"\bprior to\b", " before "), (r"\be\.g\.|\bi\.e\.", " "),
]

# Synonym groups: the first word is the canonical form every other word of the group is read as.
SYNONYMS: list[str] = [
    # Putting something into the work: "state the price in the listing" is "include the price in it".
    "include add insert attach contain provide append show display mention state specify",
    "reply response respond answer",
    "start begin open top beginning commence",
    "end finish conclude bottom expire",
    "close dismiss",
    "check verify validate confirm inspect",
    "ask request",
    "fix solution repair",
    "suggest propose recommend",
    "record log",
    "remind reminder",
    "capture screenshot",
    "hint annotation annotate",
    "repo repository",
    "primary original main",
    "post article",
    "intro introduction",
    "promotional promo marketing",
    "factual fact",
    "image picture photo",
    "site website",
    "short brief concise",
    "verbatim exact precise",
    "limit cap restrict",
    "require need",
    "prior previous earlier",
    "lint linter",
    "error failure fail unsuccessful",
    "dedupe deduplicate",
    "summary summarize summarise recap",
    "notify alert inform tell warn caution",
    "send deliver dispatch ship",
    "wait pause",
    "retry reattempt",
    "publish release",
    "address greet welcome",
    # Domain-general paraphrase groups: the same act or thing in the words instructions commonly use.
    "choose pick select",
    "near nearby",
    "tag label mark flag",
    "question query",
    "sample snippet example",
    "list enumerate",
    "explain describe clarify define",
    "require mandate mandatory compulsory obligatory",
    "customer client",
    "applicant candidate",
    "allow permit",
    "enable activate",
    "delete erase",
    "large big",
    "quick fast rapid",
    "brand company",
    "keyword keyphrase",
    "cheap inexpensive",
    "give offer grant",
    "book reserve",
    # Common instruction verbs and the words reviewers use for them interchangeably.
    "use utilize utilise employ leverage",
    "keep preserve retain maintain",
    "create generate",
    "write compose",
    "help assist",
    "buy purchase",
    "fetch retrieve",
    "talk speak",
    "tone style",
    "mute silence",
    "promise guarantee",
    "stop halt cease",
    "ask inquire enquire",
    "modify change alter edit revise update",
    "suggest propose recommend advise",
    "store save persist",
    "search find lookup locate",
    "fetch retrieve obtain acquire",
    "postpone delay defer",
    "increase raise boost",
    "highlight emphasize emphasise",
    "assign allocate",
    "monitor track",
    "issue problem",
    "bug defect",
    "document doc",
    "manager supervisor",
    "employee staff",
    "amount quantity",
    "title headline",
    "link url hyperlink",
    "long lengthy",
    "small tiny",

    "immediately promptly asap",
    "praise compliment commend",
    "prefer favor favour",
    "share disclose reveal",
    "invent fabricate",
    "unclear ambiguous vague",
    "accept approve",
    "pay settle",
    "nearest closest",

]

# Mutually exclusive values: two rules that differ by one of these pick different values for one setting.
ALTERNATIVES: list[str] = [
    "tab space", "single double", "ascending descending asc desc", "titlecase sentencecase",
    "british american", "formal casual informal", "inline footnote", "start end",
    "local utc gmt", "headless headed", "sync async synchronous asynchronous",
    "merge rebase squash", "new same existing", "upper lower uppercase lowercase", "light dark",
    "json csv xml yaml", "public private", "production staging", "firstperson thirdperson",
    "monday tuesday wednesday thursday friday saturday sunday",
    "january february march april may june july august september october november december",
    "english german french spanish italian portuguese dutch japanese chinese",
    # Closed sets of one setting, domain-general: units, frequencies, times of day, modes, classes.
    "celsius fahrenheit kelvin", "metric imperial", "hourly daily weekly fortnightly monthly quarterly yearly",
    "morning afternoon evening night overnight", "hot cold warm", "inperson remote onsite",
"euro dollar pound yen", "weight volume", "markdown html pdf docx plaintext",
    "portrait landscape", "manual automatic manually automatically", "apa mla chicago harvard ieee",
    "online offline", "absolute relative", "literal literally figurative", "up down",
    "firstperson secondperson thirdperson", "high medium low", "weekday weekend", "phone sms chat letter email", "internal external",
    "optional required", "inside outside", "firstplace lastplace", "logscale linear",
    "active passive", "left right center centre", "horizontal vertical", "singular plural",
    "economy business premium firstclass",
]

# Adjectives of one scale, also alternatives: a rule asks for one end of it ("use short titles" / "long
# titles"); in a scope they name a case instead ("on short posts" / "on long posts"), so no choice there.
SCALES = ["short long", "early late", "large small", "quick slow", "strict lenient", "wide narrow", "simple complex"]
ALTERNATIVES += SCALES

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100, "twice": 2, "thrice": 3,
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
