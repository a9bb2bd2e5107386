"""A person's note killed by strace at a chosen system call, in a real `agentuse` process, and then given again
(or the next command run): what they taught is there once, counted once, and the outcome said in one line.

Each test first checks that the kill happened where it means (the process died by SIGKILL, and the files
show the state between the two writes it names), so none can pass because nothing was killed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from strace_kills import KILLED, agentuse, killed_at, needs_strace, nth_call

from agentuse.core import store
from agentuse.core.learning import Channel, Learning, Source
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.events import LearningResult
from agentuse.runtime.runner import start_run
from agentuse.runtime.summary import summarize

from .stores import AGENT_BODY

pytestmark = needs_strace

REPLIES = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
AGENT = f"---\nmodel: anthropic:claude-sonnet-5\napproval: true\nlearning:\n  apply: true\n---\n\n{AGENT_BODY}"
RULE = Learning(id="a1b2c3d4", title="Keep intros factual",
                body="For informational posts, keep intros factual rather than promotional.",
                date="2026-08-01", src=Source.manual, ch=Channel.corrections)
REPEAT = "Keep intros factual for informational posts"  # the offline evaluator reads it as RULE said again


@pytest.fixture
def gate(tmp_path, data_dir):
    """A run stopped at its approval gate, with a person's rule in force; the state directory as it was."""
    agent = tmp_path / "proj" / "blog-writer.agentuse"
    agent.parent.mkdir(parents=True)
    agent.write_text(AGENT, encoding="utf-8")
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=[RULE]))
    result = start_run(agent, model=f"replay:{REPLIES}")
    assert result.status == "awaiting_review"
    saved = tmp_path / "state-before"
    shutil.copytree(data_dir, saved)

    def put_back() -> None:
        shutil.rmtree(data_dir)
        shutil.copytree(saved, data_dir)

    return location, result.session_id, Path(result.session_file), put_back


def _results(log: Path) -> list[str]:
    return [e.line for e in summarize(log).events if isinstance(e, LearningResult)]


def _re(location: store.AgentLocation) -> int:
    [rule] = store.load(location).learnings
    return rule.re


def test_a_resume_whose_note_repeated_a_rule_killed_before_its_result_line_counts_the_repeat_once(tmp_path, gate):
    location, session, log, put_back = gate
    resume = ("sessions", "resume", session, "--approve", "--remember", REPEAT)
    at = nth_call(tmp_path, "write", *resume, touching=log.name, holding="learning_result")
    put_back()
    first = agentuse(*resume, before=killed_at("write", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert _re(location) == 1 and _results(log) == [], "killed after the repeat was stored, before its line"

    again = agentuse(*resume)
    assert _re(location) == 1, "the repeat was counted a second time"
    assert _results(log) == ['[Learning] Repeated an earlier rule: "Keep intros factual" (re:1, id:a1b2c3d4)']
    assert summarize(log).status == "completed"
    assert "Traceback" not in again.stdout + again.stderr
