"""The offline evaluator judges by category (issue 16, "What to build" item 1), shown on pairs written for
these tests alone (none is a pair of a labelled set): each is an instance of a kind of paraphrase or of
opposition, not a phrase the lexicon was taught."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.similarity import stem

DUPLICATES = [
    # A time of day in two notations; "a day" and "a month" as durations.
    ("Do not send push notifications after 9 pm.", "Never send push notifications after 21:00."),
    ("Answer partner questions within a day.", "Answer partner questions within 24 hours."),
    ("Archive closed projects after a month.", "Archive closed projects after 30 days."),
    # The passive of an omission verb; "un-...ed" as "not ...".
    ("Never delete audit logs.", "Audit logs must never be deleted."),
    ("Leave the company logo unchanged.", "Do not change the company logo."),
    # Verb particles and verbs of putting in, after a modal too.
    ("Never give out home addresses.", "Do not share home addresses."),
    ("Each invoice must state the payment terms.", "Include the payment terms on every invoice."),
    ("Pushing directly to main is not allowed.", "Do not push directly to main."),
    # Domain-general verb groups, British spelling, percent.
    ("Reserve a meeting room for every workshop.", "Book a meeting room for each workshop."),
    ("Organise the photos by event.", "Organize the photos by event."),
    ("Cap refunds at 20%.", "Cap refunds at 20 percent."),
    # "never X unless/before Y" is "X only when/after Y"; a passive prohibition is a "never".
    ("Never deploy unless the tests pass.", "Deploy only when the tests pass."),
    ("Do not merge before a review.", "Merge only after a review."),
    ("Sharing passwords is forbidden.", "Never share passwords."),
    ("Do not send emails after 6 pm.", "Never send emails later than 18:00."),
    # A thousands separator is not a clause break; "that has no" is "without"; half a year is six months.
    ("Cap articles at 2,500 words.", "Articles must not exceed 2500 words."),
    ("Archive tickets that have no owner.", "Archive any ticket with no owner."),
    ("Keep call recordings for half a year.", "Keep call recordings for six months."),
    ("Answer chat messages in five minutes or less.", "Answer chat messages within 5 minutes."),
]

CONTRADICTIONS = [
    # Two counts per period; a duration against "permanently".
    ("Water the office plants once a week.", "Water the office plants three times a week."),
    ("Keep deleted accounts permanently.", "Keep deleted accounts for 90 days."),
    # "X without Y" against "never X without Y"; antonym verbs; a closed set; two means for one action.
    ("Merge dependency updates without a review.", "Never merge without a review."),
    ("Increase the font size of captions.", "Decrease the font size of captions."),
    ("Align the table headers to the left.", "Align the table headers to the right."),
    ("Group the expense report by project.", "Group the expense report by person."),
    # One part of a compound rule against the other rule.
    ("Rotate the on-call roster after each incident.", "Never rotate the on-call roster; keep one owner all quarter."),
    # One time bounded from opposite sides.
    ("Call customers after 9 am.", "Call customers before 9 am."),
    ("Never call customers before 9 am.", "Call customers before 9 am."),
]

# Near-misses and different actions on one object: never a duplicate.
NOT_DUPLICATES = [
    ("Archive stale branches.", "Delete stale branches."),
    ("Each draft must be reviewed by an editor.", "Each draft must be approved by an editor."),
    ("Post a summary in the team channel.", "Post a summary in the team channel after every release."),
    ("Send invoices within 30 days.", "Send invoices within 30 days to clients abroad."),
    ("Water the office plants weekly.", "Water the office plants weekly in summer."),
    ("Assign each bug to one engineer.", "Assign each bug to one engineer and one tester."),
    ("Never export customer emails.", "Never export full customer emails."),
    ("Never schedule standups.", "Never schedule standups before 10 am."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_the_same_action_object_and_scope_in_other_words_is_a_duplicate(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_opposed_actions_and_two_values_for_one_setting_contradict(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_a_differing_action_case_or_number_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate


def test_two_unknown_verbs_on_one_object_are_a_cannot_tell():
    relation = compare("Archive stale branches.", "Prune stale branches.")
    assert relation.label is Label.near_miss and relation.unsure


@pytest.mark.parametrize("a,b", [("notification", "notify"), ("invitation", "invite"), ("certified", "certify"),
                                 ("reconciliation", "reconcile"), ("confirmation", "confirm")])
def test_light_morphology_reads_a_noun_as_its_verb(a, b):
    assert stem(a) == stem(b)


@pytest.mark.parametrize("a,b", [("format", "form"), ("information", "inform"), ("compliment", "comply")])
def test_light_morphology_keeps_different_words_apart(a, b):
    assert stem(a) != stem(b)


@pytest.mark.parametrize("a,b,same", [("sarcasm", "sarcastic", True), ("access", "accessible", True),
                                      ("subscribe", "subscription", True), ("account", "accountant", False),
                                      ("develop", "developer", False), ("customer", "customize", False),
                                      ("sentences", "sentencecase", False)])
def test_a_derived_form_is_the_same_term_but_a_person_named_after_it_is_not(a, b, same):
    from agentuse.core.helper.overlap import similar_words

    assert similar_words(stem(a), stem(b)) is same


# Issue 16, item 1, a second round: more kinds of paraphrase, each shown on pairs written for this test.
IDIOM_DUPLICATES = [
    # "the first time X appears" is "on first use"; "on the day it happens" is "the same day"; "that lack"
    # is "without"; "over chat" is "in chat".
    ("Define every abbreviation on first use.", "The first time an abbreviation appears, define it."),
    ("Log each refund the same day.", "Log each refund on the day it happens."),
    ("Flag orders that lack a tracking number.", "Flag orders without a tracking number."),
    ("Never share passwords over chat.", "Never share passwords in chat."),
    # British doubling, verb particles, "otherwise" after "unless".
    ("Tag every issue with a priority.", "Each issue should be labelled with a priority."),
    ("Transfer angry customers to a supervisor.", "Hand angry customers over to a manager."),
    ("Remove tracking parameters from links.", "Strip tracking parameters out of URLs."),
    ("Translate product names only if the client asks.",
     "Leave product names untranslated unless the client requests otherwise."),
    # "Nothing should be X" is "never X"; "they're" is "they are"; "-ship" nouns; calendar words.
    ("Nothing should be scheduled before 10 am.", "Never schedule anything before 10 am."),
    ("Answer questions within a day after they're asked.", "Answer questions within a day after they are asked."),
    ("Disclose every sponsorship in the caption.", "Disclose every sponsor in the caption."),
    ("Decline meeting requests without an agenda.", "Decline invites without an agenda."),
    # One date in two notations: a date, not an example of a format.
    ("Publish the report on 12 March 2027.", "Publish the report on March 12, 2027."),
]

SECOND_ROUND_CONTRADICTIONS = [
    # A frequency said as "every other day"; one means against another of two words.
    ("Water the ferns daily.", "Water the ferns every other day."),
    ("Sort the leaderboard by points.", "Sort the leaderboard by win rate."),
    # Two ways of one act, in other prepositions and verbs; "only" a case against "all", the case a value;
    # a period in a scope is when the act is forbidden, not how.
    ("Hold parent meetings by phone.", "Hold parent meetings over video."),
    ("Only cite papers published after 2018.", "Cite all relevant papers."),
    ("Give contractors repo access on day one.", "Never give contractors repo access in their first week."),
    # Done with no gate against never without one; an order in other words; "keep open" against "close".
    ("Approve refunds under $50 automatically.", "Never approve refunds without a manager."),
    ("Sort comments newest first.", "Sort comments oldest first."),
    ("Keep tickets open until the customer confirms.", "Close tickets as soon as you reply."),
    # Two quoted texts for one place; two written-out date formats; "anonymous" against naming.
    ("Greet users with 'Hi'.", "Greet users with 'Hello there'."),
    ("Write dates as 12 March 2024.", "Format dates as March 12, 2024."),
    ("Keep the reporter anonymous in every article.", "Name the reporter in every article."),
]

SECOND_ROUND_NOT_DUPLICATES = [
    # Two parties, each named on one side: different people, never implied.
    ("Email students the timetable.", "Email guests the timetable."),
    ("Leave 15 minutes between calls.", "Leave 15 minutes between calls with customers."),
    ("Schedule reviews in my time zone.", "Schedule reviews in the customer's time zone."),
    # A narrower case named by a scope or a qualifier.
    ("Log every failed login.", "Log every failed login from abroad."),
    ("Summarize each meeting for the attendees.", "Summarize each meeting for the manager."),
    ("Offer a refund to unhappy customers.", "Offer a refund to unhappy premium customers."),
    # A quoted word is the word itself, even one read as filler elsewhere.
    ("Avoid 'very' in headlines.", "Avoid 'really' in headlines."),
    ("Email customers the invoice.", "Email partners the invoice."),
    # Verbs of different acts, or of one act by different channels.
    ("Email the agenda to the team.", "Post the agenda to the team."),
    ("Archive old invoices.", "Send old invoices."),
    # "the day it is approved" names an event of its own: not "the same day".
    ("Publish each post the same day.", "Publish each post on the day it is approved."),
    # Related verbs of different acts: escalating raises a case, forwarding passes it on; testing is not
    # checking; a reminder is not a warning.
    ("Escalate billing disputes to the finance lead.", "Forward billing disputes to the finance lead."),
    ("Test every signup form on a tablet.", "Check every signup form on a tablet."),
    ("Warn customers about the price change.", "Remind customers about the price change."),
    # A restriction the sentence ends on, and a part carved out against a part taken in.
    ("Send the audit report to the legal team.", "Send the audit report to the legal team only."),
    ("Quote delivery times excluding weekends.", "Quote delivery times including weekends."),
]


@pytest.mark.parametrize("a,b", IDIOM_DUPLICATES)
def test_an_idiom_in_other_words_is_a_duplicate(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", SECOND_ROUND_CONTRADICTIONS)
def test_every_other_day_and_a_two_word_means_are_values_of_one_setting(a, b):
    assert compare(a, b).label is Label.contradiction
    assert compare(b, a).label is Label.contradiction


@pytest.mark.parametrize("a,b", SECOND_ROUND_NOT_DUPLICATES)
def test_two_parties_two_acts_or_a_named_event_are_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
