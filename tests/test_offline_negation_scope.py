"""Where a negation reaches inside one clause (core/helper/negation_scope.py), shown on pairs written for
this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.similarity import analyze

# The same instruction, the negation standing in a part of one side's clause.
NOT_CONTRADICTIONS = [
    # A second instruction joined by "and", with its own negation: the first is still asked for.
    ("Inspect the ladder before each climb and do not climb it if a rung is cracked.",
     "Inspect the ladder before each climb."),
    # A relative clause without its pronoun says which ones; it does not turn the instruction around.
    ("Flag invoices you have not matched as pending.", "Flag unmatched invoices as pending."),
    # "keep X from V-ing" against "do not let X V": both forbid it.
    ("Keep children from climbing the fence.", "Do not let children climb the fence."),
]

CONTRADICTIONS = [
    # "keep X from V-ing" is against V-ing, whatever verb the other side uses to let them.
    ("Let children climb the fence.", "Keep children from climbing the fence."),
    ("Allow guests to park on the lawn.", "Prevent guests from parking on the lawn."),
]


@pytest.mark.parametrize("a,b", NOT_CONTRADICTIONS)
def test_a_negation_inside_a_part_of_the_clause_does_not_oppose_the_instruction(a, b):
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_kept_from_doing_it_is_against_doing_it(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


def test_the_told_instruction_carries_the_negation_not_the_telling():
    terms = {t.word: t.negative for t in analyze("Tell the driver not to idle the engine.").terms}
    assert terms["driver"] is False and terms["idl"] is True
    terms = {t.word: t.negative for t in analyze("Remind the driver that nobody may idle the engine.").terms}
    assert terms["driver"] is False and terms["idl"] is True


def test_two_negations_of_one_instruction_still_cancel():
    # "never X you have not Y" is "X only what you have Y": no relative clause is cut out of it.
    assert compare("Never recommend a book you have not read.",
                   "Only recommend books you have read yourself.").label is not Label.contradiction


def test_a_short_negation_after_the_instruction_is_what_it_is_against():
    # "in ink, never in pencil" is "in ink rather than in pencil": what it is against, not the instruction.
    terms = {t.word: (t.negative, t.role) for t in analyze("Sign the form in ink, never in pencil.").terms}
    assert terms["pencil"] == (True, "contrast") and terms["ink"] == (False, "main")
    # After a condition it is the instruction itself: "if it rains, never open the roof".
    terms = {t.word: (t.negative, t.role) for t in analyze("If it rains, never open the roof.").terms}
    assert terms["roof"] == (True, "main")
    # And a long clause is an instruction of its own.
    terms = {t.word: (t.negative, t.role) for t in analyze("Ship on weekdays, never ship parcels to a locker box.").terms}
    assert terms["locker"] == (True, "main")



@pytest.mark.parametrize("a,b", [
    ("Decline refund requests from resellers.", "Do not accept refund requests from resellers."),
    ("Refuse bookings for the staff car park.", "Do not accept bookings for the staff car park."),
])
def test_a_verb_that_is_a_negation_against_do_not_and_its_opposite_is_one_instruction(a, b):
    # "decline" is "do not accept": "do not" reaches the object and "decline" leaves it as written.
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction


def test_the_same_verb_asked_for_with_opposite_objects_still_contradicts():
    assert compare("Indent with tabs, not spaces.", "Indent with spaces, not tabs.").label is Label.contradiction


def test_what_is_told_is_read_apart_from_the_telling():
    # "deleted" turns its passive subject around ("old files"), not the ones told ("users").
    terms = {t.word: t.negative for t in analyze("Warn users that old files may be deleted.").terms}
    assert terms["user"] is False


def test_waiving_a_fee_is_not_charging_it():
    a = "Waive the late fee for first-time renters."
    assert compare(a, "Charge the late fee to first-time renters.").label is Label.contradiction
    assert compare(a, "Never charge first-time renters the late fee.").label is Label.duplicate
