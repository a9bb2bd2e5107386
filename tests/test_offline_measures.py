"""A measure a value's unit already names ("the temperature" at 4 degrees C, "a resolution" under 300 dpi)
is no detail of its own (core/helper/measures.py), on pairs written for this test alone (none is a pair of
a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    ("Hold the temperature of the fridge at 4 degrees C.", "Keep the fridge at 4 degrees Celsius."),
    ("Reject scans with a resolution under 300 dpi.", "Reject scans below 300 dpi."),
    ("Cap the duration of calls at 30 minutes.", "Cap calls at 30 minutes."),
]

# Two measures named are two settings; a measure with another value, or of another thing, is another rule.
NOT_DUPLICATES = [
    ("Set the height of the shelf to 2 m.", "Set the width of the shelf to 2 m."),
    ("Keep the water temperature at 40 degrees.", "Keep the room at 40 degrees."),
    ("Cap the duration of calls at 30 minutes.", "Cap calls at 40 minutes."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_a_measure_the_unit_names_is_no_detail(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_two_measures_or_another_value_are_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
