"""Honest uncertainty (issue 16, item 2): a vet that cannot tell keeps a person's note active (human
input fails open) and rejects a free-form observation with the reason (fails closed)."""

from __future__ import annotations

from datetime import date

import pytest

from agentuse.core import capture, revet, tidy
from agentuse.core.helper import protocol as p
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.learning import Category, Channel, State, Verdict
from tests.capture_support import rule

CONTRACT = "# Writer\n\n- Use short sentences throughout.\n"
CLOSE = "Use short sentences in the introduction."  # one word apart: a different case, or a paraphrase?


def _candidate(key: str, *, human: bool, channel: Channel) -> capture.Candidate:
    return capture.Candidate(key=key, channel=channel, human=human,
                             draft=p.Draft(category=Category.tip, title=CLOSE, body=CLOSE))


def test_the_offline_vet_says_it_cannot_tell_when_wording_is_close_but_unread():
    answer = OfflineHelper().vet(p.VetRequest(contract=CONTRACT, trace="use short sentences in the introduction",
                                              candidates=[p.VetCandidate(id="c1", text=CLOSE)]))
    [verdict] = answer.verdicts
    assert verdict.verdict is Verdict.unsure and verdict.against == "contract"
    assert verdict.detail.startswith("could not be vetted offline")


@pytest.mark.parametrize("human, channel, disposition", [
    (True, Channel.corrections, capture.Disposition.active),  # a person's note: fails open
    (False, Channel.custom, capture.Disposition.rejected),  # a free-form observation: fails closed
    (False, Channel.agent, capture.Disposition.rejected),
])
def test_capture_judges_cannot_tell_by_who_wrote_it(human, channel, disposition):
    helper = OfflineHelper()
    cand = _candidate("k", human=human, channel=channel)
    answer = helper.vet(p.VetRequest(contract=CONTRACT, trace=CLOSE,
                                     candidates=[p.VetCandidate(id="k", text=cand.text, human=human)]))
    [judged] = capture.judge([cand], answer, contract=CONTRACT, rules=[])
    assert judged.disposition is disposition and judged.verdict is Verdict.unsure
    if disposition is capture.Disposition.rejected:
        assert judged.why.startswith("could not be vetted offline")


def test_a_re_vet_that_cannot_tell_releases_nothing_and_keeps_active_rules_in_force():
    ih = "a" * 12
    s = tidy.new_state(agent="blog", cap=15, current_ih=ih, today=date(2026, 5, 1), learnings=[
        rule("held0001", "Cite sources", ih="oldoldoldold", state=State.quarantined, why="contradicts x"),
        rule("stale001", "Keep intros short", ih="oldoldoldold")])
    (request,) = revet.requests(s, CONTRACT)
    revet.apply(s, request, p.VetAnswer(verdicts=[p.VetVerdict(id="held0001", verdict="unsure"),
                                                  p.VetVerdict(id="stale001", verdict="unsure")]))
    assert s.get("held0001").state is State.quarantined and s.get("held0001").why == "contradicts x"
    assert s.get("stale001").state is State.active and s.get("stale001").ih == ih
