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
