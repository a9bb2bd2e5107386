"""The offline evaluator's fourth round of issue 16: a rule worded apart from another in several places is a
paraphrase, one copied with a detail added or changed is not; and readings of scope its earlier rounds
missed. Each shown on pairs written for this test alone (none is a pair of a labelled set)."""

from __future__ import annotations

import pytest

from agentuse.core.helper.offline_judge import Label, compare

DUPLICATES = [
    # Worded apart in two places the lexicon reads ("mention" / "show", "top" / "start").
    ("Mention the delivery fee at the top of every quote.", "Show the delivery fee at the start of each quote."),
    # Two verbs of one group and another order of the same words.
    ("Confirm the pickup address before dispatching a driver.", "Before sending a driver, check the pickup address."),
    # A condition in other words and put first.
    ("Offer a discount code when the checkout fails.", "If the checkout has an error, offer a discount code."),
    # "without a reply" qualifies the subject: the modal opens the instruction, which "without" does not negate.
    ("Tickets without a reply for 30 days should be closed.", "Close tickets after 30 days with no reply."),
    # "refuse to X" is "do not X".
    ("Never move pianos up stairs.", "Refuse to move pianos up stairs."),
    # "one patient's results" is "a patient's": no count.
    ("Don't share one patient's results with another patient.", "Never give out a patient's results to another patient."),
    # Worded apart in one place ("when" / "if" and the order), nothing else unread.
    ("Page the on-call engineer when the error rate doubles.", "If the error rate doubles, page the on-call engineer."),
    # Everyday synonyms of one sense: "cc" is "copy", "learner" "student".
    ("CC the account lead on every renewal email.", "Copy the account lead on all renewal emails."),
    ("Praise the learner's effort after each exercise.", "After each exercise, praise the student's effort."),
    # "don't forget to X" asks for X, though "before" follows; "take photos of" is "photograph".
    ("Don't forget to photograph the meter before closing the account.", "Always take photos of the meter before the account is closed."),
    # Hours in words, "over a day", a position after a possessive, idioms of one act.
    ("Lock the gates at 10 pm.", "Lock the gates at ten at night."),
    ("Page the owner if the site is down for over an hour.", "If the site has been down for more than 60 minutes, page the owner."),
    ("Before a tenant's first night, send the house rules.", "Send the house rules before the tenant's first night."),
    ("Say sorry when a delivery is late.", "Apologize when a delivery is late."),
    ("Avoid technical terms in onboarding emails.", "Don't use jargon in onboarding emails."),
    # An acronym for the words it stands for.
    ("Ask the CFO before approving refunds over $500.", "Ask the chief financial officer before approving refunds above $500."),
    # One number set for the rule on one side and named in its case on the other.
    ("Escalate invoices unpaid after 30 days.", "If an invoice is unpaid after 30 days, escalate it."),
    # "may not ... unless" is "only when", as "never ... without" is; invites "that arrive without" an agenda.
    ("Never refund an order without a receipt.", "An order may not be refunded unless there is a receipt."),
    ("Decline invites that arrive without an agenda.", "Turn down invitations that have no agenda."),
    # Verb particles of one sense: "hear back" is getting a reply, "keep track of" is tracking.
    ("Reply to every applicant within a week.", "Each applicant should hear back within a week."),
    ("Keep track of every loaned laptop.", "Track each loaned laptop."),
    # A participle after "be" is a passive verb, not a qualifier.
    ("Encrypt backups at rest.", "Backups must be stored encrypted."),
    # Frequencies and days in other words.
    ("Back up the wiki every 24 hours.", "Back up the wiki daily."),
    ("Post a tip Monday through Friday.", "Post a tip every weekday."),
    # A qualifier said the other way on the other side: "only" by a negation.
    ("Only recommend books you have read yourself.", "Never recommend a book you haven't read."),
    # "only" before an order is read as an order ("never before"), not as one way against another.
    ("Merge only after the review is done.", "Never merge before the review is done."),
]

CONTRADICTIONS = [
    # "disable" is the verb itself, never a manner, though "enable" is one of a closed set.
    ("Disable push notifications on the kiosk app.", "Let the kiosk app send push notifications."),
    # One verb refused, another done to the same object.
    ("Decline every delivery receipt request.", "Always send delivery receipts when asked."),
    # "the first person" is a voice, not a position; "first-person" is the same voice.
    ("Write the changelog in the first person plural.", "Write the changelog in the third person."),
    ("Write case studies in the first person.", "Avoid the first-person voice in case studies."),
    # "including X" against "excluding X" for one thing; a state set and unset ("leave X on" / "switch X off").
    ("List hotel rates including breakfast.", "List hotel rates excluding breakfast."),
    ("Leave the heating on when the office closes.", "Switch the heating off before the office closes."),
    # Two members of a closed set of media and of channels.
    ("Send contracts electronically.", "Send contracts on paper."),
    ("Run the weekly check-in by phone.", "Run the weekly check-in over video."),
    # A clock time against another part of the day, for one setting.
    ("Publish posts at 9 am.", "Publish posts in the evening."),
    # "local time zone" is the value "local" of the time-zone setting, against UTC.
    ("Log times in UTC.", "Record all times in the server's local time zone."),
    # "only A" against "B" in A's place for one act: doing B is what "only A" rules out.
    ("Take returns only at the service desk.", "Take returns at any checkout."),
    ("Accept expense claims by email.", "Accept expense claims only through the finance portal."),
    # The two values of one setting keep their contradiction after the span read as a value.
    ("Close tickets after 30 days with no reply.", "Tickets without a reply for 60 days should be closed."),
]

