"""`agentuse demo`: the whole learning lifecycle on examples/, offline, in a temporary project.

    1. a replayed run whose tool call fails and is then corrected
    2. the review: approve with --remember (the approval also runs tool-errors capture)
    3. a second run, which receives both rules in its prompt; its review, and each rule's figures
    4. months later, 58 more learnings: a tidy-up with graduation into the agent file
    5. undo, which puts both files back byte for byte

Every step is the real command, run in this process exactly as typed (so the demo cannot drift from the
CLI), with its output shown. No API key and no Prefect server are used: the helper is the embedded
offline evaluator and the flows run inline. The state directory is the demo's own, and everything is
left on disk at the end so the files can be read.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.core.errors import AgentuseError

PROMPT = "Write this week's post: how to stop email from eating the morning."
REMEMBER = "Always include source links before publishing."
# The second review says what the remembered rule says: a comment about a rule in force (not landing).
SECOND_REVIEW = "Good, but the source links are missing again."
RECORDING = Path("sessions") / "blog-writer-tool-error.jsonl"
SEED = Path("seeds") / "overgrown.learnings.md"
# The demo must run the same whatever the shell has configured: no key, no server.
_CLEARED = ("ANTHROPIC_API_KEY", "PREFECT_API_URL", "AGENTUSE_CAPTURE_VIA")


def examples_dir() -> Path:
    for candidate in (Path(__file__).resolve().parents[1] / "examples", Path.cwd() / "examples"):
        if (candidate / "blog-writer.agentuse").is_file() and (candidate / RECORDING).is_file():
            return candidate
    raise AgentuseError("the demo needs the examples/ folder of an agentuse checkout; run it from the checkout "
                        "(or after `pip install -e .` there)")


def demo(
    folder: Annotated[Path | None, typer.Option("--dir", help="Where to build the demo project (default: a new "
                                                              "temporary folder).", show_default=False)] = None,
) -> None:
    """Walk the whole learning lifecycle offline: run, review, second run, tidy-up, undo."""
    from agentuse.core.file_access import make_folder

    examples = examples_dir()
    root = Path(folder).absolute() if folder else Path(tempfile.mkdtemp(prefix="agentuse-demo-"))
    project, state = root / "project", root / "state"
    if project.is_dir() and any(project.iterdir()):
        raise AgentuseError(f"{project} is not empty: pick another --dir")
    make_folder(project, kept="the demo did not start")
    agent = project / "blog-writer.agentuse"
    shutil.copyfile(examples / "blog-writer.agentuse", agent)
    with _demo_environment(state):
        _walk(examples, project, agent, state)


@contextlib.contextmanager
def _demo_environment(state: Path) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in (*_CLEARED, "AGENTUSE_DATA_DIR")}
    for key in _CLEARED:
        os.environ.pop(key, None)
    os.environ["AGENTUSE_DATA_DIR"] = str(state)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _walk(examples: Path, project: Path, agent: Path, state: Path) -> None:
    from agentuse.core import store

    location = store.locate(agent)
    replay = f"replay:{examples / RECORDING}"
    say("agentuse demo: the learning lifecycle, offline (no API key, no server)")
    say(f"  project    {project}   (a copy of examples/blog-writer.agentuse)")
    say(f"  state dir  {state}   (AGENTUSE_DATA_DIR, for this demo only)")

    _step(1, "A run whose tool call fails, then succeeds with a corrected call",
          "The model's replies are replayed from examples/sessions/blog-writer-tool-error.jsonl: write_file "
          "is called with an absolute path, fails, and is retried with a relative one.")
    output = _agentuse(["run", agent, PROMPT, "--model", replay], shown=("Saved to", "session ", "Resume with"))
    session = _session_id(output)

    _step(2, "The review: approve, and remember a note for future runs",
          "Approving completes the run, so tool-errors capture checks its trace in code: a failed call, a "
          "later successful call of the same tool with a different input. --remember saves the note.")
    _agentuse(["sessions", "resume", session, "--approve", "--remember", REMEMBER])
    _agentuse(["learnings", agent])

    _step(3, "A second run receives both rules, and its review shows how they did",
          "The same replayed run again; this time its prompt carries the rules under ## Relevant Learnings. "
          "The replay repeats the failed write_file call the tool-errors rule is about, and the reviewer's "
          "comment is about the source links: each rule's figures say it is not landing yet.")
    output = _agentuse(["run", agent, PROMPT, "--model", replay], shown=("session ",))
    second = _session_id(output)
    _show_injected(second)
    _agentuse(["sessions", "resume", second, "--approve", "--comment", SECOND_REVIEW], shown=("session ",))
    _agentuse(["learnings", agent])

    _step(4, "Months later: 58 more learnings, and a tidy-up",
          f"examples/{SEED.as_posix()} is appended to the store: near-duplicates, rules superseded by sharper "
          "ones, proven rules, two vetted against older instructions. The tidy-up re-vets, merges, retires, "
          "and graduates the proven rules into the agent file.")
    _append_seed(location, examples / SEED)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    _agentuse(["learnings", "tidy", agent], cut_at="Diff of both files:")
    say(f"\n    The agent file now carries {_block_size(agent)} rule(s) in its learned block.")

    _step(5, "Undo", "One tidy-up is one undo: both files go back byte for byte.")
    _agentuse(["learnings", "undo", agent])
    same = agent.read_bytes() == agent_before and location.store_path.read_bytes() == store_before
    say(f"\n    Both files identical to before the tidy-up: {'yes' if same else 'NO'}")

    say("\nWhere the files are")
    rows = [("agent file", agent), ("learnings", location.store_path), ("archive", location.archive_path),
            ("sessions", location.session_dir), ("snapshots", location.consolidations_dir)]
    for name, path in rows:
        say(f"  {name:<11}{path}")
    say(f"\nNothing outside {project.parent} was touched. Remove it when done:  rm -rf {shlex.quote(str(project.parent))}")


def _step(number: int, title: str, why: str) -> None:
    say(f"\n{number}. {title}")
    say(f"   {why}")


def _agentuse(args: list, *, shown: tuple[str, ...] = (), cut_at: str | None = None) -> str:
    """Run one agentuse command in this process, print it as typed and its output (only the lines starting
    with `shown`, or up to the line `cut_at`), and return the output."""
    from agentuse.cli.app import app

    words = [a.name if isinstance(a, Path) else str(a) for a in args]
    say("\n  $ agentuse " + " ".join(shlex.quote(w) for w in words))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        code = app([str(a) for a in args], prog_name="agentuse", standalone_mode=False)
    output = buffer.getvalue()
    lines = output.rstrip("\n").splitlines()
    if shown:
        kept = [line for line in lines if line.startswith(shown)]
        lines = kept + (["(…)"] if len(kept) < len(lines) else [])
    if cut_at in lines:
        rest = len(lines) - lines.index(cut_at)
        lines = lines[:lines.index(cut_at)] + [f"{cut_at} (… {rest} more lines: both diffs, not shown here)"]
    for line in lines:
        say(f"    {line}" if line else "")
    if code not in (None, 0):
        raise AgentuseError(f"the demo stopped: `agentuse {' '.join(words)}` exited with {code}")
    return output


def _session_id(output: str) -> str:
    match = re.search(r"^session (\S+) ·", output, re.MULTILINE)
    if not match:
        raise AgentuseError("the demo stopped: the run did not report its session")
    return match.group(1)


def _show_injected(session: str) -> None:
    from agentuse.core import store
    from agentuse.runtime.events import RunStart
    from agentuse.runtime.session import read_events
    from agentuse.runtime.trace import resolve_session

    events = read_events(resolve_session(session, store.data_dir()))[0]
    start = next(e for e in events if isinstance(e, RunStart))
    section = start.system.split("## Relevant Learnings", 1)
    say(f"\n    {len(start.injected)} learning(s) injected into the run's prompt:")
    for line in ("## Relevant Learnings" + section[1]).strip().splitlines() if len(section) == 2 else []:
        say(f"      {line}" if line else "")


def _append_seed(location, seed: Path) -> None:
    from agentuse.core import store
    from agentuse.core.store_format import parse

    extra = parse(seed.read_text(encoding="utf-8"), filename=str(seed)).learnings
    with store.transaction(location) as doc:
        taken = {r.id for r in doc.learnings}
        doc.learnings += [r for r in extra if r.id not in taken]
    say(f"\n    {len(extra)} learnings appended to {location.store_path.name}")


def _block_size(agent: Path) -> int:
    from agentuse.core.learned_block import read_block

    return len(read_block(agent.read_text(encoding="utf-8")) or [])
