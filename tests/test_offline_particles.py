"""Verb particles that make another verb ("pull out" removes, "throw away" discards, "clear out" empties,
"break down by" groups, "break X into" splits, "stay off" avoids, "trim" shortens), idioms of one sense ("most recent" is "last", "plainly" is "in plain language"),
"for example" ("such as"), "someone" as a placeholder for whoever it is, a build that "is green" (passes) or "is red" (fails), a verb that only says the thing is there ("unless an invoice is attached" is "without an invoice"),
a light verb ("before making a cut" is "before you cut") and a passive between "only" and its order, on
pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    ("Remove expired coupons from the display rack.", "Pull expired coupons out of the display rack."),
    ("Discard chipped glasses at the end of the shift.", "Throw chipped glasses away at the end of the shift."),
    ("Empty the lint trap after every load.", "Clear out the lint trap after every load."),
    ("Break the sales report down by region.", "Group the sales report by region."),
    ("Break the workshop into three sessions.", "Split the workshop into three sessions."),
    ("Trim intros longer than 50 words.", "Shorten intros longer than 50 words."),
    ("Quote the client's most recent order number.", "Quote the client's last order number."),
    ("Answer complaints plainly.", "Answer complaints in plain language."),
    ("Check the level before making a cut.", "Always check the level before you cut."),
    ("Unlock the side door before opening the main door.",
     "The main door may only be opened once the side door is unlocked."),
    ("Never stand on the wet deck.", "Stay off the wet deck."),
    ("Never ship an order without an invoice.", "An order may not be shipped unless an invoice is attached."),
    ("Never start a shift without a supervisor.", "A shift may not start unless a supervisor is present."),
    ("Deploy only after the build passes.", "Never deploy before the build is green."),
    ("Never release while the pipeline is red.", "Never release while the pipeline fails."),
    ("Print dates as month day year, such as March 4 2026.", "Print dates as month, day, year, for example March 4 2026."),
]

CONTRADICTIONS = [
    ("Keep off the lawn after rain.", "Walk on the lawn after rain."),
    ("Print dates as month day year, such as March 4 2026.", "Print dates as day month year, for example 4 March 2026."),
]

NOT_DUPLICATES = [
    ("Remove expired coupons from the display rack.", "Pull expired coupons out of the front display rack."),
    ("Discard chipped glasses at the end of the shift.", "Throw chipped glasses away at the end of the week."),
    ("Quote the client's most recent order number.", "Quote the client's first order number."),
    # "someone on the team" is one of them (read as a placeholder it was measured and taken out).
    ("Notify someone on the team.", "Notify the team."),
    # A verb that says the thing is there is a trigger when the case names nothing else.
    ("Book the room if it is available.", "Book the room."),
    ("Book the room if a projector is available.", "Book the room."),
    ("Never ship an order without an invoice.", "An order may not be shipped unless a signed invoice is attached."),
    ("Deploy only after the build is green.", "Deploy only after the build is red."),
    ("Break the workshop into three sessions.", "Split the workshop into four sessions."),
    ("Never break into a locked account.", "Never split a locked account."),
    ("Unlock the side door before opening the main door.",
     "The main door may only be opened by a manager once the side door is unlocked."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_a_verb_with_its_particle_is_the_verb_it_makes(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_a_case_added_or_changed_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_kept_off_or_another_format_by_example_contradicts(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction
