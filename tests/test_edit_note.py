"""A note a person types below a rule in `learnings --edit` (review 20). The file is readable markdown a
person edits, and everything under a rule's heading up to the next heading is that rule's body: a note
typed after the last rule (or between two) joins the rule above it and reaches the agent with it. The
edit is kept as typed, and the command says which rule the text joined, so the rule's meaning never
changes without a word."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store

runner = CliRunner()
AGENT = "---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n\n# Blog Writer\n\nWrite short posts.\n"
STORE = """# Learnings for blog-writer
<!-- agent: blog-writer.agentuse -->

### [tip] Use specific examples over generic advice
<!-- id:a1b2c3d4 | confidence:0.92 | injected:3 | src:auto | ch:custom | 2026-01-27 -->
When writing productivity tips, include concrete scenarios
like "checking emails before coffee" rather than abstract advice.

### [tip] Cite sources before publishing
<!-- id:i9j0k1l2 | confidence:1.00 | injected:0 | src:manual | ch:corrections | 2026-01-27 -->
"""
EDITOR = """import sys
path = sys.argv[-1]
text = open(path, encoding="utf-8").read()
open(path, "w", encoding="utf-8").write({change})
"""


def setup(tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(STORE)
    return agent, location


def edit(tmp_path, monkeypatch, agent, change: str):
    script = tmp_path / "editor.py"
    script.write_text(EDITOR.format(change=change))
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    return runner.invoke(app, ["learnings", str(agent), "--edit"])


def test_a_note_typed_below_the_last_rule_is_named_as_part_of_that_rule(tmp_path, monkeypatch):
    agent, location = setup(tmp_path)
    result = edit(tmp_path, monkeypatch, agent, "text + '\\nTODO: ask Sam whether this still matters.\\n'")
    assert result.exit_code == 0, result.output
    [joined] = [r for r in store.load(location).learnings if r.id == "i9j0k1l2"]
    assert "TODO: ask Sam" in joined.body  # kept as typed: the person may have meant it
    assert ('note: the text you added below "Cite sources before publishing" (id:i9j0k1l2) is part of that '
            'rule now and reaches the agent with it: "TODO: ask Sam whether this still matters."') in result.output
    assert "a note for yourself does not belong in this file: run --edit again and take it out" in result.output


def test_a_note_typed_between_two_rules_names_the_rule_above(tmp_path, monkeypatch):
    agent, location = setup(tmp_path)
    change = "text.replace('abstract advice.\\n', 'abstract advice.\\n\\nSeen on the March posts.\\n')"
    result = edit(tmp_path, monkeypatch, agent, change)
    assert result.exit_code == 0, result.output
    assert '"Use specific examples over generic advice" (id:a1b2c3d4) is part of that rule now' in result.output
    assert "Cite sources before publishing" not in result.output


def test_rewording_a_body_in_place_says_nothing_about_notes(tmp_path, monkeypatch):
    agent, location = setup(tmp_path)
    change = "text.replace('rather than abstract advice.', 'rather than generic advice.')"
    result = edit(tmp_path, monkeypatch, agent, change)
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output
    assert "rather than generic advice." in store.load(location).learnings[0].body


STAMPED = """# Learnings for blog-writer
<!-- agent: blog-writer.agentuse -->

### [tip] Keep intros factual
<!-- id:a1b2c3d4 | confidence:1.00 | injected:3 | src:manual | ch:corrections | ih:{ih} | 2026-01-27 -->
For informational posts, keep intros factual rather than promotional.

### [tip] Cite sources before publishing
<!-- id:i9j0k1l2 | confidence:1.00 | injected:0 | src:manual | ch:corrections | ih:{ih} | 2026-01-27 -->
"""


def test_a_rule_reworded_by_hand_loses_its_stamp_and_is_vetted_by_the_next_tidy_up(tmp_path, monkeypatch):
    """Spec: every rule that reaches a run is stamped with the instructions it was checked against. A rule
    whose words a person changed in --edit kept the stamp of words it no longer has, so it was never vetted
    again: 'Publish without review' typed over a vetted rule went on being injected as vetted."""
    from agentuse.core.agent_file import load_agent
    from agentuse.core.contract import agent_hash

    agent, location = setup(tmp_path)
    ih = agent_hash(load_agent(agent))
    location.store_path.write_text(STAMPED.format(ih=ih))
    change = "text.replace('keep intros factual rather than promotional', 'skip the intro')"
    result = edit(tmp_path, monkeypatch, agent, change)
    assert result.exit_code == 0, result.output
    rules = {r.id: r for r in store.load(location).learnings}
    assert rules["a1b2c3d4"].body == "For informational posts, skip the intro." and rules["a1b2c3d4"].ih is None
    assert rules["i9j0k1l2"].ih == ih  # untouched: still stamped
    assert ('Reworded by hand: "Keep intros factual" (id:a1b2c3d4). It applies as you wrote it; the next capture '
            'or tidy-up vets it against the instructions') in result.output
    tidy = runner.invoke(app, ["learnings", "tidy", str(agent)], catch_exceptions=False)
    assert "1 learning(s) with no instruction hash vetted and stamped" in tidy.output, tidy.output
    assert {r.id: r for r in store.load(location).learnings}["a1b2c3d4"].ih == ih


def test_a_quarantined_rule_reworded_by_hand_is_re_vetted_and_released_by_the_next_tidy_up(tmp_path, monkeypatch):
    """The spec's fix for a quarantined rule is to correct the agent file or discard the rule; a person who
    instead rewords the rule in --edit so it no longer conflicts must see it vetted again. It kept its
    stamp, so no tidy-up ever looked at it again."""
    from agentuse.core.agent_file import load_agent
    from agentuse.core.contract import agent_hash
    from agentuse.core.learning import State

    agent, location = setup(tmp_path)
    agent.write_text(AGENT.replace("Write short posts.", "Write short posts.\n\n- End with a clear call-to-action"))
    ih = agent_hash(load_agent(agent))
    location.store_path.write_text(f"""# Learnings for blog-writer
