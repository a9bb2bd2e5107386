"""Two kinds of one thing chosen ("use epoxy grout" / "use cement grout"), a contradiction only where the
verb chooses (offline_choices.kind_conflict), on pairs written for this test alone (none is a pair of a
labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

CONTRADICTIONS = [
    ("Use oak flooring in the hallway.", "Use pine flooring in the hallway."),
    ("Choose matte paint for the ceiling.", "Choose gloss paint for the ceiling."),
    ("Use a water-based sealant on decks.", "Use an oil-based sealant on decks."),
]

# A verb that chooses nothing (two things watched), or the word apart in a case, not the thing chosen.
NOT_CONTRADICTIONS = [
    ("Monitor disk latency on the servers.", "Monitor disk usage on the servers."),
    ("Use oak flooring in the hallway.", "Use oak flooring in the kitchen."),
    ("Never use oak flooring in the hallway.", "Use pine flooring in the hallway."),
]


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_two_kinds_of_the_thing_a_verb_chooses_contradict(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


@pytest.mark.parametrize("a,b", NOT_CONTRADICTIONS)
def test_two_things_watched_or_two_cases_are_no_choice(a, b):
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction
