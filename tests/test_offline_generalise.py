"""The offline evaluator's third round of issue 16: kinds of paraphrase and of opposition its earlier rounds
missed on sets written by sessions that never saw it, each shown on pairs written for this test alone (none
is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    # "No X ... until Y" negates the act through its subject: "X only after Y", as "never X until Y" is.
    ("Back up the database before every migration.", "No migration should start until the database has been backed up."),
    # Verb particles: "pick up" is collect, not choose; "written down" is recorded.
    ("Tell members that parcels can be picked up for five days.", "Tell members that parcels can be collected for five days."),
    ("Every handover must be written down.", "Every handover must be recorded."),
    # Comparators and amounts in words.
    ("Split orders larger than 50 units.", "Split orders of more than 50 units."),
    ("Hold each slot for 15 minutes.", "Hold each slot for a quarter of an hour."),
    ("Escalate invoices over $5,000.", "Escalate invoices above five thousand dollars."),
    # Spans of a month or more are counted in months: twelve months are a year.
    ("Archive contracts older than a year.", "Archive contracts older than twelve months."),
    # A colon inside a token does not end the clause the negation stands in.
    ("Avoid pulling the :edge image in production.", "The :edge image should never be pulled in production."),
    # "that have no" is "without", read before "decline ... without" turns the verb around.
    ("Decline orders that have no shipping address.", "Turn down orders without a shipping address."),
]

CONTRADICTIONS = [
    # Two members of one closed set for one thing, though the verbs differ and little else is shared.
    ("Draft all contracts in British English.", "Spell every contract the American way, in American English."),
    # Two numbers for one setting, the rest in other words.
    ("Limit each workshop to 20 participants.", "Each workshop may seat up to 35 registered participants."),
    ("Keep each release note under 200 words.", "The maximum release note length is 300 words."),
    # "leave X out of Y" with no determiner; "keep X confidential" against sharing it.
    ("Leave internal notes out of customer replies.", "Include internal notes in customer replies."),
    ("Keep the salary bands confidential from candidates.", "Share the salary bands with candidates."),
    # "only A" against "always B" for one act, each naming its own party.
    ("Only the duty manager may approve refunds.", "Always let cashiers approve refunds."),
    # "never X" against "X when ...", the condition long enough to keep the overlap low.
    ("Never page the founders.", "Page the founders if the payment system stays down past midnight on a weekday."),
    # "free of X" is "without X"; "turn away" rejects.
    ("Keep the homepage free of pop-ups.", "Show pop-ups on the homepage."),
]

# The hard constraint holds for the new readings: a differing case, party or number is never a duplicate.
NOT_DUPLICATES = [
    ("No migration should start until the database has been backed up.",
     "No migration should start until the database has been backed up and the team told."),
    ("Cap each workshop at 20 participants.", "Cap each workshop at 20 participants on weekends."),
    ("Archive contracts older than a year.", "Archive contracts older than eleven months."),
    ("Escalate invoices over $5,000.", "Escalate invoices above six thousand dollars."),
    ("Only the duty manager may approve refunds.", "Only the duty manager may approve refunds over $100."),
    ("Write all config files in TOML.", "Write all config files in TOML with comments."),
]

# Neither a contradiction: both forbid the act, or the other asks for another party's act.
NOT_CONTRADICTIONS = [
    ("Never page the founders.", "Never page the founders if the payment system stays down past midnight on a weekday."),
    ("Never page the founders at night.", "Page the support lead if the payment system stays down past midnight on a weekday."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_a_clause_or_phrase_in_other_words_is_a_duplicate(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_a_choice_value_party_or_presence_in_other_words_contradicts(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_the_new_readings_never_make_a_near_miss_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate


@pytest.mark.parametrize("a,b", NOT_CONTRADICTIONS)
def test_never_against_when_needs_the_same_act_asked_for_in_a_case(a, b):
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction


def test_a_number_in_words_is_read_as_its_value():
    from agentuse.core.helper.similarity import analyze

    assert analyze("Escalate invoices above five thousand dollars.").values == (">=5000",)
    assert analyze("Hold each slot for a quarter of an hour.").values == ("900s",)
