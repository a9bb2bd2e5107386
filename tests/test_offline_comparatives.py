"""Bounds written as comparatives, verbs of crossing and fractions read as the values they bound
(core/helper/phrases.py), on pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.similarity import analyze


@pytest.mark.parametrize("text,values", [
    ("Close the lift for gusts stronger than 60 km/h.", (">=60",)),
    ("Seat passengers heavier than 100 kg by the aisle.", (">=100",)),
    ("Give a discount to riders younger than twelve.", ("<=12",)),
    ("Flag accounts whose spend tops 500 dollars.", (">=500",)),
    ("Reorder items whose stock falls below 20 units.", ("<=20",)),
    ("Alert on readings that rise above 40 units.", (">=40",)),
    ("Archive files newer than a year.", ("<=31536000s",)),
    # A comparative whose direction depends on the unit bounds nothing: "faster than 2 minutes" is fewer
    # minutes, "faster than 30 km/h" more kilometres.
    ("Reply faster than 2 minutes.", ("120s",)),
])
def test_a_comparative_or_a_verb_of_crossing_bounds_its_number(text, values):
    assert analyze(text).values == values


def test_a_fraction_is_a_percentage_and_a_quarter_hour_still_a_span():
    from agentuse.core.helper.wording import normalize

    assert "25 percent" in normalize("Refill the tank when it is a quarter full.")
    assert "50 percent" in normalize("Refill the tank when it is half full.")
    assert analyze("Hold each slot for a quarter of an hour.").values == ("900s",)


DUPLICATES = [
    ("Warn the owner when monthly usage passes 90 percent of the quota.",
     "Once usage for the month exceeds 90 percent of the quota, warn the owner."),
    ("Give a discount to riders younger than twelve.", "Give a discount to riders under twelve."),
]

NOT_DUPLICATES = [
    ("Warn the owner when monthly usage passes 90 percent of the quota.",
     "Warn the owner when monthly usage passes 80 percent of the quota."),
    ("Give a discount to riders younger than twelve.", "Give a discount to riders older than twelve."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_the_same_bound_in_other_words_is_a_duplicate(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_another_bound_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
