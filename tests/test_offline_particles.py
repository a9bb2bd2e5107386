"""Verb particles that make another verb ("pull out" removes, "throw away" discards, "clear out" empties),
on pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    ("Remove expired coupons from the display rack.", "Pull expired coupons out of the display rack."),
    ("Discard chipped glasses at the end of the shift.", "Throw chipped glasses away at the end of the shift."),
    ("Empty the lint trap after every load.", "Clear out the lint trap after every load."),
]

NOT_DUPLICATES = [
    ("Remove expired coupons from the display rack.", "Pull expired coupons out of the front display rack."),
    ("Discard chipped glasses at the end of the shift.", "Throw chipped glasses away at the end of the week."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_a_verb_with_its_particle_is_the_verb_it_makes(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_a_case_added_or_changed_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
