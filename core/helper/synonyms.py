"""Word groups the offline evaluator reads as one: synonyms (one canonical word for a group), verb classes
(one act in other verbs), and closed sets of alternatives (two members of one are two values of one
setting). General English and the vocabulary of instructions to agents, not phrases of any test set;
`vocabulary.py` builds its tables from these.
"""

from __future__ import annotations

# Verbs that, as the instruction's verb, ask for one act in other words ("escalate" / "forward" a dispute,
# "sort" / "order" results, "phone" / "call" someone). Looser than SYNONYMS, so matched only between two
# words left over once synonyms are read, one of them leading its clause: "order" the noun ("order
# number") or "note" ("show notes") stays itself. A word may be in several classes, and two verbs are one
# act when one class holds both ("publish" is both sending and posting; "send" and "post" are not one act).
VERB_CLASSES: list[str] = [
    # Each class holds verbs that name the same act in an instruction; a verb for a related but different
    # act stays out ("escalate" raises a case, "forward" passes it on; "test" and "review" are not
    # "check"; "warn" and "remind" are not "notify"; "schedule" sets a time, "book" takes a place).
    "include show display mention state specify quote",
    "include mention cite reference",  # citing is not quoting
    "record log note document",  # tracking goes on over time
    "send share forward deliver dispatch distribute circulate",  # publishing makes it public
    "publish post release",
    "forward route refer transfer",
    "call phone ring telephone",
    "check verify validate confirm inspect examine",
    "tag label mark flag",
    "sort order arrange",  # ranking judges
    "end finish conclude close",
    "start begin open",
    "suggest propose recommend",  # advising and offering are other acts
    "give provide supply",  # granting permits; offering is not giving
    "store save persist",  # keeping and retaining are about how long
    "create generate produce",  # composing and writing author a piece; a draft is not the finished piece
    "fix repair correct",  # resolving closes a case
    "ask request inquire",
    "book reserve",
    "notify alert inform tell",
    "copy cc",
    "ignore disregard overlook",
    "hold conduct host",
    "discuss talk",
    "split divide break separate",
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
    "kilometer kilometre km",
    "mile mi",
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
    "long lengthy extended",
    "small tiny",
    # Domain-general words instructions use interchangeably (adjectives and nouns of everyday English).
    "full complete",
    "error mistake",
    "negative bad",
    "polite courteous",
    "wrong incorrect inaccurate",
    "hard difficult",
    "child kid children kids",
    "doctor physician clinician",
    "car vehicle",
    "price cost",
    "refund reimburse reimbursement",
    "option choice",
    "purpose goal aim objective",
    "student pupil",
    "teacher instructor tutor",
    "colleague coworker",
    "manager boss",
    "admin administrator",
    "login signin logon",
    "ad advert advertisement",
    "segment chunk",
    "split divide",
    "illness disease",
    "identical same",
    "phone smartphone cellphone telephone",

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
    "json csv xml yaml parquet tsv xlsx toml", "public private", "production staging", "firstperson thirdperson",
    "monday tuesday wednesday thursday friday saturday sunday",
    "january february march april may june july august september october november december",
    "english german french spanish italian portuguese dutch japanese chinese",
    # Closed sets of one setting, domain-general: units, frequencies, times of day, modes, classes.
    "celsius fahrenheit kelvin", "metric imperial", "hourly daily alternateday weekly fortnightly monthly quarterly yearly",
    "morning afternoon evening night overnight", "hot cold warm", "inperson remote onsite",
"euro dollar pound yen", "weight volume", "markdown html pdf docx plaintext",
    "portrait landscape", "manual automatic manually automatically", "apa mla chicago harvard ieee",
    "online offline", "absolute relative", "literal literally figurative", "up down",
    "firstperson secondperson thirdperson", "high medium low", "weekday weekend", "phone sms chat letter email", "internal external",
    "optional required", "inside outside", "firstplace lastplace", "logscale linear", "past present future", "mile kilometer",
    "debulevel infolevel warnlevel errolevel critlevel",
    "active passive", "left right center centre", "horizontal vertical", "singular plural",
    "economy business premium firstclass",
    "snakecase camelcase pascalcase kebabcase", "desktop mobile tablet",
]

# Adjectives of one scale, also alternatives: a rule asks for one end of it ("use short titles" / "long
# titles"); in a scope they name a case instead ("on short posts" / "on long posts"), so no choice there.
SCALES = ["short long", "early late", "large small", "quick slow", "strict lenient", "wide narrow", "simple complex"]
ALTERNATIVES += SCALES
