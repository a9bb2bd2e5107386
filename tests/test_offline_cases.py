"""Two members of one closed set are two values of one setting only when the value is what the instruction
sets ("reply in Spanish" / "in German"). When the member sits in the description of what the rule is about
("reviews written in German", "incidents that happen on weekends", "notes for mobile users") it picks
which things, so the two rules are about different cases: a near-miss, both can hold. Below, contradictions
read by clause structure (an "only" place against another, an act put off against the same act done early,
an include-verb against a carve-out, verbs of receiving, a negated word against its opposite, values per
party), each with the near-misses it must not take. Pairs written for this test, not taken from the
labelled sets."""

from __future__ import annotations

import pytest
from capture_support import archived, make_agent, seed, stored
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core.helper.factory import override_helper
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.learning import Channel, Learning, Source, State

DIFFERENT_CASES = [
    # a participle clause on the object
    ("Summarize customer reviews written in German.", "Summarize customer reviews written in French."),
    ("Flag payments made in cash for review.", "Flag payments made by card for review."),
    # a relative clause
    ("Escalate incidents that happen on weekends.", "Escalate incidents that happen on weekdays."),
    ("Archive invoices which arrive as PDF.", "Archive invoices which arrive as XLSX."),
    # "from", "for", "about", "of" X
    ("Prioritize tickets from internal teams.", "Prioritize tickets from external teams."),
    ("Write release notes for mobile users.", "Write release notes for desktop users."),
    ("Collect feedback about the morning session.", "Collect feedback about the evening session."),
    ("Take nightly backups of production databases.", "Take nightly backups of staging databases."),
    # a noun modifier on the object of a removal: "remove duplicate X" is read "dedupe X", still a removal
    ("Delete empty rows before exporting.", "Delete duplicate rows before exporting."),
    ("Discard incomplete survey responses.", "Discard duplicate survey responses."),
]

ONE_SETTING = [
    ("Reply to customers in Spanish.", "Reply to customers in German."),
    ("Export the monthly report as CSV.", "Export the monthly report as JSON."),
    ("Sort search results in ascending order.", "Sort search results in descending order."),
    ("Send the team digest weekly.", "Send the team digest daily."),
    ("Write the changelog in British spelling.", "Write the changelog in American spelling."),
    # the shared member describes the tickets; the two others are what the translation is set to
    ("Translate tickets written in Spanish into English.", "Translate tickets written in Spanish into German."),
    ("Delete empty rows before exporting.", "Keep empty rows when exporting."),
]


@pytest.mark.parametrize("a, b", DIFFERENT_CASES)
def test_a_member_that_picks_which_things_makes_a_near_miss(a, b):
    assert compare(a, b).label is Label.near_miss, compare(a, b)
    assert compare(b, a).label is Label.near_miss, compare(b, a)


@pytest.mark.parametrize("a, b", ONE_SETTING)
def test_a_member_that_is_what_the_instruction_sets_is_still_a_contradiction(a, b):
    assert compare(a, b).label is Label.contradiction, compare(a, b)
    assert compare(b, a).label is Label.contradiction, compare(b, a)


APPLIED = "learning:\n  capture: true\n  apply: true\n  max: 15"


def test_a_persons_rule_on_another_case_is_not_archived_by_learnings_add(tmp_path):
    agent = make_agent(tmp_path / "p", APPLIED, name="support.agentuse")
    seed(agent, [Learning(id="a1b2c3d4", title="Summarize customer reviews written in German.",
                          body="Summarize customer reviews written in German.", date="2026-08-01",
                          src=Source.manual, ch=Channel.corrections)])
    with override_helper(OfflineHelper()):
        result = CliRunner().invoke(app, ["learnings", "add", str(agent),
                                          "Summarize customer reviews written in French."])
    assert result.exit_code == 0, (result.stdout, result.exception)
    assert not any("Replaced" in line for line in result.stdout.splitlines()), result.stdout
    assert sorted((r.title, r.state) for r in stored(agent)) == [
        ("Summarize customer reviews written in French", State.active),
        ("Summarize customer reviews written in German.", State.active)]
    assert archived(agent) == []


