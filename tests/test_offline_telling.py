"""A verb of telling or asking only frames what is told ("remind buyers that ...", "explain to clients that
...", "ask guests to ..."), on pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    ("Remind tenants that the gym closes at 10 pm.", "Tell tenants the gym closes at 10 pm."),
    ("Explain to riders that helmets are required.", "Tell riders that helmets are required."),
    ("Ask visitors to sign the logbook.", "Tell visitors to sign the logbook."),
    ("Nudge reviewers to finish their reviews.", "Remind reviewers to finish their reviews."),
]

NOT_DUPLICATES = [
    ("Remind tenants that the gym closes at 10 pm.", "Tell tenants the gym closes at 11 pm."),
    ("Ask visitors to sign the logbook.", "Ask staff to sign the logbook."),
    ("Explain to riders that helmets are required.", "Tell riders that helmets are optional."),
    ("Prompt users to save their work.", "Ask admins to save their work."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_what_is_told_in_the_same_words_is_a_duplicate_whichever_verb_tells_it(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_another_value_party_or_choice_told_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
