"""Phrases the offline evaluator rewrites before it reads a rule's words: contractions, comparators,
multiword terms, idioms, verb particles, times of day, and the ways people ask ("I'd like you to").

Each rewrite turns one wording into the one its paraphrases share ("write down" is "record", "10 at
night" is "22:00", "never deploy unless the tests pass" is "deploy only when the tests pass"), general
English and the vocabulary of instructions to agents, not phrases of any test set. Applied in order, on
lowercased text, by `similarity.normalize`.
"""

from __future__ import annotations

import re

from agentuse.core.helper.lexicon import NUMBER_WORDS


_SPANS = "second|minute|hour|day|week|month|year"
_NUMBERS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred"


def _thousands(count: str) -> int:
    return (int(count) if count.isdigit() else NUMBER_WORDS[count]) * 1000


def _clock(hour: int, part: str) -> int:
    """The 24-hour hour of "10 pm", "3 in the afternoon", "10 at night" (but "1 at night" is 01)."""
    later = part.startswith("p") or part == "in the afternoon" or (part in ("in the evening", "at night") and hour >= 5)
    return hour % 12 + (12 if later else 0)


# Hours in words: "nine in the evening" is 21:00, as "9 pm" is.
_HOURS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _taxed(m) -> str:
    """The tax a "before tax" / "post-VAT" names, without its "before" or "post"."""
    return m.group(1).removeprefix("before ").removeprefix("after ").removeprefix("pre").removeprefix("post") \
        .removeprefix("-") + " "


_NEGATED_BEFORE = re.compile(r"\b(?:not|no|never|nobody|nothing|none|without|un\w+ed)\b")


def _bare_span_after(m) -> str:
    """ "after" before a bare span: "atleast", unless a negation comes before it in its sentence."""
    sentence = re.split(r"[.;!?]", m.string[:m.start()])[-1]
    return "after " if _NEGATED_BEFORE.search(sentence) else " atleast "


# The prefix a quoted word is read with: "'very'" is the word "lit_very", not the filler "very".
LITERAL = "lit_"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_UNITS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
# Verbs saying only that the event came about: "on the day it arrives" is "the same day".
_OCCURS = (r"(?:arrives?|arrived|happens?|happened|occurs?|occurred|comes? in|came in|(?:is|are|was|were) "
           r"(?:received|submitted|made|filed|reported|raised|logged|opened))")

# Phrases read as one word before tokenising (multiword terms, comparators, idioms).
PHRASES: list[tuple[str, str]] = [
    # "twenty-five" is 25.
    (r"\b(" + "|".join(_TENS) + r")[- ](" + "|".join(_UNITS) + r")\b",
     lambda m: str(_TENS[m.group(1)] + _UNITS.index(m.group(2)) + 1)),
    # "newest first" is descending, read before "first" is taken for a place ("put the summary first").
    (r"\b(?:highest|largest|biggest|newest|latest|most recent) first\b", " descending "),
    (r"\b(?:lowest|smallest|oldest|earliest) first\b", " ascending "),
    # "the first time an acronym appears, spell it out" is "spell out acronyms on first use".
    (r"\b(?:on |at )?(?:the )?first (?:use|mention|reference|appearance|occurrence)\b", " firstuse "),
    (r"\b(?:on |at )?the first time (?:(?:a|an|the|it|they|that|this|you|we) )?(\w+ )?(?:appears?|is used|are used"
     r"|is mentioned|are mentioned|comes? up|occurs?|shows? up|(?:use|mention|write) (?:it|them|one))\b",
     lambda m: f" firstuse {m.group(1) or ''}"),
    (r"\b(?:on )?the (?:same )?day (?:it|they|he|she|that|when it|when they) " + _OCCURS, " sameday "),
    # "orders that lack a tracking number" are "orders without one".
    # "functions whose signature lacks type hints" are "functions without them", with or without "that".
    (r"\b(?:(?:that|which|who) )?(?:lack|lacks|lacked)\b|\blacking\b", " without "),
    (r"\bpoint(?:s|ed|ing)? out\b", " flag "),
    # "that have no agenda" too, read before "decline ... without" below turns the verb around; "keep job
    # ads free of jargon" is "without jargon".
    (r"\b(?:that|which|who) (?:contain|contains|have|has) no\b|\bfree of\b(?! charge)", " without "),
    # Verb particles that make another verb: "turn away" rejects, "hand back" returns.
    (r"\bturn(?:s|ed|ing)? away\b", " reject "), (r"\b(?:hand|hands|handed|handing|give|gives|gave|giving) back\b", " return "),
    # "once the key comes back" is "once it is returned", as "hand back" is "return".
    (r"\b(?:come|comes|came|coming) back\b", " return "),
    # "before moving day" is "before the move", "on wedding day" "on the wedding": the day an event names.
    (r"\b(before|after|on|until|by) (?:the )?(?!(?:morning|evening|opening|closing|working|during|spring|string|"
     r"something|anything|nothing|everything|ring|king)\b)([a-z]{3,}ing) day\b", r"\1 the \2"),
    # An event's own boundary is implied by the order word before it: "before the shift starts" is "before
    # the shift", "after the class ends" (or "once it ends") is "after the class". The other boundary is a
    # case of its own ("before the shift ends").
    (r"\bbefore ((?:the|a|an|its|their|your|our|each|every|any) (?:[a-z-]+ ){0,2}?[a-z-]+) (?:starts|begins|opens|commences)\b",
     r"before \1"),
    (r"\b(?:after|once) ((?:the|a|an|its|their|your|our|each|every|any) (?:[a-z-]+ ){0,2}?[a-z-]+) (?:ends|finishes|closes|concludes)\b",
     r"after \1"),
    # "every other day" is a frequency of its own; "every two weeks" and "biweekly" are fortnightly.
    (r"\bevery other day\b|\bon alternate days\b", " alternateday "),
    # "every sixty minutes" is hourly, "every 24 hours" daily, "every seven days" weekly; "Monday through
    # Friday" is every weekday; "the day before" is one day before.
    (r"\bevery (?:60|sixty) minutes\b", " hourly "), (r"\bevery 24 hours\b", " daily "),
    (r"\bevery (?:7|seven) days\b", " weekly "),
    (r"\b(?:from )?monday (?:through|to|thru|until) friday\b|\bmonday-friday\b", " weekday "),
    (r"\bthe (day|week|month) (before|after)\b", r" 1 \1 \2 "),
    (r"\bevery other week\b|\bevery (?:two|2) weeks\b|\bbi-?weekly\b", " fortnightly "),
    (r"\b(snake|camel|pascal|kebab)[_ -]?case\b", r" \1case "),
    (r"\bsign[- ]?ins?\b", " signin "), (r"\blog[- ]ins?\b|\blogins\b", " login "),
    # "switch all lights off" turns them off, "leave the lights on" keeps them on: a state, set or unset.
    (r"\b(?:turn|switch)(?:s|es|ed|ing)?((?: (?!off\b|on\b)[\w'-]+){1,3}?) off\b", r" turnoff\1 "),
    (r"\bswitch(?:es|ed|ing)? off\b", " turnoff "), (r"\bswitch(?:es|ed|ing)? on\b", " enable "),
    (r"\b(?:leave|leaves|leaving|left|keep|keeps|keeping|kept) ((?:the |your |our |their |all |any )?\w+(?: \w+)?) on\b"
     r"(?=\s*(?:$|[.,;:!?)]|(?:when|if|while|during|until|unless|after|before|at)\b))", r" enable \1 "),
    (r"\bturn(?:s|ed|ing)? down\b", " decline "), (r"\bturn(?:s|ed|ing)? on\b", " enable "),
    (r"\bfollow(?:s|ed|ing)? up with\b", " contact "),
    # More verb particles of one sense: "hand in" submits, "get rid of" removes, "keep track of" tracks.
    (r"\b(?:hand|hands|handed|handing|turn|turns|turned|turning) in\b(?! (?:the|a|an|your|their|our)? ?(?:morning|afternoon|evening)\b)", " submit "),
    (r"\bget(?:s|ting)? rid of\b|\bgot rid of\b", " remove "),
    (r"\bkeep(?:s|ing)? track of\b|\bkept track of\b", " track "),
    (r"\bkeep(?:s|ing)? an eye on\b|\bkept an eye on\b", " monitor "),
    (r"\btalk(?:s|ed|ing)? about\b", " discuss "), (r"\bbr(?:ing|ings|inging|ought) up\b", " mention "),
    (r"\bhear(?:s|d|ing)? back\b", " get reply "), (r"\bget(?:s|ting)? back to\b|\bgot back to\b", " reply to "),
    (r"\broll(?:s|ed|ing)? back\b", " revert "), (r"\broll(?:s|ed|ing)? out\b", " release "),
    (r"\blook(?:s|ed|ing)? into\b", " investigate "),
    (r"\bdeal(?:s|t|ing)? with\b|\btak(?:e|es|ing)? care of\b|\btook care of\b", " handle "),
    (r"\bmak(?:e|es|ing) use of\b|\bmade use of\b", " use "),
    (r"\b(?:hand|hands|handed|handing|pass|passes|passed|passing) (?:(\w+ \w+|\w+) )?(?:over|on) to\b",
     lambda m: f" transfer {m.group(1) or ''} to "),
    (r"\blook(?:s|ed|ing)? (?:at|over|through)\b", " check "),
    # "strip tracking parameters out of URLs" is "remove them from URLs"; "strip out X" is "strip X".
    (r"\b(strip|strips|stripped|stripping|take|takes|took|taking|cut|cuts|cutting|remove|removes|removed|removing)"
     r"((?: [\w'-]+){1,4}?) out of\b", r"\1\2 from"),
    (r"\b(strip|strips|stripped|stripping|cut|cuts|cutting|cross|crosses|crossed|crossing) out\b", r"\1"),
    (r"\b(?:take|takes|taking|took) out\b", " remove "),
    # "pull the snacks out of the machine" removes them; "throw out" and "throw away" discard, "clear out" empties.
    (r"\b(?:pull|pulls|pulled|pulling)((?: [\w'-]+){1,4}?) out of\b", r" remove\1 from"),
    (r"\b(?:pull|pulls|pulled|pulling) out\b", " remove "),
    (r"\b(?:throw|throws|threw|thrown|throwing)((?: [\w'-]+){0,3}?) (?:out|away)\b", r" discard\1 "),
    (r"\b(?:clear|clears|cleared|clearing) out\b", " empty "),
    (r"\bbullet(?:ed)?[- ]points?\b|\bbulleted\b", " bullet "),
    (r"\bbreak(?:s|ing)? up\b|\bbroke up\b", " split "),
    # "break long lessons into chunks" splits them.
    (r"\b(?:break|breaks|breaking|broke)((?: [\w'-]+){1,4}?) into\b", r" split\1 into"),
    (r"\b(?:meeting|calendar) (?:requests?|invites?|invitations?)\b", " invite "),
    # "keep the hiring manager anonymous" is "do not reveal their name"; a callback is a call.
    (r"\b(?:keep|keeps|keeping|kept|leave|leaves|leaving|left) ((?:the |your |our |their |any |all )?\w+(?: \w+)?) anonymous\b",
     r" do not reveal \1 name "),
    (r"\bcall(?:s|ed|ing)? (?:(?:\w+ ){1,2})?back\b|\bcall-?backs?\b", " call "),
    # "for example" and "for instance" give an example as "such as" does.
    (r"\bfor (?:example|instance)\b,?", "like"),
    # A date written out after "as" or "like" is an example of its format: "as 12 March 2024" is day first.
    (r"\b(as|like) (\d{1,2}) (?:" + _MONTHS + r"),? \d{4}\b", r" \1 dd-month-yyyy "),
    (r"\b(as|like) (?:" + _MONTHS + r") \d{1,2},? \d{4}\b", r" \1 month-dd-yyyy "),
    # "past 10 pm", "past its end date" are after it; "past five sentences" is more than five.
    (r"\bpast\b(?= \d{1,2}(?::\d{2})? ?(?:a\.?m|p\.?m|in the|at night)| (?:the|its|their|a|an) )", " after "),
    (r"\bpast\b(?= \$?\d| (?:" + _NUMBERS + r")\b)", " atleast "),
    (r"\bdon['’]?t\b", "do not"), (r"\bdoesn['’]?t\b", "does not"), (r"\bcan['’]?t\b|\bcannot\b", "can not"),
    (r"\bwon['’]?t\b", "will not"), (r"\b(\w+)(?:n't|n’t)\b", r"\1 not"),
    # "don't forget to X" asks for X, read before "do not ... before" below takes it for a negation.
    (r"\b(?:do not|never) forget to\b|\bfeel free to\b|\btake care to\b|\bbe careful to\b", " "),
    # "never skip the spell check before sending" asks for the check: an omission negated is the thing put in,
    # read before "never X before Y" below makes it "skip the spell check only after sending".
    (r"\b(?:do not|never) (?:skip|omit|exclude|leave out)\b", " include "),
    (r"\b(you|we|they)(?:'re|’re)\b", r"\1 are"), (r"\b(i|you|we|they)(?:'ve|’ve)\b", r"\1 have"),
    (r"\b(i|you|we|they|it|he|she)(?:'ll|’ll)\b", r"\1 will"), (r"\bi(?:'m|’m)\b", "i am"),
    # Hours of a day are a span a thing is done inside or outside of: "during business hours" is inside them,
    # against "outside business hours" (one closed set).
    (r"\b(?:during|within|in)\s+((?:the |normal |regular |our |your |their )?(?:business|working|office|opening|school"
     r"|visiting|peak|quiet|core) hours)\b", r" inside \1"),
    (r"\b(?:no|not|never) (?:more|longer|greater|higher) than\b", " atmost "),
    (r"\b(?:no|not|never) (?:less|fewer|shorter|lower) than\b", " atleast "),
    (r"\bat most\b|\bup to\b|\b(?:a )?maximum of\b|\bno more\b", " atmost "),
    (r"\bat least\b|\b(?:a )?minimum of\b", " atleast "),
    (r"\b(?:less|fewer|shorter|lower|smaller) than\b|\bunder\b(?= \$?\d| (?:" + _NUMBERS + r")\b)|\bbelow\b(?= \$?\d)|\bwithin\b", " atmost "),
    (r"\b(?:more|greater|longer|higher|larger|bigger) than\b|\b(?:over|above)\b(?= \$?\d| (?:" + _NUMBERS + r")\b| an? (?:second|minute|hour|day|week|month|year)\b)", " atleast "),
    (r"\b(?:do|does|must|should|may|can|will) not exceed\b|\bnot exceeding\b", " atmost "),
    (r"\bexceed(?:s|ing)?\b", " atleast "),
    # "call back after an hour" is an hour or more from now, not "within an hour": a bare span after "after"
    # (no event of its own follows) is a lower bound. Not under a negation ("no reply after two hours" is the
    # reply missing for that long), which would turn the bound over.
    (r"\bafter (?=(?:a|an|one|\d+|" + _NUMBERS + r") (?:second|minute|hour|day|week|month|year)s?\b(?!\s+(?:of|from|since|after|before|past|"
     r"without|with|in|on|at|the|a|an|its|their|your|our|it|they|he|she)\b))", _bare_span_after),
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
    # "the most recent game" is "the last game" (a position, below); "break the report down by team" groups it.
    (r"\bmost recent\b", "last"),
    (r"\bbr(?:eak|eaks|eaking|oke|oken)((?: [\w'-]+){0,4}?) down by\b", r" group\1 by"),
    # "the first visit", "the last paragraph": a position that narrows the rule is a term of its own. (Spaces,
    # not a space: an earlier rewrite pads what it writes, "first  pr".)
    (r"(?:\b(?:the|your|our|their|its|each|every)|(?<=[a-z])'s) (first|last|final|opening|closing)\b(?= +[a-z])(?! +(?:names?|person|class)\b)", lambda m: " the " + {"final": "last", "opening": "first", "closing": "last"}.get(m.group(1), m.group(1)) + "pos "),
    (r"\bclose to\b", " near "), (r"\bdegrees? (celsius|fahrenheit|kelvin)\b", r" \1 "), (r"\ball caps\b|\bcapital letters\b|\bblock capitals\b", " uppercase "),
    (r"\bblog posts?\b", " post "),
    (r"\bhow many\b", " count "), (r"\bnumber of\b", " count "), (r"\bsales pitch\b|\bsalesy\b", " promotional "),
    (r"\btitle case\b", " titlecase "), (r"\bsentence case\b", " sentencecase "),
    (r"\bfirst[- ]person\b", " firstperson "), (r"\bsecond[- ]person\b", " secondperson "), (r"\bthird[- ]person\b", " thirdperson "),
    (r"\bfirst class\b", " firstclass "), (r"\b(economy|business|premium) class\b", r" \1 "),
    # Verb particles that make another verb: "write down" is "record", "give out" is "share".
    (r"\b(?:write|writes|wrote|written|writing|note|notes|noting|noted|jot|jots|jotted) down\b", " record "),
    # "refills can be picked up" is "collected": the particle makes another verb than "pick" (choose).
    (r"\bpick(?:s|ed|ing)? (?:(it|them) )?up\b", lambda m: f" collect {m.group(1) or ''} "),
    (r"\b(?:give|gives|gave|giving|hand|hands|handed|handing) out\b", " share "),
    (r"\bfilter(?:s|ed|ing)? out\b|\bweed(?:s|ed|ing)? out\b", " exclude "),
    # "leave arbitration clauses out of contracts" is "keep them out of contracts", as below.
    (r"\b(?:leave|leaves|leaving|left) ((?:[\w'-]+ ){0,4}?[\w'-]+) out of\b", r" leaveout \1 in "),
    # "keep the guest list confidential from vendors" is "do not share it with them".
    (r"\b(?:keep|keeps|keeping|kept) ((?:[\w'-]+ ){0,4}?[\w'-]+) (?:confidential|private|secret)\b", r" do not share \1 "),
    (r"\bleav(?:e|es|ing) ((?:the|your|our|their|any|all) \w+(?: \w+)?|it|them) out\b"
     r"|\bleft ((?:the|your|our|their|any|all) \w+(?: \w+)?|it|them) out\b",
     lambda m: " leaveout " + (m.group(1) or m.group(2)) + " "),
    (r"\bcheck(?:s|ed|ing)? in with\b|\breach(?:es|ed|ing)? out to\b|\bget(?:s|ting)? in touch with\b", " contact "),
    # "leave brand names untranslated" is "do not translate brand names".
    (r"\b(?:leave|leaves|leaving|left|keep|keeps|keeping|kept) ((?:[a-z]+ ){1,3}?)un([a-z]{4,}ed)\b(?=\s*(?:$|[.,;:!?)]|(?:in|on|for|when|if|unless|until|except)\b))", r" do not \2 \1 "),
    # "leave the tags untouched" (or "as they are", "intact") is "do not change the tags", whatever the tags are
    # written in ("{player_name}").
    (r"\b(?:leave|leaves|leaving|left|keep|keeps|keeping|kept) ((?:[^\s,.;:!?]+ ){1,5}?)(?:untouched|intact|as is|as they are|"
     r"as it is|as written)(?=\s*(?:$|[.,;:!?)]|(?:in|on|for|when|if|unless|until|except)\b))", r" do not change \1 "),
    (r"\bon behalf of\b", " for "), (r"\bdue dates?\b", " deadline "), (r"\bdouble[- ]check", " check"),
    (r"\bwrap(?:s|ped|ping)? up\b", " finish "), (r"\bcall(?:s|ed|ing)? off\b", " cancel "),
    (r"\bput(?:s|ting)? off\b|\bhold(?:s|ing)? off(?: on)?\b", " postpone "), (r"\bopt(?:s|ed|ing)? for\b", " choose "), (r"%|\bper ?cent(?:age)?s?\b", " percent "),
    (r"\bdecimal places?\b|\bdecimal points?\b", " decimals "),
    (r"\bplainly\b|\bin plain terms\b", " plainlanguage "),
    # An amount "before tax" leaves the tax out, one "after tax" takes it in: "quote prices before VAT" is
    # "quote them excluding VAT".
    (r"\b(before tax|before taxes|before vat|before gst|pre-tax|pretax)\b", lambda m: " excluding " + _taxed(m)),
    (r"\b(after tax|after taxes|after vat|after gst|post-tax|posttax)\b", lambda m: " including " + _taxed(m)),
    # "quote totals exclusive of shipping", "net of fees": left out, as "excluding" leaves it.
    (r"\b(?:exclusive|net) of\b", " excluding "),
    (r"\b(?:the nearest )?(?:whole numbers?|integers?)\b", " 0 decimals "), (r"\bright away\b|\bat once\b", " immediately "),
    (r"\bunder no circumstances\b|\bat no time\b", " never "), (r"\bevery time\b|\beach time\b", " whenever "),
    # A verb of telling before what is told ("remind buyers that ...", "explain to clients that ...", "let
    # callers know that ...") only frames it: one telling, whichever verb says it.
    (r"\b(?:tell |tells |told |inform |informs |advise |advises |remind |reminds |warn |warns |notify |notifies "
     r"|explain |explains )(?:to )?((?:(?!that\b)[\w'-]+ ){0,3}?)that\b", r" notify \1that"),
    # And one asked to do it, whichever verb asks: "remind guests to bring ID" is "tell guests to bring ID".
    (r"\b(?:tell |tells |told |ask |asks |remind |reminds |nudge |nudges |prompt |prompts |instruct |instructs )"
     r"((?:(?!to\b|that\b)[\w'-]+ ){1,3}?)to (?=[a-z])",
     r" notify \1to "),
    (r"\bfollowing\b(?= (?:a|an|the|each|every|any)\b)", " after "), (r"\blet ((?:\w+ ){0,2}?\w+) know\b", r" notify \1 "),
    (r"\bas long as\b|\bso long as\b|\bprovid(?:ed|ing) that\b", " if "), (r"\bexcept (?:when|if|where)\b", " unless "),
    (r"\bsign(?:s|ed|ing)? off on\b", " approve "),
    # "say sorry" is "apologize"; "technical terms" are jargon.
    (r"\b(?:say|says|said|saying) sorry\b", " apologize "),
    (r"\btechnical (?:terms|terminology|language|vocabulary|words)\b", " jargon "),
    # "test it again" is "retest it".
    (r"\b(test|check|send|run|try|verify|review|read|write|submit)(s|ed|ing)? ((?:it|them|this|that) )?again\b",
     r" re\1\2 \3 "), (r"\bno longer\b", " not "), (r"\b(?:giv(?:e|es|ing|en)|gave) away\b", " reveal "),
    (r"\bmak(?:e|es|ing) up\b|\bmade up\b", " invent "), (r"\ba single\b", " one "),
    (r"\bfree of charge\b|\bat no (?:extra )?(?:cost|charge)\b", " not charged "),
    # "ten or fewer" is "at most ten". ("two or more" is left alone: "more than one" is read as "at least
    # one", so either reading would make one of those two pairs differ in their number.)
    (r"\b(\d+|" + _NUMBERS + r") ([a-z]+) or (?:fewer|less)\b", r" atmost \1 \2 "),
    (r"\b(\d+|" + _NUMBERS + r") or (?:fewer|less)\b", r" atmost \1 "),
    # "shipping to P.O. boxes is not allowed" is "do not ship to P.O. boxes": the negation is the rule's.
    (r"\b(?:is|are|be|being)( not| never)? (?:allowed|permitted|acceptable|ok|okay)\b", r" \1 "),
    (r"\b(?:is|are|be|being)(?: strictly| always)? (?:forbidden|prohibited|banned|disallowed)\b", " not "),
    # "badges are not to be lent" is "badges must not be lent": the passive of a prohibition.
    (r"\b(?:is|are) (not|never) to be\b", r" must \1 be "),
    # "a second nurse", "a second read" is another one, not a second of time ("wait a second", "a second or two").
    (r"\ba second (?=[a-z])(?!(?:or|and|to|of|in|per|before|after|later|longer|more|less|each|every|between|at|on|for|"
     r"when|if|then|so|too|delay|pause|wait|break|gap)\b)", " another "),
    (r"\bno later than\b", " by "), (r"\blater than\b", " after "), (r"\bearlier than\b", " before "),
    # "X and after that Y" is "X, then Y", and "Y after that" at a clause's end "Y afterwards": the next step,
    # where a bare "after" would take "that" for the step it follows. ("After that date" names a day.)
    (r"(?:\band |, ?)(?:after that|after this|thereafter)\b,?", " then "),
    (r"\b(?:after that|after this|thereafter)(?=\s*(?:[.;!?]|$))", " afterwards"),
    # "carry out a check of X" is "perform a check of X": a light verb whose noun says what is done.
    (r"\bcarr(?:y|ies|ied|ying) out\b", " perform "),
    # "never deploy unless the tests pass" is "deploy only when the tests pass"; "do not merge before a
    # review" (or "until") is "merge only after a review", as "review before merging" is.
    # "No truck leaves until it is confirmed" negates the act through its subject: read as "never" too.
    (r"(?:\b(?:never|do not|does not|must not|should not|can not|may not|will not|shall not|nothing (?:should|must|may|can) be)|(?:^|(?<=[.;!?] ))no(?= ))\s+((?:(?!\b(?:unless|until|before|without)\b)[^,.;!?])+?)"
     r"\s+(unless|until|before)\b", lambda m: f" {m.group(1)} only {'when' if m.group(2) == 'unless' else 'after'} "),
    # "Only merge after CI passes" is "merge only after CI passes": a fronted "only" still orders or conditions
    # the act, unless what stands between restricts who or which ("only email customers who opted in ...").
    (r"(?:^|(?<=[.;!?]))\s*only ((?:(?!(?:who|whom|whose|that|which|where|with|without|from|to|for|by|via|through|in|on|at)\b)"
     r"[a-z'-]+ ){1,5}?)(after|before|when|if|once|until|while|whenever)\b", r" \1only \2"),
    # "p.o. boxes": an abbreviation, not a sentence end ("e.g." and "i.e." are dropped below).
    (r"\b(?!e\.g\.|i\.e\.)([a-z])\.([a-z])\.(?= )", r"\1\2"),
    # "in plain language", "using simple words", "in simple, everyday words": one manner of writing.
    (r"\b(?:in |using |with )?(?:simple|plain|everyday)(?:(?:,| and| or|, and) (?:simple|plain|everyday))* "
     r"(?:words|language|english|terms)\b", " plainlanguage "),
    (r"\b(?:business|working|work) days?\b", " workday "),
    (r"\blast (week|month|year|quarter|time|run)\b", r" previous \1 "),
    (r"\bhead(?:ed|ful)\b|\bvisible window\b", " headed "), (r"\bsame[- ]day\b", " sameday "),
    (r"\bmake sure(?: that| to)?\b|\bbe sure to\b|\bremember to\b|\bit is important to\b", " "),
    # How a person asks, not what: "I'd like you to", "going forward", "can you".
    (r"\bi(?: would|'?d) like you to\b|\bi (?:want|need) you to\b|\b(?:could|can|would) you\b|\bgoing forward\b"
     r"|\bfrom now on\b|\bmoving forward\b|\bin future\b", " "),
    # "be careful not to X" and "try not to X" are against it.
    (r"\b(?:be careful|take care|try) not to\b", " do not "),
    # "refuse to move hazardous items" is "do not move them"; "if the agent fails to verify" is "does not".
    (r"\b(?:refus|declin|fail|neglect|forget)(?:e|es|ed|s|ing)? to\b(?= [a-z])", " do not "),
    # "keep visitors from touching the animals" is "do not let them touch": the verb after "from" is
    # what is kept from happening (and "stop", "prevent", "bar" say the same).
    (r"\b(?:keep|keeps|keeping|kept|stop|stops|stopped|stopping|prevent|prevents|prevented|preventing|bar|bars|barred"
     r"|barring)\s+((?:[\w'-]+\s+){1,4}?)from\s+(?=[a-z]+ing\b)", r" do not let \1 "),
    (r"\bsteer(?:s|ing)? clear of\b|\bstay(?:s|ing)? away from\b|\bkeep(?:s|ing)? away from\b"
     r"|\b(?:stay|stays|staying|keep|keeps|keeping) off\b(?= (?:the |a |an |any |all |their |your )?[a-z])", " avoid "),
    (r"\bin (?:case|the event) of\b|\bin case\b", " if "),
    # "put the summary first" / "last": a place in the work, one choice ("check links first" is an order).
    (r"\b(put|puts|place|places|list|lists|show|shows|mention|sort|order|rank)((?: [\w'-]+){1,5}?) (first|last)"
     r"(?=\s*(?:[.;!?)]|$))", r"\1\2 \3place "),
    # "reject PRs without a description" is "do not accept PRs without one" (accept only with one).
    (r"\b(reject|decline|refuse)(?:s|d|ing)?\s+((?:[\w'-]+\s+){1,5}?)without\b", r" do not accept \2 without "),
    (r"\b(deny|denies|block|ban|forbid|prohibit)(?:s|ed|ned|ing)?\s+((?:[\w'-]+\s+){1,5}?)without\b",
     r" do not allow \2 without "),
    (r"\bwith\s+no\b", " without "), (r"\btext messages?\b|\b(?<=by )texts?\b", " sms "), (r"\bdirect messages?\b", " dm "),
    # "every morning" is daily, in the morning: the part of the day stays a value ("every evening" is another).
    (r"\b(?:every|each) (night|evening|morning)\b|\bnightly\b", lambda m: f" daily {m.group(1) or 'night'} "), (r"\bwelcome back\b", " welcome "),
    # "every Sunday" is weekly, on Sunday: a frequency against "daily", a day against "every Monday".
    (r"\b(?:every|each) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", r" weekly \1 "),
    (r"\bkeep(?:s|ing)? ((?:the |your |our |their |any |all )?\w+(?: \w+)?) out of\b", r" leaveout \1 in "),
    (r"\blead(?:s|ing)? with\b", " start with "), (r"\bword (?:documents?|files?|format)\b", " docx "),
    # "keep tickets open" is "do not close them"; "as soon as" opens a condition like "when".
    (r"\b(?:keep|keeps|keeping|kept|leave|leaves|leaving|left) ((?:the |your |our |their |any |all )?\w+(?: \w+)?) open\b",
     r" do not close \1 "), (r"\bas soon as\b", " when "),
    # "at all times" is "always": a modality filler, no time of its own.
    (r"\bat all times\b", " always "),
    # "take off their shoes", "take the items off the shelf" remove them (not "take 10 percent off", a discount).
    (r"\b(?:take|takes|taking|took|taken) off\b(?= (?:the|their|your|his|her|its|our|any|all|every|each|a|an)\b)", " remove "),
    (r"\b(?:take|takes|taking|took|taken) ((?:the|their|your|his|her|its|our|any|all|every|each|a|an) (?:[\w'-]+ ){0,3}?)off\b",
     r" remove \1 from "),
    (r"\b(debug|info|warn|warning|error|critical)[- ]level\b", lambda m: " " + m.group(1)[:4] + "level "),
    # "the full test suite" is all of it; a bare "full" narrows ("full account numbers").
    (r"\bthe (?:full|whole|entire)\b", " all "),
    # "a full hour", "an entire day" are one of them.
    (r"\b(?:a|an|one) (?:full|whole|entire) (minute|hour|day|week|month|year)\b", r" 1 \1 "),
    # A named time zone is one value of the time-zone setting, against UTC or local time.
    (r"\b(eastern|pacific|central|mountain) (?:standard |daylight )?time\b", r" \1time "),
    # "the user's local time zone" is the value "local" of the time-zone setting.
    (r"\blocal time(?: ?zones?)?\b", " local "),
    (r"\bhalf an hour\b", " 30 minutes "), (r"\ba quarter of an hour\b|\ba quarter hour\b", " 15 minutes "),
    # "ten thousand dollars" is 10000 ("$10,000" reads so once its separator is dropped).
    (r"\b(\d+|" + _NUMBERS + r")[ -]thousand\b", lambda m: f" {_thousands(m.group(1))} "), (r"\bhalf a (day|year)\b", lambda m: {"day": " 12 hours ", "year": " 6 months "}[m.group(1)]),
    (r"\bkeep(?:s|ing)? ((?:[\w'-]+\s+){1,4}?)hidden\b", r" hide \1 "), (r"\bclos(?:e|es|ing) with\b", " end with "),
    (r"\bword for word\b", " verbatim "), (r"\blog(?:arithmic)? scale\b", " logscale "),
    # "within a week of release" is "within a week after release".
    (r"\b(?:within|atmost)\s+((?:a|an|one|\d+|\w+) (?:minute|hour|day|week|month|year)s?) of\b", r" atmost \1 after "),
    (r"\bmailing lists?\b", " email list "), (r"\bnon-?disclosure agreements?\b", " nda "), (r"\bauto-(?=[a-z])", "automatic "), (r"\bin advance\b|\bahead(?: of)?\b|\bbeforehand\b", " before "),
    (r"\bday (?:one|1)\b", " the firstpos day "),
    # "posts containing X", "posts that contain X" and "posts with X" name the same posts.
    (r"\bcontaining\b|\b(?:that|which|who) (?:contain|contains|have|has)\b", " with "), (r"\bset(?:s|ting)? up\b", " create "),
    (r"\b(?:in )?under\b(?= (?:a|an) (?:second|minute|hour|day|week|month|year)\b)", " atmost "), (r"\ba dozen\b", " 12 "), (r"\ba fortnight\b", " 2 weeks "),
    # A build "is green" when it passes and "is red" when it fails.
    (r"\b(ci|build|builds|tests?|pipeline|pipelines|checks?)\s+(?:is|are|goes|go|turns?|stays?) green\b", r"\1 passes"),
    (r"\b(ci|build|builds|tests?|pipeline|pipelines|checks?)\s+(?:is|are|goes|go|turns?|stays?) red\b", r"\1 fails"),
    (r"\btest suites?\b", " tests "), (r"\b(?:is|are|was|were|be) not found\b", " fails "),
    (r"\b(main|master) branch\b", " main "), (r"\b(british|american) english\b", r" \1 "),
    # Times of day read as HH:MM values: "10 pm", "10 at night" and "22:00" are one time.
    (r"\b(\d{1,2}|" + _HOURS + r")(?::(\d{2}))? ?((?:am|a\.m|pm|p\.m)\.?|in the morning|in the afternoon|in the evening|at night)(?![a-z])",
     lambda m: f" {_clock(_hour(m.group(1)), m.group(3)):02d}:{m.group(2) or '00'} "),
    # A temperature's unit by its letter ("4 degrees C", "-80 °C"), a currency by its country ("US dollars").
    (r"\bdegrees? c\b|° ?c\b", " celsius "), (r"\bdegrees? f\b|° ?f\b", " fahrenheit "),
    (r"\b(?:us|american) dollars?\b", " usd "),
    (r"\bnoon\b|\bmidday\b", " 12:00 "), (r"\bmidnight\b", " 00:00 "),
    # A word in quotes is that word itself, even a function word: "intensifiers like 'very'" is about "very".
    (r"(?<![\w'])(?:'(?=[a-z])|\"(?=[a-z]))([a-z][a-z -]{0,40}?)['\"](?![\w'])", lambda m: " " + " ".join(LITERAL + w for w in m.group(1).split()) + " "),
    (r"\bsuch as\b", " like "),
    (r"\bin order to\b", " to "), (r"'s\b", ""), (r"\bprior to\b", " before "), (r"\be\.g\.|\bi\.e\.", " "),
    # Any comparative before a number bounds it, as "more than" does: "winds stronger than 40 km/h" are at
    # least 40, "children younger than five" at most five (the comparatives of less, named here; "newer than
    # a year" is younger).
    (r"\b(?:younger|newer|fresher|lighter|cheaper|cooler|colder|weaker|narrower|thinner|shallower|quieter|nearer"
     r"|closer|lesser)\s+than\b(?= \$?\d| (?:" + _NUMBERS + r")\b| an? (?:" + _SPANS + r")\b)", " atmost "),
    # Not one whose direction depends on the unit ("faster than 2 seconds" is fewer seconds, "faster than
    # 30 km/h" more kilometres).
    (r"\b(?!(?:other|rather|later|earlier|never|either|whether|under|over|after|ever|faster|quicker|slower|sooner)\b)"
     r"[a-z]{2,}er\s+than\b"
     r"(?= \$?\d| (?:" + _NUMBERS + r")\b| an? (?:" + _SPANS + r")\b)", " atleast "),
    # Verbs of crossing a number bound it too: "when spend passes 80 percent", "if the level falls below 20"
    # (the preposition may already read as the bound: "rises atleast 40").
    (r"\b(?:passes|passed|passing|tops|topped|surpass|surpasses|surpassed)\b(?=\s+(?:\$?\d|(?:" + _NUMBERS + r")\b))",
     " atleast "),
    (r"\b(?:go|goes|went|rise|rises|rose|climb|climbs|climbed|get|gets|got)\s+(?:above|over|past|beyond|atleast)\b"
     r"(?=\s+(?:\$?\d|(?:" + _NUMBERS + r")\b))", " atleast "),
    (r"\b(?:fall|falls|fell|drop|drops|dropped|dip|dips|dipped|sink|sinks|sank|go|goes|went|get|gets|got)"
     r"\s+(?:below|under|beneath|atmost)\b", " atmost "),
    # Fractions of a whole are percentages: "a quarter full" is "25 percent full".
    (r"\b(?:a|one) quarter\b(?! (?:of an? |an? )?hours?\b)", " 25 percent "),
    (r"\bthree quarters\b(?! of an? hours?\b)", " 75 percent "),
    (r"\b(?:a|one) half\b(?! (?:of an? |an? )?(?:hours?|days?|years?)\b)|\bhalf\b(?= (?:full|empty|capacity)\b)", " 50 percent "),
]
