"""A small project for the serve tests: the example blog writer with a seeded store, and recorded runs
that stop at the approval gate. Shared by the route tests and the browser tests."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from agentuse.core import store
from agentuse.core.learning import Learning, Source, State
from agentuse.runtime.events import ModelReplyEvent
from agentuse.runtime.messages import TextBlock
from agentuse.runtime.runner import start_run
from agentuse.runtime.session import SessionLog

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_SESSION = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"
AGENT_KEY = "agents/blog-writer.agentuse"
SCRIPT_RULE = '<script>document.title="pwned"</script> Never trust <b>bold</b> claims'


def make_project(root: Path) -> Path:
    """A git repository with `agents/blog-writer.agentuse` (the example) and the example store seeded; returns
    the agent. Git, because the project root (and so every agent key) is the git root, as for a user."""
    agent = root / AGENT_KEY
    agent.parent.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "seeds" / "blog-writer.learnings.md", location.store_path)
    return agent


def add_rules(agent: Path, rules: list[Learning]) -> None:
    with store.transaction(store.locate(agent)) as doc:
        doc.learnings.extend(rules)


def rule(rule_id: str, title: str, *, src: Source = Source.auto, state: State = State.active, why: str | None = None,
         date: str = "2026-01-10", body: str = "") -> Learning:
    return Learning(id=rule_id, title=title, body=body, date=date, src=src, state=state, why=why)


def overcap_store(agent: Path, *, extra: int) -> None:
    """`extra` near-duplicate auto rules beyond the cap: something for a tidy-up to merge and retire."""
    add_rules(agent, [rule(f"d{i:07x}", f"Keep each post under 200 words, variant {i}",
                           body=f"Keep each post under 200 words (variant {i}).") for i in range(15 + extra)])


def recorded_replies(folder: Path, *texts: str) -> Path:
    log = SessionLog.create(folder, "01REPLIES")
    for text in texts:
        log.append(ModelReplyEvent(content=[TextBlock(text=text)]))
    return log.path


def awaiting_review(agent: Path, replies: Path | None = None, prompt: str = "Write this week's post") -> str:
    """A run of the agent that stops at its approval gate (replayed: no key, no network)."""
    model = f"replay:{replies or EXAMPLE_SESSION}"
    result = start_run(agent, prompt, model=model)
    assert result.status == "awaiting_review", result
    return result.session_id


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)
