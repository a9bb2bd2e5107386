"""Issue 12's small items, each through the CLI: what the listing, the store and the capture report say
must be true of what actually happened."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def invoke(*args: str | Path, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture
def seeded(tmp_path) -> Path:
    """The example agent with the spec's seed store: one rule in it (e5f6a7b8) is stale and eligible."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "seeds" / "blog-writer.learnings.md", location.store_path)
    return agent


def test_a_stale_rule_is_not_listed_ready_to_make_permanent(seeded):
    # injected:12 is past the 10-run mark, but the rule awaits re-vet: the spec's example lists it bare.
    out = invoke("learnings", seeded).stdout
    assert "  dormant  [tip] Cite the primary source, never a summary\n" \
           "    src:approval · injected:12 · ch:corrections  ·  2026-07-19  ·  id:e5f6a7b8\n" in out
    assert "approved:4 · ready to make permanent" in out  # an applied, proven rule still says it
    entries = {e["record"]["id"]: e for e in json.loads(invoke("learnings", seeded, "--json").stdout)["entries"]}
    assert entries["e5f6a7b8"]["stale"] and not entries["e5f6a7b8"]["ready_to_graduate"]
    assert entries["a1b2c3d4"]["ready_to_graduate"]


# ---------------------------------------------------------------- a note's words are stored once


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'/]+", text)  # a heading drops its closing period: words, not punctuation


def _stored_once(agent: Path, note: str):
    """The rule saved for `note`: its text carries the note's words in order, once, and so do the store
    file and the injected section."""
    from agentuse.core.inject import render_section

    location = store.locate(agent)
    [rule] = [r for r in store.load(location).learnings if r.id != "seeded"]
    assert _words(rule.text) == _words(note)
    assert rule.body.strip() != rule.title and not rule.body.startswith(rule.title)
    # The entry's heading and body; its `<!-- evidence: reviewer: "..." -->` quote is provenance, never sent.
    file = "\n".join(line for line in location.store_path.read_text().splitlines() if not line.startswith("<!--"))
    section = render_section([rule])
    for sentence in ("Cite the primary source for every statistic", "Split a longer one at its second idea"):
        if sentence in note:
            assert file.count(sentence) == 1 and section.count(sentence) == 1, (file, section)
    return rule


@pytest.fixture
def blank(tmp_path) -> Path:
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    return agent


@pytest.mark.parametrize("note", [
    "Cite the primary source for every statistic.",
    "Keep paragraphs under four sentences.\nSplit a longer one at its second idea.",
])
def test_learnings_add_stores_the_note_once_on_the_offline_evaluator(blank, note):
    invoke("learnings", "add", blank, note)
    rule = _stored_once(blank, note)
    if "\n" not in note:
        assert (rule.title, rule.body) == (note.removesuffix("."), "")  # a one-line note is its title alone


def _remember(agent: Path, note: str, draft):
    from fakes.scripted_helper import ScriptedHelper, passing

    from agentuse.core.helper import protocol as p
    from agentuse.flows.remember import run_remember

    ground = p.GroundAnswer(rule=draft) if draft is not None else p.InvalidAnswerError(
        "ground: the model's answer does not validate", operation="ground")
    # The audit (the gate a grounded note passes) finds the note carried: this test is about the wording stored.
    helper = ScriptedHelper(ground=[ground], reconcile=[p.ReconcileAnswer(action=p.ReconcileAction.new)],
                            vet=[passing], audit=[p.AuditAnswer(missing=[])])
    run_remember(agent=str(agent), text=note, helper=helper, agent_arg=str(agent))


@pytest.mark.parametrize("title, body", [
    ("Cite the primary source for every statistic.", "Cite the primary source for every statistic."),
    ("Cite the primary source", "Cite the primary source for every statistic."),
    ("Keep paragraphs under four sentences", "Keep paragraphs under four sentences.\nSplit a longer one at its second idea."),
])
def test_a_grounded_rule_whose_body_repeats_its_title_is_stored_once(blank, title, body):
    from agentuse.core.helper import protocol as p

    _remember(blank, "cite sources", p.Draft(title=title, body=body))
    _stored_once(blank, body)


def test_a_long_note_stored_as_written_keeps_every_word_once(blank):
    # Grounding failed: the note is stored as written. Its first line is longer than a heading.
    note = ("When a post quotes a statistic, link the primary source it comes from rather than an article that "
            "summarises it, and name the year.\nSkip the link only for figures from the agent's own data.")
    _remember(blank, note, None)
    _stored_once(blank, note)


# ---------------------------------------------------------------- the capture headline names only a written file

CUSTOM_ONLY = """learning:
  capture:
    custom: Only capture rules about file paths and saving."""