<!-- agent: blog-writer.agentuse -->

### [tip] Skip the call-to-action
<!-- id:q1q1q1q1 | confidence:1.00 | src:manual | ch:corrections | ih:{ih} | state:quarantined | 2026-01-27 -->
<!-- why: contradicts the contract: "End with a clear call-to-action" -->
""")
    result = edit(tmp_path, monkeypatch, agent, "text.replace('Skip the call-to-action', 'Keep the call-to-action to one line')")
    assert result.exit_code == 0, result.output
    assert 'It stays quarantined until then; the next capture or tidy-up vets it' in result.output
    [rule] = store.load(location).learnings
    assert rule.state is State.quarantined and rule.ih is None
    tidy = runner.invoke(app, ["learnings", "tidy", str(agent)], catch_exceptions=False)
    assert "1 quarantined learning(s) re-vetted and released" in tidy.output, tidy.output
    [rule] = store.load(location).learnings
    assert rule.state is State.active and rule.ih == ih


# ---------------------------------------------------------------- review 21

def test_a_note_typed_below_a_rule_reworded_in_the_same_edit_is_named(tmp_path, monkeypatch):
    """Only a body that opened with its old words was looked at: a person who fixed a word in a rule and typed
    a note below it saw nothing, and the note reached the agent as part of the rule."""
    agent, location = setup(tmp_path)
    change = "text.replace('abstract advice.\\n', 'generic advice.\\n\\nTODO: ask Sam about this one.\\n')"
    result = edit(tmp_path, monkeypatch, agent, change)
    assert result.exit_code == 0, result.output
    assert ('note: the text you added below "Use specific examples over generic advice" (id:a1b2c3d4) is part of '
            'that rule now and reaches the agent with it: "TODO: ask Sam about this one."') in result.output


def test_splitting_a_body_into_two_paragraphs_is_no_note(tmp_path, monkeypatch):
    agent, location = setup(tmp_path)
    result = edit(tmp_path, monkeypatch, agent, "text.replace('scenarios\\nlike', 'scenarios.\\n\\nLike')")
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output


def test_an_editor_that_saves_crlf_line_ends_rewords_nothing_and_still_names_the_note(tmp_path, monkeypatch):
    """An editor set to Windows line ends turns every line break of the file into CRLF: every multi-line body
    then differed from its old self, so each stamped rule was called reworded and unstamped (and vetted again
    by the next pass), and a note typed below a rule was not named."""
    from agentuse.core.agent_file import load_agent
    from agentuse.core.contract import agent_hash

    agent, location = setup(tmp_path)
    ih = agent_hash(load_agent(agent))
    location.store_path.write_text(STAMPED.format(ih=ih).replace(
        "keep intros factual rather than promotional.", "keep intros factual\nrather than promotional."))
    script = tmp_path / "editor.py"
    script.write_text("import sys\npath = sys.argv[-1]\ntext = open(path, encoding='utf-8', newline='').read()\n"
                      "open(path, 'w', encoding='utf-8', newline='').write((text + '\\nTODO: ask Sam.\\n')"
                      ".replace('\\n', '\\r\\n'))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    result = runner.invoke(app, ["learnings", str(agent), "--edit"])
    assert result.exit_code == 0, result.output
    assert 'Reworded by hand: "Keep intros factual"' not in result.output  # only its line ends changed
    # The note did join the rule below which it was typed: that rule's words changed.
    assert {r.id: r.ih for r in store.load(location).learnings} == {"a1b2c3d4": ih, "i9j0k1l2": None}
    assert '"Cite sources before publishing" (id:i9j0k1l2) is part of that rule now' in result.output