def test_a_note_that_replaces_a_repeated_rule_keeps_its_repeats(tmp_path):
    # spec: "a rule you have repeated ... gets sharpened rather than dropped": the repeats are the
    # evidence graduation counts, so the rule that replaces it carries them.
    agent = make_agent(tmp_path / "p", APPLIED, name="blog-writer.agentuse")
    seed(agent, [Learning(id="a1b2c3d4", title="Keep intros factual", body="Keep intros factual", re=2,
                          date="2026-08-01", src=Source.manual, ch=Channel.corrections)])
    with override_helper(OfflineHelper()):
        result = CliRunner().invoke(app, ["learnings", "add", str(agent), "Keep intros factual rather than promotional"])
    assert result.exit_code == 0, (result.stdout, result.exception)
    assert result.stdout.startswith('[Learning] Replaced an earlier rule: "Keep intros factual"'), result.stdout
    [now] = stored(agent)
    assert (now.title, now.re) == ("Keep intros factual rather than promotional", 2)


# "Only" one way or place against another for the same act on the same thing: the second does what the
# first rules out. Pairs written for this test.
ONLY_ELSEWHERE = [
    ("Store signed contracts only in the legal drive.", "Store signed contracts in the team's shared folder."),
    ("Accept returns only at the service desk.", "Accept returns at the checkout lanes."),
    ("Record meter readings only in the billing system.", "Log meter readings in a paper notebook on site."),
]
# The same "only" against the same place, a wider or narrower place, another act or another thing.
NOT_ONLY_ELSEWHERE = [
    ("Store signed contracts only in the legal drive.", "Store signed contracts in the legal drive."),
    ("Store signed contracts only in the legal drive.", "Store unsigned drafts in the team's shared folder."),
    ("Accept returns only at the service desk.", "Accept returns at the service desk on weekends."),
    ("Accept returns only at the service desk.", "Issue refunds at the checkout lanes."),
    ("Record meter readings only in the billing system.", "Delete meter readings in a paper notebook."),
    ("Record meter readings only in the billing system.", "Record meter readings in the billing system and the audit log."),
]


# An act put off until later against the same act done early (first, at once, before, within a span): the
# two cannot both be followed. Pairs written for this test.
DEFERRED_AGAINST_EARLY = [
    ("Send the welcome pack as soon as a member signs up.", "Hold the welcome pack until the member's first visit."),
    ("Answer the easiest questions first.", "Leave the easiest questions until the end of the exam."),
    ("Publish the minutes within two days of the meeting.", "Hold the minutes until the chair has approved them."),
    ("Put the strongest argument first.", "Save the strongest argument for the end."),
    # "not ... until" and "only at the end" put it off too
    ("Don't reveal the prize until the final round.", "Announce the prize in the first round."),
    ("Show the delivery fee up front.", "Show the delivery fee only at the last step of checkout."),
    # the same event, one acting before it and the other waiting for it
    ("Put off the team lunch until the launch is done.", "Hold the team lunch before the launch."),
    ("Pay suppliers on receipt of the invoice.", "Hold supplier payments until the end of the quarter."),
]
# Another thing put off, the same event on both sides, or both put off.
NOT_DEFERRED_AGAINST_EARLY = [
    ("Send the welcome pack as soon as a member signs up.", "Hold the parking permit until the member's first visit."),
    ("Send the invoice as soon as the job is finished.", "Hold the invoice until the job is finished."),
    ("Send the newsletter as soon as it is approved.", "Hold the newsletter until it is approved by legal."),
    ("Hold the welcome pack until the member's first visit.", "Keep the welcome pack until the member's first visit."),
    ("Answer the easiest questions first.", "Never leave the easiest questions until the end of the exam."),
    # "keep ... until" retains the thing, it does not put an act off
    ("Submit receipts within a week.", "Keep receipts until the annual audit."),
    ("Submit receipts within a week.", "Save the receipts until the end of the year."),
    ("Don't reveal the prize until the final round.", "Announce the winner in the first round."),
    # one sequence said twice
    ("Lock the account before rotating its keys.", "Do not rotate the keys of an account until the account is locked."),
    # both wait, each for its own moment
    ("Hold the front-row seats for the press until the day of the launch.",
     "Keep the press's front-row seats back until two hours before the launch."),
]