def _capture_nothing(agent: Path):
    from capture_support import make_session
    from fakes.scripted_helper import ScriptedHelper

    from agentuse.core.helper import protocol as p
    from agentuse.core.helper.factory import override_helper

    session = make_session(agent)
    with override_helper(ScriptedHelper(extract=[p.ExtractAnswer(candidates=[])])):
        return invoke("learnings", "capture", agent, "--session", session.stem)


def test_a_capture_that_stores_nothing_points_at_no_file(tmp_path):
    from capture_support import make_agent

    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    result = _capture_nothing(agent)
    assert result.stdout.splitlines()[0] == "Extracted 0 learning(s), 0 quarantined — nothing new stored"
    assert "→" not in result.stdout and not store.locate(agent).store_path.exists()


def test_a_capture_that_stores_nothing_into_an_existing_store_points_at_no_file(tmp_path):
    from capture_support import current_ih, make_agent, rule, seed

    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    location = seed(agent, [rule("aaaa0001", "Save posts under posts/", ih=current_ih(agent))])
    before = location.store_path.read_bytes()
    result = _capture_nothing(agent)
    assert result.stdout.splitlines()[0] == "Extracted 0 learning(s), 0 quarantined — nothing new stored"
    assert "→" not in result.stdout and location.store_path.read_bytes() == before


# ---------------------------------------------------------------- the re-vet report adds up

UNHASHED = ["Save posts under posts/", "Name files in kebab-case", "Use H2 headings for sections",
            "Keep intros factual"]


def _capture_over(agent: Path, rules, helper=None):
    from capture_support import make_session, seed

    from agentuse.core.helper.factory import override_helper

    seed(agent, rules)
    session = make_session(agent)
    if helper is None:  # the embedded offline evaluator: no key is configured
        return invoke("learnings", "capture", agent, "--session", session.stem).stdout.splitlines()
    with override_helper(helper):
        return invoke("learnings", "capture", agent, "--session", session.stem).stdout.splitlines()


def test_a_capture_over_an_unhashed_store_reports_a_backfill_not_a_re_vet(tmp_path):
    from capture_support import make_agent, rule

    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    lines = _capture_over(agent, [rule(f"aaaa000{i}", t) for i, t in enumerate(UNHASHED, 1)])
    assert lines[1:] == ["[Learning] Backfilled 4 learning(s) that had no instruction hash: 4 stamped, 0 quarantined."]
    assert all(r.ih for r in store.load(store.locate(agent)).learnings)


def test_a_failed_vet_of_unhashed_rules_says_they_keep_injecting_and_claims_no_re_vet(tmp_path):
    from capture_support import make_agent, rule
    from fakes.scripted_helper import ScriptedHelper, permanent

    from agentuse.core.helper import protocol as p

    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    helper = ScriptedHelper(extract=[p.ExtractAnswer(candidates=[])], vet=[permanent()])
    lines = _capture_over(agent, [rule(f"aaaa000{i}", t) for i, t in enumerate(UNHASHED, 1)], helper)
    assert lines[1:] == [
        "[Learning] 4 learning(s) with no instruction hash could not be re-vetted (vet: the model's answer does "
        "not validate); they keep injecting until a later capture or tidy backfills them"]
    assert all(r.ih is None for r in store.load(store.locate(agent)).learnings)


def test_stale_and_unhashed_rules_are_counted_apart_and_add_up(tmp_path):
    from capture_support import current_ih, make_agent, rule
    from fakes.scripted_helper import ScriptedHelper, verdicts

    from agentuse.core.helper import protocol as p
    from agentuse.core.learning import Channel

    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    rules = [rule("aaaa0001", "Keep posts short", ih="0ldc0ntract0"),
             rule("aaaa0002", "Publish without review", ih="0ldc0ntract0"),
             rule("aaaa0003", "Use H2 headings for sections"),  # no hash
             rule("aaaa0004", "upload: boom", ch=Channel.tool_errors, tool="upload", sig="boom"),  # no model call
             rule("aaaa0005", "Fresh rule", ih=current_ih(agent))]
    contradicts = ("Publish", "contradiction", "Never publish without an approval gate")
    helper = ScriptedHelper(extract=[p.ExtractAnswer(candidates=[])], vet=[lambda r: verdicts(r, contradicts)])
    lines = _capture_over(agent, rules, helper)
    assert lines[1:] == [
        "[Learning] Re-vetted 2 stale learning(s) against the current instructions: 1 re-stamped, 1 quarantined.",
        "[Learning] Backfilled 2 learning(s) that had no instruction hash: 2 stamped, 0 quarantined."]
