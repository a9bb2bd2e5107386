"""The deliberate human path as Prefect tasks: load the note's context, ground it, save it. Reconcile
and vet are the capture tasks (same policy, same names), so a dashboard shows one vocabulary."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.core import cap as capping
from agentuse.core import remember, store
from agentuse.core.agent_file import load_agent
from agentuse.core.capture import Judged, rules_in_force
from agentuse.core.contract import agent_hash, contract_text
from agentuse.core.helper.protocol import GroundAnswer, GroundRequest, Helper, ReconcileAnswer
from agentuse.core.learned_block import BlockRule, read_block
from agentuse.core.learning import DEFAULT_MAX, Learning
from agentuse.core.ranking import select
from agentuse.core.store_format import new_id
from agentuse.core.failure import Failure
from agentuse.tasks.retry import ask
from agentuse.tasks.step import step
from agentuse.core.model_defaults import empty_list


class RememberInput(BaseModel):
    agent_path: str
    agent_key: str
    label: str  # the session id, or "manual" for `learnings add`
    contract: str
    ih: str
    cap: int = DEFAULT_MAX
    applies: bool = False  # learning.apply is on: the rule will reach future runs
    learnings: list[Learning] = Field(default_factory=empty_list)
    permanent: list[BlockRule] = Field(default_factory=empty_list)  # the learned block + staged graduated copies
    trace: str = ""
    session_file: str | None = None  # where the result lines are recorded, when the note came from a run
    note: remember.Note
    replacing: str | None = None  # the rule the note rewords: not in `learnings`, archived by the save


@step("load-note", "load-note/{label}")
def load_note(agent: str, note: remember.Note, label: str, replacing: str | None = None) -> RememberInput:
    agent_file = load_agent(Path(agent))
    location = store.locate(Path(agent))
    trace, session_file = "", None
    if note.session:
        from agentuse.runtime.trace import resolve_session, trace_from_session  # tasks -> runtime, only here

        session_file = resolve_session(note.session, store.data_dir())
        run = trace_from_session(session_file)
        trace = run.evidence()
        note = note.model_copy(update={"session": run.session or note.session})  # stamp the id, not a path
    # A rule the note rewords is not what the note is reconciled or vetted against (it would fold back in).
    learnings = [rule for rule in store.load(location).learnings if rule.id != replacing]
    permanent = remember.permanent_rules(agent_file.text, learnings)
    contract = remember.with_permanent(contract_text(agent_file), read_block(agent_file.text) or [], permanent)
    return RememberInput(
        agent_path=str(location.agent_path), agent_key=location.key, label=label,
        contract=contract, ih=agent_hash(agent_file), cap=agent_file.cap,
        applies=agent_file.applies, learnings=learnings, permanent=permanent, trace=trace, note=note,
        session_file=str(session_file) if session_file else None, replacing=replacing,
    )


@step("ground", "ground/{label}", model=True)
def ground(request: GroundRequest, label: str, helper: Helper) -> GroundAnswer | Failure:
    return ask("ground", lambda: helper.ground(request))


@step("save-note", "save-note/{ctx.label}")
def save(ctx: RememberInput, judged: Judged, fold: ReconcileAnswer | None, agent_arg: str,
         notes: list[str], today: date, offline: bool = False) -> remember.Result:
    """Write the correction under the store lock (what it writes: core/remember.py `to_store`)."""
    location = store.locate(Path(ctx.agent_path))
    judged, incoming = remember.to_store(judged, fold, permanent=ctx.permanent,
                                         rule_id=new_id({r.id for r in ctx.learnings}), note=ctx.note, ih=ctx.ih,
                                         today=today, offline=offline,
                                         seen={r.id: r.text for r in rules_in_force(ctx.learnings, ctx.ih)})
    report = capping.write(location, [incoming], cap=ctx.cap, room_first=False, drain_excess=False, today=today,
                           journal=_journal(ctx.session_file),
                           retire=[ctx.replacing] if ctx.replacing else [], retire_reason=remember.REWORDED_REASON)
    placed = report.placed[0]
    outside = None
    if placed.how is capping.Placement.outside_cap:
        learnings = store.load(location).learnings
        outside = [r for r in select(learnings, cap=ctx.cap, current_ih=ctx.ih).outside_cap if r.is_human]
    lines = remember.result_lines(placed, judged, agent_arg=agent_arg, applies=ctx.applies, cap=ctx.cap,
                                  notes=notes, outside=outside)
    return remember.Result(lines=lines, placed=placed, judged=judged)


def _journal(session_file: str | None):
    """A note saved as a repeat changes only the rule's count, so nothing in the store says this session's
    note is there: the session's log says so first, under the store lock (runtime/events.py NoteRepeat)."""
    if session_file is None:
        return None
    from agentuse.runtime.events import NoteRepeat  # tasks -> runtime, only here
    from agentuse.runtime.session import SessionLog

    def journal(report: capping.WriteReport) -> None:
        for placed in report.placed:
            if placed.how is capping.Placement.repeated:
                SessionLog(Path(session_file)).append(NoteRepeat(rule=placed.record.id, re=placed.record.re))

    return journal