# One rule's include-verb takes in the very thing the other carves out ("excluding", "before tax"): two
# values of one setting. Pairs written for this test.
INCLUDED_AGAINST_CARVED_OUT = [
    ("Include the deposit in the total.", "Show the total excluding the deposit."),
    ("Add VAT to every price in the catalogue.", "List catalogue prices excluding VAT."),
    ("Include tax in the price on the label.", "Print the label price before tax."),
    ("Add the booking fee to every quoted total.", "Quote totals exclusive of the booking fee."),
]
# Another thing carved out, or a case of its own on the carving side.
NOT_INCLUDED_AGAINST_CARVED_OUT = [
    ("Include VAT in every quote.", "Quote prices excluding shipping."),
    ("Include the deposit in the total.", "Show the total excluding the deposit for returning guests."),
    ("Never include the deposit in the total.", "Show the total excluding the deposit."),
]


# "Take" and "accept", "collect" and "take" are one act where what comes in is the object: "only A" against
# "always B" or another place holds across them. Any other verb is another act. Pairs written for this test.
RECEIVED_ONE_WAY_AGAINST_ANOTHER = [
    ("Accept card payments at every stall.", "Take card payments only at stalls with a reader."),
    ("Collect entry forms only at the front desk.", "Take entry forms at the side door."),
]
NOT_RECEIVED_ONE_WAY_AGAINST_ANOTHER = [
    ("Take card payments only at stalls with a reader.", "Refund card payments at every stall."),
    ("Take photos only at the main stage.", "Share photos at the side stage."),
    ("Collect entry forms only at the front desk.", "Print entry forms at the side door."),
]


# A negation that falls on a word whose opposite the other rule asks for says the same thing twice over
# ("don't let hikers go beyond the trail" / "keep hikers within the trail"): no contradiction. Pairs written
# for this test.
SAID_BOTH_WAYS = [
    ("Don't let hikers go beyond the marked trail.", "Keep hikers within the marked trail."),
    ("Never charge walk-in clients for a first consultation.", "Give walk-in clients a free first consultation."),
    ("Never let the cat out of the house at night.", "Keep the cat in the house at night."),
    ("Never sell tickets above face value.", "Sell tickets at or below face value."),
]
# The same word on both sides, one forbidding it: still a contradiction.
NOT_SAID_BOTH_WAYS = [
    ("Never charge walk-in clients for a consultation.", "Charge walk-in clients for every consultation."),
    ("Never leave the fire door open.", "Leave the fire door open in summer."),
    ("Never let hikers go beyond the marked trail.", "Let hikers go beyond the marked trail with a guide."),
    # "in" said of something else
    ("Never store paint out of the locked cabinet.", "Store paint in the basement."),
]


# Two values, each for its own party named in one word ("for staff" / "for visitors"): two cases, both can
# hold. A word after the number is what it counts, not a party. Pairs written for this test.
VALUES_FOR_TWO_PARTIES = [
    ("Book taxis for staff up to a day ahead.", "Book taxis for visitors up to a week ahead."),
    ("Reply to tenants within two days.", "Reply to landlords within five days."),
]
VALUES_FOR_ONE_SETTING = [
    ("Book taxis for staff up to a day ahead.", "Book taxis for staff up to a week ahead."),
    ("Reply in two sentences.", "Reply in at least four paragraphs."),
]


# One fixed member of a closed set against the party's own value of that setting ("in French" / "in the
# customer's language"): two values of one setting. Pairs written for this test.
FIXED_AGAINST_OWN = [
    ("Answer support emails in French.", "Answer support emails in the customer's language."),
    ("Bill clients in euros.", "Bill clients in their own currency."),
    ("Schedule standups in UTC.", "Schedule standups in each attendee's time zone."),
]
# Another act on the party's own value, or the setting named on one side only.
NOT_FIXED_AGAINST_OWN = [
    ("Answer support emails in French.", "Log the customer's language on every support email."),
    ("Bill clients in euros.", "Ask clients for their own currency."),
    ("Answer support emails in French.", "Answer support emails from Quebec in the customer's language."),
    ("Bill clients in euros.", "Bill EU clients in their local currency."),
]

# The same span run the other way ("from A to Z" / "from Z to A") is never a duplicate: between two values
# of one setting (letters, ranks, languages, currencies) it is a contradiction; between two places or
# parties both directions can hold. Pairs written for this test.
RUN_THE_OTHER_WAY = [
    ("Sort the guest list from A to Z.", "Sort the guest list from Z to A."),
    ("Rank the candidates from strongest to weakest.", "Rank the candidates from weakest to strongest."),
    ("Translate the help pages from Spanish into English.", "Translate the help pages from English into Spanish."),
]
NOT_RUN_THE_OTHER_WAY = [
    ("Forward calls from the front desk to the night manager.", "Forward calls from the night manager to the front desk."),
    # one thing reached "to" on one side and "from" on the other: the flow runs the other way
    ("Back up the photos to the shared drive.", "Back up the photos from the shared drive."),
    ("Mirror the wiki to the staging server.", "Mirror the wiki from the staging server."),
]
# Two weekdays are two values of one schedule already: only "never a duplicate" is asked of this one.
RUN_THE_OTHER_WAY_ON_OTHER_DAYS = [
    ("Sort the guest list from A to Z on Mondays.", "Sort the guest list from Z to A on Fridays."),
]

