"""A small project for the serve tests: the example blog writer with a seeded store, recorded runs that
stop at the approval gate, and `agentuse serve` as a real child process. Shared by the route, CLI, browser
and access tests."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient

from agentuse.core import effectiveness, store
from agentuse.core.learning import Learning, Source, State
from agentuse.runtime.events import ModelReplyEvent
from agentuse.runtime.messages import TextBlock
from agentuse.runtime.runner import start_run
from agentuse.runtime.session import SessionLog

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_SESSION = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"
AGENT_KEY = "agents/blog-writer.agentuse"
SERVE_TOKEN = secrets.token_urlsafe(32)  # what `agentuse serve` would print; the test apps all use it
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
         date: str = "2026-01-10", body: str = "", sess: str | None = None) -> Learning:
    return Learning(id=rule_id, title=title, body=body, date=date, src=src, state=state, why=why, sess=sess)


# Pairs and triples that say one thing in different words: something for a tidy-up to merge.
NEAR_DUPLICATES = [
    "Open each post with a question the reader recognises from their own morning",
    "Start every post with a question readers recognise from their own morning",
    "Begin posts with a question the reader recognises from their morning routine",
    "End with one concrete next step the reader can take today",
    "Finish with a single concrete next step the reader can take today",
    "Close each post with one concrete step the reader can take today",
    "Use plain words instead of productivity jargon",
    "Prefer plain words over productivity jargon",
    "Avoid productivity jargon; use plain words",
    "Name the tool by its product name when a tip depends on it",
    "When a tip depends on a tool, name the tool by its product name",
    "Keep paragraphs to three sentences or fewer",
    "Limit every paragraph to three sentences at most",
    "Put the time each tip takes in bold",
    "Show the time a tip takes in bold",
    "Link the source of any statistic you quote",
    "Quote statistics only with a link to their source",
    "Write in the second person, addressing the reader as you",
    "Address the reader directly as you, in the second person",
    "Do not promise results the tips cannot guarantee",
    "Never promise guaranteed results from the tips",
]


def counted(agent: Path, session_id: str, digest: effectiveness.SessionDigest) -> None:
    """A run in the effectiveness index as the runtime records one: registered open when it starts, folded
    into the totals when it ends."""
    location = store.locate(agent)
    path = effectiveness.index_path(location.project_dir, location.key)
    effectiveness.record(path, location.key, session_id, digest.model_copy(update={"open": True}))
    effectiveness.record(path, location.key, session_id, digest)


def overcap_store(agent: Path) -> None:
    """Well over the 15-rule cap with near-duplicates (auto-extracted, past their 14-day grace)."""
    add_rules(agent, [rule(f"e{i:07x}", text, body=f"{text}.") for i, text in enumerate(NEAR_DUPLICATES)])


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


def signed_in(app: Starlette, base_url: str = "http://127.0.0.1") -> TestClient:
    """A browser that opened the printed address once: it holds the token cookie from then on."""
    client = TestClient(app, base_url=base_url)
    assert client.get("/", params={"token": SERVE_TOKEN}).status_code == 200
    return client


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


# ------------------------------------------------------------------------------------------------ a real server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(url: str, opener: urllib.request.OpenerDirector | None = None) -> tuple[int, str]:
    try:
        with (opener or urllib.request.build_opener()).open(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def start_serve(args: list[str], env: dict | None = None) -> subprocess.Popen:
    """`agentuse serve ARGS` in its own interpreter, stdout and stderr piped (text)."""
    code = "import sys; from agentuse.cli.app import main; sys.argv = ['agentuse', *sys.argv[1:]]; main()"
    return subprocess.Popen([sys.executable, "-c", code, "serve", *args], env=dict(os.environ if env is None else env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def printed_url(child: subprocess.Popen) -> str:
    """The address `agentuse serve` printed ("  open URL"), once it has printed it."""
    lines = []
    for line in child.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if line.strip().startswith("open "):
            return line.split("open ", 1)[1].strip()
    raise AssertionError(f"agentuse serve printed no address: {lines} {child.communicate()}")


def wait_up(url: str, child: subprocess.Popen) -> None:
    for _ in range(300):
        if child.poll() is not None:
            raise AssertionError(child.communicate())
        try:
            http_get(url)
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("agentuse serve did not start")


def stop_serve(child: subprocess.Popen) -> str:
    """SIGINT (uvicorn's own clean shutdown); returns the rest of stdout."""
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=20)
    return out
