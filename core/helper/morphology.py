"""Light morphology for the offline evaluator: one stem for a word's inflected and derived forms.

"publishing", "published" and "publish" are one term; so are "confirmation" and "confirm", "certified"
and "certify", "organise" and "organize". Far simpler than Porter, and deliberately short of the
aggressive conflations that would merge different words ("format" is not "form", "information" not
"inform"). Synonyms are not read here but in `similarity.canon`, over these stems.
"""

from __future__ import annotations

from agentuse.core.helper import lexicon as lx


# (suffix, replacement, letters the stem must keep). "-ly" needs four ("clearly" -> "clear"; "reply" and
# "apply" stay); "-ment" six ("deployment" -> "deploy"; "statement", "document" stay); "-able" four
# ("relatable" -> "relat", as "relate"; "table", "capable" stay); "-val"/"-wal" nouns of their verbs
# ("approval" -> "approv", as "approve"; "renewal" -> "renew"). "-ings" before "-ing": "headings" is
# "heading" is "head", and "settings" is "setting". "-ship" nouns of their person: "sponsorship" is
# "sponsor", "ownership" "owner" ("ship" itself and "worship" stay).
_SUFFIXES = (("ships", "", 4), ("ship", "", 4), ("ies", "y", 3), ("sses", "ss", 3), ("ings", "", 3), ("ing", "", 3), ("ed", "", 3), ("sis", "s", 4), ("ables", "", 4),
             ("able", "", 4), ("es", "e", 3), ("ly", "", 4), ("ments", "", 6), ("ment", "", 6),
             ("vals", "v", 3), ("val", "v", 3), ("wals", "w", 3), ("wal", "w", 3))


def stem(word: str) -> str:
    """A light suffix stripper (Porter-like, far simpler): enough to make "publishing", "published" and
    "publish" one term, without the aggressive conflations that would merge different words."""
    w = lx.IRREGULAR.get(word, word)
    if len(w) == 3 and w.endswith("s") and w[1] not in "aeiousy":  # "ids" -> "id"
        return w[:2]
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix, repl, keep in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= keep:
            w = w[: len(w) - len(suffix)] + repl
            break
    else:
        if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
            w = w[:-1]
    if w.endswith("ication") and len(w) > 9:  # "certification", "notification" -> "certify", "notify"
        w = w[:-7] + "y"
    elif w.endswith(("tion", "sion")) and len(w) > 6:
        w = w[:-3]
    if len(w) >= 4 and w.endswith("i") and word.endswith(("ied", "ies", "ier")):  # "certified" -> "-y"
        w = w[:-1] + "y"
    # "-ate"/"-ation" to the root the plain verb keeps: "confirmation" is "confirm", "invitation" "invite",
    # "reconciliation" "reconcile". Seven letters at least, so "format", "private", "update" stay.
    if len(w) >= 7 and w.endswith("iat"):
        w = w[:-3]
    elif len(w) >= 7 and w.endswith("at"):
        w = w[:-2]
    elif len(w) >= 8 and w.endswith("ate"):
        w = w[:-3]
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":  # "committ" -> "commit"
        w = w[:-1]
    elif len(w) >= 6 and w.endswith("ell") and len(w) < len(word):  # British "labelled", "cancelling"
        w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) >= 4 and w.endswith("lv"):  # a noun's verb in "-lve": "shelve" is "shelf", "halve" "half"
        w = w[:-1] + "f"
    # British spellings read as American: "organise"/"organize", "analyse"/"analyze", "colour"/"color".
    if len(w) >= 6 and w.endswith(("is", "ys")):
        w = w[:-1] + "z"
    elif len(w) >= 5 and w.endswith("our"):
        w = w[:-2] + "r"
    return w