# A verb undone by its prefix ("install" / "uninstall", "pack" / "unpack"): opposed acts on one object,
# never a duplicate. An un- word that describes the thing ("unread messages") is no act. Pairs written for
# this test.
UNDONE = [
    ("Install the VPN client on every laptop.", "Uninstall the VPN client on every laptop."),
    ("Follow vendor accounts on social media.", "Unfollow vendor accounts on social media."),
    ("Pack the display kit before the show.", "Unpack the display kit before the show."),
    ("Compress log archives before upload.", "Decompress log archives before upload."),
    # a verb and its opposite
    ("Open the side gate for delivery vans.", "Close the side gate for delivery vans."),
    ("Expand every section of the FAQ by default.", "Collapse every section of the FAQ by default."),
]
NOT_UNDONE = [
    ("Archive read messages weekly.", "Archive unread messages weekly."),
    ("Install the VPN client on every laptop.", "Uninstall the old antivirus on every laptop."),
    # "dis" and "de" begin words that undo nothing
    ("Play the intro video in the lobby.", "Display the intro video in the lobby."),
    ("Sign the lease in the office.", "Design the lease in the office."),
    ("Open the side gate for delivery vans.", "Close the car park gate for delivery vans."),
    ("Open tickets for new bugs.", "Close tickets for duplicate bugs."),
]

# One thing given free on one side and charged for on the other: two values of its price. Pairs written for
# this test.
FREE_AGAINST_CHARGED = [
    ("Offer free parking to visitors.", "Charge visitors for parking."),
    ("Hand out the printed map for free.", "Charge two dollars for the printed map."),
]
# Free on both sides said two ways, or another party charged.
NOT_FREE_AGAINST_CHARGED = [
    ("Don't charge for gift wrapping.", "Gift wrapping is free."),
    ("Offer free parking to visitors.", "Charge staff for parking."),
]

# Each category's pairs: what it must now read as a contradiction, and the near-misses it must not.
CONTRADICTIONS = (ONLY_ELSEWHERE + DEFERRED_AGAINST_EARLY + INCLUDED_AGAINST_CARVED_OUT + RECEIVED_ONE_WAY_AGAINST_ANOTHER
                  + NOT_SAID_BOTH_WAYS + VALUES_FOR_ONE_SETTING + FIXED_AGAINST_OWN
                  + RUN_THE_OTHER_WAY + UNDONE + FREE_AGAINST_CHARGED)
NO_CONTRADICTIONS = (NOT_ONLY_ELSEWHERE + NOT_DEFERRED_AGAINST_EARLY + NOT_INCLUDED_AGAINST_CARVED_OUT
                     + NOT_RECEIVED_ONE_WAY_AGAINST_ANOTHER + SAID_BOTH_WAYS + VALUES_FOR_TWO_PARTIES
                     + NOT_FIXED_AGAINST_OWN + NOT_RUN_THE_OTHER_WAY
                     + NOT_UNDONE + NOT_FREE_AGAINST_CHARGED)


@pytest.mark.parametrize("a, b", CONTRADICTIONS)
def test_a_contradiction_of_its_category_is_read_either_way_round(a, b):
    assert compare(a, b).label is Label.contradiction, compare(a, b)
    assert compare(b, a).label is Label.contradiction, compare(b, a)


@pytest.mark.parametrize("a, b", NO_CONTRADICTIONS)
def test_a_near_miss_of_its_category_is_no_contradiction(a, b):
    assert compare(a, b).label is not Label.contradiction, compare(a, b)
    assert compare(b, a).label is not Label.contradiction, compare(b, a)


@pytest.mark.parametrize("a, b", RUN_THE_OTHER_WAY + NOT_RUN_THE_OTHER_WAY + RUN_THE_OTHER_WAY_ON_OTHER_DAYS)
def test_a_span_run_the_other_way_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate, compare(a, b)


