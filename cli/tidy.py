"""`agentuse learnings tidy <agent-file>` and `agentuse learnings undo <agent-file>` (spec: Tidying up).

The tidy-up prints the spec's progress lines as it goes, then `Done`, the summary, the rules made
permanent, each edit to the permanent block, and why it ended over the cap if it did. `--dry-run`
prints the plan and both diffs and writes nothing; `--json` prints the whole result for scripts and
maintenance agents. Prefect and the flows are imported inside the commands.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.cli.learnings import AgentArg

PrefectOpt = Annotated[bool, typer.Option("--prefect", help="Run as a real Prefect flow run (a temporary server "
                                                          "when no PREFECT_API_URL is configured).")]


def tidy(
    agent_file: AgentArg,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan and both diffs; write nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The whole result as JSON (no progress lines).")] = False,
    prefect: PrefectOpt = False,
) -> None:
    """Re-vet, merge, rewrite, retire and graduate an agent's learnings; both files written once."""
    from agentuse.core.helper.factory import once
    from agentuse.core.tidy_report import render
    from agentuse.flows.tidy import run_tidy

    shown = []

    def progress(event) -> None:
        if not as_json and not event.per_rule:  # the spec's lines only; per-rule counts are for the web page
            shown.append(event)
            say(f"  {event.line}")

    # A broken store (StoreFormatError, file:line) is never overwritten: it is reported like any error.
    result = run_tidy(agent_file, dry_run=dry_run, progress=progress, force_prefect=prefect,
                      announce=once(lambda message: say(message, err=True)))
    if as_json:
        say(json.dumps({"summary": None if result.nothing else result.summary,
                        **result.model_dump(mode="json")}, indent=2, ensure_ascii=False))  # printable() keeps it JSON
    else:
        if shown:
            say()
        for line in render(result):
            say(line)
    if result.failed_calls:  # its notes say which and why; a scheduled tidy-up must not read as healthy
        raise typer.Exit(1)


def undo(agent_file: AgentArg) -> None:
    """Undo the last tidy-up (or capture pass that rewrote rules): files restored byte for byte from its
    snapshot, and its archive entries removed."""
    from agentuse.core import snapshots, store

    location = store.locate(agent_file)
    snapshot = snapshots.undo(location)
    manifest = snapshot.manifest
    summary = f" ({manifest.summary})" if manifest.summary else ""
    if snapshot.resumed == snapshots.ROLLED_BACK:  # its commit died part way: put back, not another pass undone
        say(f"The {manifest.kind} of {manifest.created}{summary} was cut short before it was written in full and "
            "is rolled back: none of it is in force. Nothing else was undone.")
        return
    if snapshot.resumed == snapshots.UNDONE:
        say(f"Finished the undo of the {manifest.kind} of {manifest.created}{summary}, which an earlier undo left "
            "half done; nothing else was undone.")
    else:
        say(f"Undid the {manifest.kind} of {manifest.created}{summary}")
    if manifest.kind == snapshots.TIDY_UP and manifest.agent_written:  # capture's passes write the store alone
        say(f"  restored {agent_file}")
    say(f"  restored {location.store_path}" + (f": {snapshots.CARRIED}" if manifest.undo_from else ""))
    if manifest.archive_after is not None:
        say(f"  took the rules it retired back out of {location.archive_path}")
    left = len(snapshots.listing(location))
    if left:
        say(f"  {left} earlier pass(es) can still be undone, newest first.")
