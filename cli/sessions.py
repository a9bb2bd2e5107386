"""`agentuse sessions list | show <id> | resume <id>`: read session logs and answer approval gates.

Ids are ULIDs; any unique prefix is accepted. Sessions of every project in the state directory are
searched, so a session can be shown or resumed from any folder.
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.cli.lazy import MARKUP
from agentuse.cli.run import JsonOpt, ModelOpt, QuietOpt, show_result

app = typer.Typer(no_args_is_help=True, rich_markup_mode=MARKUP, help="List, inspect and resume recorded runs.")

IdArg = Annotated[str, typer.Argument(help="A session id, or a unique prefix of one.", show_default=False)]


@app.command("list")
def list_sessions(
    agent_file: Annotated[
        Path | None, typer.Option("--agent", help="Only this agent's sessions.", show_default=False)
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many to show (0: all).")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """Recorded runs, newest first: id, agent, status, started, tokens."""
    from agentuse.core import store
    from agentuse.runtime.session import SessionError, list_logs, sessions_roots
    from agentuse.runtime.summary import summaries

    if agent_file is not None:
        location = store.locate(agent_file)
        roots, key = [location.session_dir], location.key
    else:
        roots, key = sessions_roots(store.data_dir()), None
    # Lazily, newest first: reading a log means parsing all of it, so stop once `limit` are found.
    unread: list[str] = []
    matching = (s for s in summaries(list_logs(roots), unread) if key is None or s.agent_key == key)
    sessions = list(islice(matching, limit) if limit > 0 else matching)
    if as_json:
        say(json.dumps([s.model_dump(mode="json", exclude={"tool_calls", "decisions"}) for s in sessions], indent=2))
    elif sessions:
        say(f"{'ID':<26}  {'STATUS':<15}  {'STARTED':<19}  {'TOKENS':>8}  AGENT")
        for s in sessions:
            started = (s.started or "")[:19].replace("T", " ")
            say(f"{s.id:<26}  {s.status.replace('_', ' '):<15}  {started:<19}  {s.tokens.total:>8,}  "
                f"{s.agent_key or '?'}")
    elif not unread:
        say("No sessions recorded yet. Start one with: agentuse run <agent-file>")
    if unread:  # listed the rest first: one bad entry must not hide every other run
        many = f"{len(unread)} session logs" if len(unread) > 1 else "1 session log"
        raise SessionError(f"could not read {many}: {'; '.join(unread)} (move it out of the way, or repair it)")


@app.command("show")
def show(session_id: IdArg, as_json: JsonOpt = False) -> None:
    """One run: its events, tool calls with their errors, decisions and learning result."""
    from agentuse.runtime.approval import find_session
    from agentuse.runtime.session_text import render_session, session_json

    session = find_session(session_id)
    if as_json:
        say(json.dumps(session_json(session), indent=2))
        return
    say(render_session(session))


@app.command("resume")
def resume(
    session_id: IdArg,
    approve: Annotated[bool, typer.Option("--approve", help="Approve the output; the run completes.")] = False,
    comment: Annotated[
        str | None,
        typer.Option("--comment", help="Revise: the model gets this comment and works again (with --approve/--reject: a note).", show_default=False),
    ] = None,
    reject: Annotated[bool, typer.Option("--reject", help="Reject the output; the run ends rejected.")] = False,
    remember: Annotated[
        str | None,
        typer.Option("--remember", help="Learn from this comment: keep this note for similar future runs.", show_default=False),
    ] = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Answer a run waiting at its approval gate."""
    from agentuse.runtime.approval import decision_from_flags
    from agentuse.runtime.approval import resume as resume_run

    decision = decision_from_flags(approve=approve, reject=reject, comment=comment, remember=remember)
    result = resume_run(session_id, decision=decision, comment=comment, remember=remember, model=model)
    from agentuse.flows.post_run import after_resume

    saved = after_resume(result, remember=remember, comment=comment)  # save the note, capture if now completed
    show_result(result, as_json=as_json, quiet=quiet, show_output=decision == "revise")
    if not saved:  # decided, but the note it was asked to keep is not stored: its line names the fix
        raise typer.Exit(1)