# Issue 16, duplicate recall (round six): restatements a word reader can account for, each with the
# near-misses it must still tell apart. Pairs written for this test, not taken from the labelled sets.
RESTATED = [
    # two qualifiers of one family ("usually" / "typically") are one qualifier said two ways
    ("Tell clients that refunds usually take five days.", "Let clients know refunds typically take five days."),
    ("Warn riders that the ferry normally runs late in winter.", "Tell riders the ferry usually runs late in winter."),
    # "after that" before the next step is "then"
    ("Label the shelf with its aisle number and after that photograph it.",
     "Label the shelf with its aisle number, then photograph it."),
    ("Wash the brushes, and after that hang them up to dry.", "Wash the brushes, then hang them up to dry."),
    # "carry out a check of X" is "check X": a light verb and its noun
    ("Verify the invoice totals.", "Carry out a check of the invoice totals."),
    ("Inspect every ladder before use.", "Carry out an inspection of each ladder before use."),
    # a possessive placeholder says whose, not who: "someone's number" is "the number"
    ("Ask before sharing someone's phone number.", "Ask before sharing a phone number."),
    # "options" after what they are is the thing itself ("vegetarian options" / "something vegetarian")
    ("Include gluten-free options in every breakfast.", "Make sure each breakfast includes something gluten-free."),
    # a position after a possessive, whatever a rewrite before it wrote ("pull request" is "pr")
    ("Thank a volunteer after their first PR.", "After a volunteer's first pull request, thank them."),
    # an event's own boundary is implied by the order word before it
    ("Send speakers the schedule two days before the conference.",
     "Speakers should get the schedule two days before the conference starts."),
    ("Collect the badges after the workshop.", "Collect the badges once the workshop ends."),
    # a verb particle that makes another verb ("comes back" returns)
    ("Refund the deposit when the key comes back.", "Refund the deposit when the key is returned."),
    # a noun's own verb in "-lve" ("shelve" / "on the shelf")
    ("Shelve returned books the same day.", "Put returned books on the shelf the same day."),
    # "only" fronted before the verb still orders or conditions it: "only X after Y" is "X only after Y"
    ("Don't merge until CI passes.", "Only merge after CI passes."),
    ("Never publish a post until an editor approves it.", "Only publish a post once an editor has approved it."),
    # a restriction written after its case or before it ("on weekends only" / "only on weekends")
    ("Tell visitors the gift shop opens on weekends only.", "Let visitors know the gift shop opens only on weekends."),
    # a noun spelt apart from its verb ("advice" / "advise"), and "anywhere" before the place it stresses
    ("Give new hires advice on setting up their laptops.", "Advise new hires on setting up their laptops."),
    ("Never post prices on the notice board.", "Do not post prices anywhere on the notice board."),
    # "leave X untouched / as it is / intact" is "do not change X", however X is written
    ("Don't alter template variables such as {order_id}.", "Leave template variables like {order_id} untouched."),
    ("Never modify the config file.", "Keep the config file intact."),
    # an omission negated is the thing put in, before an order too ("never skip X before Y")
    ("Never skip the spell check before sending.", "Always run the spell check before sending."),
    ("Don't omit the safety notice before the first lesson.", "Always include the safety notice before the first lesson."),
    # a state kept, against its opposite forbidden: "keep X on" is "never let X off"
    ("Don't let the cat off the harness in the garden.", "Keep the cat on the harness in the garden."),
    ("Keep the window closed during storms.", "Never open the window during storms."),
    ("Keep the toddlers inside the play area.", "Never let the toddlers outside the play area."),
    ("Keep the goats within the paddock.", "Never let the goats beyond the paddock."),
    # "at all times" is "always"
    ("Wear a helmet on the site at all times.", "Always wear a helmet on the site."),
    # "take off" what one wears or carries is "remove" it
    ("Ask guests to remove their shoes at the door.", "Have guests take off their shoes at the door."),
    ("Take the expired items off the shelf.", "Remove the expired items from the shelf."),
    # "X are not to be V-ed" is "X must not be V-ed"
    ("Access badges are not to be shared with visitors.", "Never share access badges with visitors."),
    # "a second" before a thing is "another", not a second of time
    ("Ask a second nurse to check every dose.", "Have another nurse check each dose."),
    # the day an event names is the event ("before wedding day" / "before the wedding")
    ("Send the seating plan before the wedding.", "Send the seating plan before wedding day."),
    # one manner of writing, however many of its adjectives
    ("Explain fees in simple, everyday words.", "Use plain language to explain fees."),
    # connectives of one kind: "provided that" is "if", "except when" is "unless"
    ("Refund the fee provided that the ticket is unused.", "Refund the fee if the ticket is unused."),
    ("Refund the fee unless the ticket was used.", "Refund the fee except when the ticket was used."),
    # a bare span after "after" is a lower bound on both sides
    ("Archive tickets after 30 days.", "Archive tickets after a month."),
    # the same words with whole phrases moved, neighbours traded, or a clause fronted: no swap
    ("Reply in English to customers.", "Reply to customers in English."),
    ("Check spelling and grammar before sending.", "Check grammar and spelling before sending."),
    ("Every Monday, remind the team to file expenses.", "Remind the team to file expenses every Monday."),
    # "nightly" is "every night"
    ("Back up the database nightly.", "Back up the database every night."),
]

