"""Control characters in paths, rule text and messages reach the terminal as visible escapes: an ESC in a
failed path or a stored rule cannot recolour, retitle or rewrite the user's terminal."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core.terminal_text import printable

from .test_disk_full import one_error_line

RAW = ("\x1b", "\x07", "\r", "\x08", "\x9b")


def no_raw_controls(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text)


def test_an_escape_in_a_failed_path(tmp_path):
    agent = tmp_path / "evil\x1b]0;pwned\x07\x1b[2K.agentuse"
    for args in (["learnings", str(agent), "--path"], ["run", str(agent)], ["learnings", "add", str(agent), "x"]):
        result = CliRunner().invoke(app, args)
        line = one_error_line(result)
        no_raw_controls(result.stderr)
        assert "evil\\x1b]0;pwned\\x07\\x1b[2K.agentuse" in line


def test_an_escape_in_rule_text(project):
    rule = "Cite sources \x1b[8mhidden\x1b[0m before publishing\rOVERWRITTEN\x07"
    added = CliRunner().invoke(app, ["learnings", "add", str(project.agent), rule])
    assert added.exit_code == 0, added.output
    no_raw_controls(added.stdout + added.stderr)
    shown = CliRunner().invoke(app, ["learnings", str(project.agent)])
    assert shown.exit_code == 0, shown.output
    no_raw_controls(shown.stdout)
    assert "\\x1b[8mhidden\\x1b[0m" in shown.stdout
    as_json = CliRunner().invoke(app, ["learnings", str(project.agent), "--json"])
    assert "\\u001b[8mhidden" in as_json.stdout  # JSON escapes it its own way: the data is intact


def test_printable_keeps_lines_and_json():
    assert printable("a\x1bb\tc\nd\r\ne\rf\x00\x7f\x85") == "a\\x1bb\tc\nd\ne\\x0df\\x00\\u007f\\u0085"
    payload = {"rule": "C1 \x9b and DEL \x7f, ESC \x1b"}
    text = printable(json.dumps(payload, ensure_ascii=False))
    no_raw_controls(text)
    assert json.loads(text) == payload


# ---------------------------------------------------------------- what a model writes (review 19)

BLOCK_AGENT = """---
model: anthropic:claude-test
learning: true
---

# Blog Writer

Write short productivity blog posts.

<!-- agentuse:learned -->
## Learned Guidance

- [tip] Keep intros factual
- [tip] Keep intros short
<!-- /agentuse:learned -->
"""


def hostile_model(request):
    """Every answer a model writes carries terminal escapes and raw control characters."""
    import re

    from fakes import tool_use

    tool = request.forced_tool
    ids = re.findall(r'(?:candidate|rule) id="([^"]+)"', request.text)
    publish = "Publish drafts" in request.text
    answers = {
        "submit_ground": {"rule": {"category": "tip", "title": "Publish drafts\x1b[1m straight away"} if publish else {
            "category": "tip", "title": "Cite\x1b[31m sources\x1b[0m before publishing\x07",
            "body": "Link\x9b2J every\x00 source\rthe post uses.\x1b]0;pwned\x07"}},
        "submit_vet": {"verdicts": [{"id": i, "verdict": "contradiction" if publish else "pass",
                                     "detail": "\x1b[8mNever publish\x1b[0m without review\x08"} for i in ids]},
        "submit_audit": {"missing": []},
        "submit_reconcile": {"action": "new"},
        "submit_plan_groups": {"moves": []},
        "submit_rewrite_block": {"rules": [{"category": "tip", "covers": ["b1", "b2"],
                                            "text": "Keep intros\x1b[2K short and\x1b]8;;http://x\x07 factual\x85."}]},
    }
    return tool_use(tool, answers[tool])


def test_escapes_a_model_writes_reach_no_file_no_prompt_and_no_terminal(tmp_path, cli, fake_anthropic):
    """A person's own bytes are theirs (above), a model's answer is untrusted input: its escape sequences
    and control characters are removed before the store, the agent file, a quarantine reason, a prompt or
    the terminal sees them."""
    from agentuse.core import store
    from agentuse.core.learned_block import read_block

    from fakes import text

    raw = (*RAW, "\x00", "\x85")
    agent = tmp_path / "blog.agentuse"
    agent.write_text(BLOCK_AGENT)
    fake_anthropic.script(default=hostile_model)
    added = cli("learnings", "add", agent, "Always cite sources")
    quarantined = cli("learnings", "add", agent, "Publish drafts straight away")
    tidied = cli("learnings", "tidy", agent)
    for result in (added, quarantined, tidied):
        assert not [c for c in raw if c in result.stdout + result.stderr], repr(result.stdout)
    location = store.locate(agent)
    stored = location.store_path.read_text(encoding="utf-8")
    assert not [c for c in raw if c in stored], repr(stored)
    [first, second] = store.load(location).learnings
    assert (first.title, first.body) == ("Cite sources before publishing", "Link every source\nthe post uses.")
    assert second.why == 'contradicts the contract: "Never publish without review"'
    written = agent.read_text(encoding="utf-8")
    assert not [c for c in raw if c in written], repr(written)
    assert [r.text for r in read_block(written)] == ["Keep intros short and factual."]
    fake_anthropic.script(text("done"))
    cli("run", agent, "write a post")
    system = fake_anthropic.requests[-1].body["system"]
    assert not [c for c in raw if c in system] and "Cite sources before publishing" in system


def test_bidirectional_overrides_a_model_writes_are_removed(tmp_path, cli, fake_anthropic):
    """Trojan-source text: U+202E and its kin make a rule read one way on screen and another to the model
    (and to the vet). A model's rule has no use for them; they go with the control characters."""
    from agentuse.core import store
    from fakes import tool_use

    agent = tmp_path / "blog.agentuse"
    agent.write_text(BLOCK_AGENT)
    title = "Cite sources \u202ebefore\u202c publishing \u2067x\u2069"
    answers = {"submit_ground": {"rule": {"title": title}}, "submit_audit": {"missing": []},
               "submit_reconcile": {"action": "new"}}

    def model(request):
        if request.forced_tool == "submit_vet":
            return tool_use("submit_vet", {"verdicts": [{"id": "note", "verdict": "pass"}]})
        return tool_use(request.forced_tool, answers[request.forced_tool])

    fake_anthropic.script(default=model)
    cli("learnings", "add", agent, "Always cite sources")
    [saved] = store.load(store.locate(agent)).learnings
    assert saved.title == "Cite sources before publishing x"


def test_plain_removes_whole_sequences_and_keeps_the_text_around_them():
    from agentuse.core.terminal_text import plain

    assert plain("Cite\x1b[1;31m sources\x1b[0m\x07 now") == "Cite sources now"
    assert plain("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ b") == "alink b"  # hyperlink, ST-terminated
    assert plain("keep\x1b]0;unterminated title\nthe next line") == "keep\nthe next line"
    assert plain("x\r\ny\rz\x00\x9b2J\u202eq\tw") == "x\ny\nzq\tw"
    assert plain("Plain text, ünïcode and emoji 👍") == "Plain text, ünïcode and emoji 👍"