# Neither a contradiction: "only A" against B for a narrower case, a clock time in the part named.
NOT_CONTRADICTIONS = [
    ("Ship orders only in recycled boxes.", "Ship fragile orders in padded boxes."),
    ("Publish posts at 9 am.", "Publish posts in the morning."),
    ("List prices including tax.", "List prices including shipping."),
]

# The hard constraint holds for the reworded reading: a detail added or changed is never a duplicate.
NOT_DUPLICATES = [
    # Reworded in two places, and one detail changed (the pickup address / the billing one).
    ("Confirm the pickup address before dispatching a driver.", "Check the billing address before sending a driver."),
    # Reworded, and a case added.
    ("Mention the delivery fee at the top of every quote.", "Show the delivery fee at the start of each quote for overseas orders."),
    ("Send each client a progress summary at the end of every month.",
     "Clients on the premium plan should get a written recap of their progress monthly."),
    # Reworded, and a different thing given.
    ("Offer a discount code when the checkout fails.", "If the checkout has an error, give the shopper a refund."),
    # One member of a closed set left over against another the other rule names, though it shares that one.
    ("Squash commits when merging branches.", "Merge branches with a merge commit, keeping each commit."),
    # Two verbs, one of them against the act ("decline" is "do not accept"): another act, not a paraphrase.
    ("Flag invoices that have no purchase order.", "Decline invoices that have no purchase order."),
    # A number in a case is still that number: "under 50" is never "over 50", two hours never three.
    ("Refund orders under $50 automatically.", "Refund orders automatically when the total is over $50."),
    ("Escalate tickets unanswered after two hours.", "If a ticket has no response after three hours, escalate it."),
    # Worded apart in one place, and a qualifier added before a shared word: a narrower case.
    ("Don't email tenants on holidays.", "No emailing tenants on public holidays."),
    # Reworded copies with one detail changed: a qualifier added before a shared word, a verb of another
    # act, an object swapped next to the same word (though the clause moved), a trigger added.
    ("Mention the delivery fee at the top of every invoice.", "Show the delivery fee at the start of each overseas invoice."),
    ("Ask for the account number before resetting a password.", "Before resetting an admin password, request the account number."),
    ("Never store passwords in plain text.", "Passwords must not be logged in plain text."),
    ("Summarize the call at the end of each meeting.", "At the end of every meeting, recap the action items."),
    ("Check the invoice total before approving payment.", "Before approving any payment, verify the invoice date."),
    ("Suggest a cheaper plan when a customer cancels.", "When a customer downgrades, recommend a cheaper plan."),
    ("Reply to reviews within a day when they are negative.", "Respond to every review within a day."),
    # A qualifier on each side of the same word ("job applicants" / "each rejected applicant").
    ("Reply to job applicants within a week.", "Each rejected applicant should hear back within a week."),
    # A word added on one side, however it is written, is a detail of its own.
    ("Reply to tickets within an hour.", "Respond to tickets that are urgent within an hour."),
    ("Tell customers when their order ships.", "Notify customers by SMS when an order ships."),
    ("Check spelling before publishing.", "Before publishing, check spelling and grammar."),
    ("Back up the database before each migration.", "Before every schema migration, make a backup of the database."),
    ("Monitor disk latency on the build servers.", "Track disk latency spikes on the build servers."),
    # A word unread on each side, wherever it stands, may be the detail a reworded copy changed.
    ("Ask the guest for ID at check-in.", "At check-in, request a passport from each guest."),
    # A qualifier one side uses and the other does not, though every other word matches.
    ("Reply to most messages within a day.", "Reply to all messages within a day."),
    ("Never approve your own expenses.", "Never approve expenses."),
    ("Notify other teams about outages.", "Notify teams about outages."),
    ("Call the customer again if they miss the appointment.", "Call the customer if they miss the appointment."),
    ("Email either parent about absences.", "Email both parents about absences."),
    # "before" and "after" are no two words for one thing, even around a step of light words.
    ("Ask the user before deleting anything.", "Ask the user after deleting anything."),
    # However much else is reworded, a word swapped next to the same shared word is a detail changed.
    ("Ask the client to sign the contract before starting work.", "Before work begins, get the customer to review the contract."),
    # "one" before a unit is still a number.
    ("Remind the tenant one day before the inspection.", "Remind the tenant before the inspection."),
    # Two verbs it cannot tell apart, worded apart in two other places: another act, not a paraphrase (a
    # reading that let two places do was measured and dropped in issue 16's fifth round).
    ("Don't call clients after 8 pm.", "Never email customers after 8 pm."),
    ("Don't print invoices for customers.", "Never email invoices to clients."),
    ("Don't email students their grades on weekends.", "Never text pupils their grades on weekends."),
]


@pytest.mark.parametrize("a,b", DUPLICATES)
def test_paraphrases_are_duplicates(a, b):
    assert compare(a, b).label is Label.duplicate
    assert compare(b, a).label is Label.duplicate


@pytest.mark.parametrize("a,b", CONTRADICTIONS)
def test_contradictions(a, b):
    assert compare(a, b).label is Label.contradiction


@pytest.mark.parametrize("a,b", NOT_CONTRADICTIONS)
def test_not_contradictions(a, b):
    assert compare(a, b).label is not Label.contradiction
    assert compare(b, a).label is not Label.contradiction


@pytest.mark.parametrize("a,b", NOT_DUPLICATES)
def test_a_detail_added_or_changed_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate
    assert compare(b, a).label is not Label.duplicate
