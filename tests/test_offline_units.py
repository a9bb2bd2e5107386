"""Units, currencies, image formats, ways to pay, tax taken in or left out and hours of the day inside or outside: one value each for one
setting (synonyms.py's closed sets, phrases.py's unit letters and "before tax"), on pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

CONTRADICTIONS = [
    ("Give rainfall in millimetres.", "Report rainfall in inches."),
    ("Export the site photos as PNG files.", "Save the site photos as JPEG images."),
    ("Take cash payments at the kiosk.", "Set the kiosk to accept card payments only."),
    ("Quote parcel weights in kilograms.", "Quote parcel weights in ounces."),
    ("Show room rates before tax.", "Show room rates including tax."),
    ("Quote rents after VAT.", "Quote rents excluding VAT."),
    ("Answer the phone during office hours.", "Answer the phone only outside office hours."),
]

DUPLICATES = [
    ("List fares in US dollars.", "List fares in USD."),
    ("Chill the samples to 4 degrees Celsius.", "Chill the samples to 4 degrees C."),
    ("Show room rates before tax.", "Show room rates excluding tax."),
]

NOT_DUPLICATES = [
    ("List fares in US dollars.", "List fares in euros."),
    ("Chill the samples to 4 degrees Celsius.", "Chill the samples to 4 degrees F."),
    ("Give rainfall in millimetres.", "Give rainfall in millimetres for each hour."),
]


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_two_members_of_one_set_of_units_or_formats_contradict(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_a_unit_by_its_letter_or_code_is_the_unit(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_another_unit_or_a_case_added_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate


def test_outside_the_hours_against_never_during_them_is_no_contradiction():
    # The same rule said the two ways round: neither contradicts the other.
    a, b = "Run backups outside business hours.", "Never run backups during business hours."
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction
