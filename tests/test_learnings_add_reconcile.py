"""`agentuse learnings add` with the offline evaluator: a note that restates a rule in force counts a
repeat on it, one that sharpens it replaces it (spec: "If it restates or contradicts one of them, it
replaces that rule rather than being filed beside it"), and a near-miss stays a rule of its own."""

from __future__ import annotations

import pytest
from capture_support import archived, make_agent, seed, stored
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core.helper.factory import override_helper
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.learning import Channel, Learning, Source, State

APPLIED = "learning:\n  capture: true\n  apply: true\n  max: 15"


def manual(rule_id: str, title: str, body: str = "") -> Learning:
    return Learning(id=rule_id, title=title, body=body or title, date="2026-08-01", src=Source.manual,
                    ch=Channel.corrections)


@pytest.fixture
def agent(tmp_path):
    return make_agent(tmp_path / "p", APPLIED, name="blog-writer.agentuse")


def add(agent, text: str) -> list[str]:
    with override_helper(OfflineHelper()):
        result = CliRunner().invoke(app, ["learnings", "add", str(agent), text])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout.splitlines()


def test_a_note_restating_the_whole_rule_counts_a_repeat_instead_of_a_second_rule(agent):
    seed(agent, [manual("a1b2c3d4", "Keep intros factual",
                        "For informational posts, keep intros factual rather than promotional.")])
    lines = add(agent, "Keep intros factual for informational posts")
    assert lines == ['[Learning] Repeated an earlier rule: "Keep intros factual" (re:1, id:a1b2c3d4)']
    [again] = stored(agent)
    assert (again.id, again.re, again.state) == ("a1b2c3d4", 1, State.active)


def test_a_note_sharpening_a_rule_replaces_it(agent):
    seed(agent, [manual("a1b2c3d4", "Keep intros factual")])
    lines = add(agent, "Keep intros factual rather than promotional")
    assert lines[0] == '[Learning] Replaced an earlier rule: "Keep intros factual" (archived, id:a1b2c3d4)'
    assert lines[1].startswith('[Learning] Saved "Keep intros factual rather than promotional" (id:')
    [now] = stored(agent)
    assert now.title == "Keep intros factual rather than promotional" and now.state is State.active
    assert [(r.id, r.state) for r in archived(agent)] == [("a1b2c3d4", State.retired)]


@pytest.mark.parametrize("rule, note", [
    ("Use UTC timestamps in all log lines.", "Use UTC timestamps in all audit log lines."),
    ("Keep intros factual.", "Keep intros factual except in product launch posts."),
    ("For informational posts, keep intros factual.", "Keep intros factual."),
    ("Add a summary to every post.", "Add a summary to every post over 1000 words."),
])
def test_a_near_miss_is_filed_as_its_own_rule(agent, rule, note):
    seed(agent, [manual("a1b2c3d4", rule)])
    lines = add(agent, note)
    assert lines[0].startswith("[Learning] Saved "), lines
    assert sorted(r.state for r in stored(agent)) == [State.active, State.active] and archived(agent) == []


@pytest.mark.parametrize("note", ["Add a summary to every post, on weekends", "Add a summary to every post. on weekends",
                                  "Add a summary to every post; in the footer"])
def test_a_note_that_adds_a_case_after_a_comma_or_full_stop_is_no_repeat(agent, note):
    # Review 22e (found by tests/reliability/test_taught_never_lost.py): the clause after the break was read as
    # opening on a verb, so its one word ("weekends") counted as a paraphrase's leftover. The note was
    # "Repeated an earlier rule" and its case was stored nowhere.
    seed(agent, [manual("a1b2c3d4", "Add a summary to every post")])
    lines = add(agent, note)
    assert lines[0].startswith("[Learning] Saved "), lines
    case = note.split()[-1]
    assert any(case in f"{r.title} {r.body}" for r in stored(agent)), stored(agent)


@pytest.mark.xfail(strict=True, reason="review 22e, not fixed: a correction that contradicts a rule inherits that "
                   "rule's repeats (merged_record sums re), so the reversal counts as repeated and the next tidy-up "
                   "makes it permanent though the person said it once; the fold answer does not say whether it "
                   "contradicts or sharpens, so the counts cannot yet be told apart")
def test_a_contradiction_of_a_repeated_rule_does_not_inherit_its_repeats(agent):
    add(agent, "Keep intros factual")
    add(agent, "keep intros factual")
    assert [r.re for r in stored(agent)] == [1]
    lines = add(agent, "Never keep intros factual")
    assert lines[0].startswith('[Learning] Replaced an earlier rule: "Keep intros factual"'), lines
    [now] = stored(agent)
    assert now.title == "Never keep intros factual" and now.re == 0  # said once: not "repeated", not yet permanent
