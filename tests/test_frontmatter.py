"""core/frontmatter.py reads the plain frontmatter agent files are written in without PyYAML: whatever it
reads, it reads exactly as PyYAML does (the mapping, with the same types, and the line of every key and
list item); whatever it does not, it leaves to PyYAML (None)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from agentuse.core.agent_file import _index_lines
from agentuse.core.frontmatter import read


def _by_pyyaml(text: str):
    raw = yaml.safe_load(text)
    lines: dict = {}
    if isinstance(raw, dict):
        _index_lines(yaml.compose(text, Loader=yaml.SafeLoader), (), lines, "<test>", set())
    return raw, lines


def _typed(value):
    """The value with every scalar's type beside it: True == 1 in Python, not in a frontmatter."""
    if isinstance(value, dict):
        return [(_typed(k), _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return type(value).__name__, value


def _agrees(text: str) -> bool:
    """True when the subset reader read it (and then agrees with PyYAML), False when it left it."""
    mine = read(text)
    if mine is None:
        return False
    raw, lines = _by_pyyaml(text)
    assert _typed(mine[0]) == _typed(raw or {}), text
    assert mine[1] == lines, text
    return True


EXAMPLE = """model: anthropic:claude-sonnet-5
approval: true   # exposes review comments and the Learn checkbox
learning:
  capture:
    addons: [tool-errors]
    custom: Look for places the reader gets lost, then say how (briefly).
  apply: true
  max: 15
"""


def test_the_example_frontmatter_is_read_without_pyyaml_as_pyyaml_reads_it():
    assert _agrees(EXAMPLE)
    assert read(EXAMPLE)[0]["learning"]["max"] == 15
    code = ("import sys; from agentuse.core.agent_file import load_agent; "
            "load_agent(sys.argv[1]); print('yaml' in sys.modules)")
    path = "examples/blog-writer.agentuse"
    done = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True,
                          cwd=__file__.rsplit("/tests/", 1)[0])
    assert done.stdout.split() == ["False"]


@pytest.mark.parametrize("text", [
    "", "\n\n", "# only a comment\n", "a: 1\nb:\n  - x\n  - y\nc: d\n", "a:\n- x\n- on\nb: 2\n",
    "on: yes\nNo: OFF\nnull: ~\nk: Null\n", "a:\n  b:\n    c: [on, 0, 12, x.y, ]\n", "a: [ x , y ]\nb: []\n",
    "a:\nb: 1\n", "a: x - y\nb: see http://example.com/a:b\n", "  a: 1\n  b: 2\n", "a: C#\n", "a: x #c\n",
])
def test_tricky_lines_are_read_as_pyyaml_reads_them_or_left_to_it(text):
    _agrees(text)


@pytest.mark.parametrize("text", [
    "a: 'q'\n", 'a: "q"\n', "a: 015\n", "a: 1_000\n", "a: 0x1F\n", "a: 1:30\n", "a: 1.5\n", "a: .inf\n",
    "a: -5\n", "a: b: c\n", "a: b:\n", "a: [a: b]\n", "a: {b: 1}\n", "a: &x b\nc: *x\n", "a: !!str 1\n",
    "a: |\n  text\n", "a: >\n  text\n", "a: @b\n", "a: b\n  continued\n", "a: 1\na: 2\n", "a:\n\tb: 1\n",
    "a: 1\r\nb: 2\r\n", "a: café\n", "- a\n- b\n", "just text\n", "a:\n  - b: 1\n", "a:\n    b: 1\n  c: 2\n",
    "True: 1\ntrue: 2\n", "...\n", "a: [b, [c]]\n", "a: -\n", "a:\n  -\n",
])
def test_anything_else_is_left_to_pyyaml(text):
    assert read(text) is None


_KEYS = st.sampled_from(["model", "approval", "learning", "capture", "addons", "on", "No", "null", "max",
                         "a_b", "x-y", "True"])
_WORDS = st.sampled_from(["yes", "Off", "TRUE", "null", "~", "NULL", "nul", "0", "15", "015", "1.5", "-3",
                          "tool-errors", "anthropic:claude-sonnet-5", "ollama:qwen3.5:0.8b", "a:", "a: b",
                          "x,y", "C#", "@me", "http://x/y", "(note)", "x - y", "Yes please", "on,", "[a]",
                          "'q'", "a #c", "é"])


def _scalar_text() -> st.SearchStrategy[str]:
    return st.lists(_WORDS, min_size=1, max_size=3).map(" ".join)


def _node(depth: int) -> st.SearchStrategy[list[str]]:
    """Lines of one mapping at indent 0 (indented by the caller)."""
    scalar = st.tuples(_KEYS, _scalar_text()).map(lambda kv: [f"{kv[0]}: {kv[1]}"])
    flow = st.tuples(_KEYS, st.lists(_WORDS, max_size=3)).map(lambda kv: [f"{kv[0]}: [{', '.join(kv[1])}]"])
    block = st.tuples(_KEYS, st.lists(_scalar_text(), min_size=1, max_size=3), st.sampled_from(["", "  "])).map(
        lambda kv: [f"{kv[0]}:", *(f"{kv[2]}- {item}" for item in kv[1])])
    comment = st.sampled_from([["# note"], [""], ["   "]])
    entries = [scalar, flow, block, comment, st.just([f"{'k'}:"])]
    if depth:
        nested = st.tuples(_KEYS, _node(depth - 1), st.sampled_from(["  ", "    "])).map(
            lambda kv: [f"{kv[0]}:", *(f"{kv[2]}{line}" for line in kv[1])])
        entries.append(nested)
    return st.lists(st.one_of(entries), min_size=1, max_size=5).map(lambda parts: [l for p in parts for l in p])


@given(_node(2), st.sampled_from(["", "  # trailing"]))
def test_generated_frontmatter_is_read_as_pyyaml_reads_it_or_left_to_it(lines, tail):
    text = "\n".join(line + (tail if line.strip() and not line.strip().startswith("#") else "")
                     for line in lines) + "\n"
    try:
        _by_pyyaml(text)
    except Exception:  # noqa: BLE001 - PyYAML refuses it (or agent_file refuses a key set twice): so must we
        assert read(text) is None, text
        return
    _agrees(text)