NOT_RESTATED = [
    # another qualifier family, or a qualifier on one side only
    ("Tell clients that refunds usually take five days.", "Let clients know refunds sometimes take five days."),
    ("Tell clients that refunds usually take five days.", "Let clients know refunds take five days."),
    # "after that" on the other step: the order is reversed
    ("Photograph the shelf and after that label it with its aisle number.",
     "Label the shelf with its aisle number, then photograph it."),
    # "after that date" names a day, not the next step
    ("Accept returns after that date.", "Accept returns, then refund them."),
    # a light verb's noun that is not the other's verb, or another object
    ("Verify the invoice totals.", "Carry out a check of the invoice dates."),
    ("Email the supplier when stock runs low.", "Carry out an audit of the supplier when stock runs low."),
    # someone else's is another person's
    ("Never read someone else's messages.", "Never read messages."),
    # "options" against a thing named
    ("Include gluten-free options in every breakfast.", "Make sure each breakfast includes gluten-free bread."),
    ("Include gluten-free options in every breakfast.", "Include gluten-free bread in every breakfast."),
    # the first one against any
    ("Thank a volunteer after their first PR.", "After a volunteer's pull request, thank them."),
    # the event's other boundary is a case of its own
    ("Send speakers the schedule two days before the conference.",
     "Speakers should get the schedule two days before the conference ends."),
    ("Collect the badges after the workshop.", "Collect the badges once the workshop starts."),
    ("Refund the deposit when the key comes back.", "Refund the deposit when the key is lost."),
    ("Shelve returned books the same day.", "Put returned books on the cart the same day."),
    # "only" restricting who or which, or on one side only; a gate moved with it is still the gate it names
    ("Only publish a post once an editor has approved it.", "Publish a post only once the author has approved it."),
    ("Only email customers who opted in when a sale starts.", "Email customers who opted in when a sale starts."),
    ("Tell visitors the gift shop opens on weekends only.", "Let visitors know the gift shop opens on weekends."),
    ("Let visitors know the gift shop opens only on weekends.", "Tell visitors the gift shop opens on weekends."),
    ("Give new hires advice on setting up their laptops.", "Advise new hires on setting up their phones."),
    # a bare "anywhere" is every place, wider than one
    ("Never post prices on the notice board.", "Do not post prices anywhere."),
    ("Never modify the config file.", "Keep the config file intact when upgrading."),
    ("Leave the quoted passages as they are.", "Shorten the quoted passages."),
    ("Never skip the spell check before sending.", "Skip the spell check before sending."),
    ("Never skip the spell check before sending.", "Never run the spell check before sending."),
    # the state itself against its opposite, or kept in another place
    ("Keep the cat on the harness in the garden.", "Let the cat off the harness in the garden."),
    ("Keep the cat on the harness in the garden.", "Never keep the cat on the harness in the garden."),
    ("Don't let the cat off the harness in the garden.", "Keep the cat on the harness in the house."),
    ("Keep the window closed during storms.", "Never close the window during storms."),
    ("Keep the window closed during storms.", "Open the window during storms."),
    ("Keep the goats within the paddock.", "Let the goats beyond the paddock."),
    ("Keep the goats within the paddock.", "Never let the goats beyond the paddock at night."),
    ("Wear a helmet on the site at all times.", "Always wear a helmet on the scaffold."),
    ("Ask guests to remove their shoes at the door.", "Have guests put on slippers at the door."),
    ("Take 10 percent off orders over $50.", "Remove orders over $50."),
    ("Access badges are not to be shared with visitors.", "Share access badges with visitors."),
    ("Ask a second nurse to check every dose.", "Ask a nurse to check every dose."),
    ("Wait a second before retrying.", "Wait a minute before retrying."),
    ("Send the seating plan before the wedding.", "Send the seating plan the day before the wedding."),
    ("Send the seating plan before the wedding.", "Send the seating plan before the rehearsal day."),
    ("Explain fees in simple, everyday words.", "Explain fees in technical language."),
    ("Refund the fee provided that the ticket is unused.", "Refund the fee unless the ticket is unused."),
    ("Refund the fee except when the ticket was used.", "Refund the fee when the ticket was used."),
    ("Use the template provided by legal.", "Use the template if legal sends it."),
    # the case one applies in is the case the other carves out
    ("Approve the refund if the receipt is attached.", "Approve the refund unless the receipt is attached."),
    ("Publish the post when the editor approves.", "Publish the post unless the editor approves."),
    # one rule copied with a negation put in, inside a case
    ("Close tickets that were resolved.", "Close tickets that were never resolved."),
    ("Publish posts that an editor approved.", "Publish posts that no editor approved."),
    # "after an hour" is an hour or more, "within an hour" at most one
    ("Call the customer within an hour.", "Call the customer after an hour."),
    # the same words, two in each other's place: who does what to whom, which over which
    ("Hire for attitude over skill.", "Hire for skill over attitude."),
    ("Copy the manager on emails to the client.", "Copy the client on emails to the manager."),
    ("Forward complaints from suppliers to legal.", "Forward complaints from legal to suppliers."),
    ("Teachers grade the students' essays.", "Students grade the teachers' essays."),
    # "every morning" is daily in the morning, not daily at any time
    ("Water the plants every morning.", "Water the plants every evening."),
]


