"""`agentuse run <agent-file> [prompt]`: run an agent once, record its session, stop at its approval gate.

The runtime is imported inside the command (the CLI stays fast for read-only commands). Post-run learning
(capture, the pipeline's job) is one call between `start_run` and `show_result`: it appends its one-line
result to the session log, and `show_result` prints whatever learning lines the log holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentuse.cli.common import say
from agentuse.core.errors import AgentuseError

if TYPE_CHECKING:
    from agentuse.runtime.runner import RunResult


class RunFailed(AgentuseError):
    pass


ModelOpt = Annotated[
    str | None,
    typer.Option("--model", help="Override the agent's model: anthropic:<model> or replay:<session-file>."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine output: session id, status, output, tokens.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the output.")]


def run(
    agent_file: Annotated[Path, typer.Argument(help="The agent file (.agentuse).", show_default=False)],
    prompt: Annotated[str | None, typer.Argument(help="The task for this run.", show_default=False)] = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Run an agent: its instructions plus relevant learnings, model and tools, recorded as a session."""
    from agentuse.runtime.runner import start_run

    from agentuse.flows.post_run import after_run

    result = start_run(agent_file, prompt, model=model)
    after_run(agent_file, result)  # post-run capture: records its lines in the log, shown below
    show_result(result, as_json=as_json, quiet=quiet)


def show_result(result: "RunResult", *, as_json: bool, quiet: bool, show_output: bool = True) -> None:
    """One rendering for `run` and `sessions resume`; a failed run exits 1 after saying where its log is.
    `show_output` is off for approve/reject: the reviewer has just read that output."""
    for notice in result.notices:
        say(notice, err=True)  # warn-once texts: shown even with -q, they will not be shown again
    from agentuse.runtime.summary import stretch_learning_lines

    learning = stretch_learning_lines(Path(result.session_file))
    if as_json:
        payload = {
            "session": result.session_id,
            "status": result.status,
            "agent": result.agent,
            "output": result.output,
            "error": result.error,
            "tokens": {**result.tokens.model_dump(), "total": result.tokens.total},
            "learning": learning,
            "session_file": result.session_file,
        }
        if result.status == "awaiting_review":
            payload["resume"] = result.resume_command
        say(json.dumps(payload, indent=2))
        if result.status == "failed" or result.revision_failed:
            raise typer.Exit(1)
        return
    if result.status == "failed" or result.revision_failed:
        for line in learning:  # a --remember note is saved even when the round fails: say what became of it
            say(line)
        if result.revision_failed:
            raise RunFailed(f"the revision failed: {result.error}; session {result.session_id} still awaits review "
                            f"of the output you were shown: {result.resume_command}")
        raise RunFailed(f"the run failed: {result.error} (session {result.session_id})")
    shown = [result.output] if show_output and result.output else []
    for line in [*shown, *learning]:
        say(line)
    if quiet:
        if result.status == "awaiting_review":  # even with -q: without it the run is stranded at its gate
            say(f"Awaiting review. Resume with:  {result.resume_command}", err=True)
        return
    if shown or learning:
        say()
    say(f"session {result.session_id} · {result.status.replace('_', ' ')} · {result.tokens.total:,} tokens")
    if result.status == "awaiting_review":
        say(f"Resume with:  {result.resume_command}")