@pytest.mark.parametrize("a, b", RESTATED)
def test_a_restatement_the_reader_accounts_for_is_a_duplicate(a, b):
    assert compare(a, b).label is Label.duplicate, compare(a, b)
    assert compare(b, a).label is Label.duplicate, compare(b, a)


def test_leaving_a_thing_as_it_is_is_against_changing_it():
    assert compare("Leave the quoted passages as they are.", "Shorten the quoted passages.").label is Label.contradiction
    assert compare("Leave placeholder tags like {name} untouched.", "Translate placeholder tags like {name}.").label \
        is Label.contradiction


@pytest.mark.parametrize("a, b", NOT_RESTATED)
def test_a_detail_changed_beside_a_restatement_is_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate, compare(a, b)
    assert compare(b, a).label is not Label.duplicate, compare(b, a)


# Two values of one order written the other way round, and what one rule excepts asked for by the other:
# every word is shared, so only the order or the role tells them apart. Found by probing (round six), not
# in the labelled sets. Pairs written for this test.
IN_ANOTHER_ORDER = [
    ("Write dates as day month year.", "Write dates as month day year."),
    ("Print names as last name first name.", "Print names as first name last name."),
    ("Label the photos error log style.", "Label the photos log error style."),
]
STILL_ONE_ORDER = [  # a paraphrase may trade words a conjunction joins, or a number and its unit
    ("Check spelling and grammar before sending.", "Check grammar and spelling before sending."),
    ("Ship orders placed before 12 March.", "Ship orders placed before March 12."),
]
ROLES_CROSSED = [
    ("Translate headlines but not body text.", "Translate body text but not headlines."),
    ("Email the customer but not the supplier.", "Email the supplier but not the customer."),
]


@pytest.mark.parametrize("a, b", IN_ANOTHER_ORDER)
def test_two_values_of_one_order_written_the_other_way_are_never_a_duplicate(a, b):
    assert compare(a, b).label is not Label.duplicate, compare(a, b)
    assert compare(b, a).label is not Label.duplicate, compare(b, a)


@pytest.mark.parametrize("a, b", STILL_ONE_ORDER)
def test_words_a_conjunction_joins_or_a_date_may_trade_places(a, b):
    assert compare(a, b).label is Label.duplicate, compare(a, b)


@pytest.mark.parametrize("a, b", ROLES_CROSSED)
def test_what_one_rule_excepts_and_the_other_asks_for_is_a_contradiction(a, b):
    assert compare(a, b).label is Label.contradiction, compare(a, b)
    assert compare(b, a).label is Label.contradiction, compare(b, a)
