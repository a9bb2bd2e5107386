"""Starting a run: agent file -> system prompt (+ `## Relevant Learnings`) -> session -> loop -> gate.

Everything a later step needs is written to the session log before it is needed: the run_start event
holds the exact system prompt and the ids of the injected rules, so an approval resumed hours later (in
another process) credits exactly the rules that were in force and continues the same conversation.
A revision round reads the agent file and the store again, as a new run would (spec: learnings apply "on
next run or approval resume"), and records its own system prompt and rules in a round_start event.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.core import notices, store
from agentuse.core.agent_file import AgentFile, load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.errors import AgentuseError
from agentuse.core.inject import Injection, record_injection, select_for_run
from agentuse.core.model_defaults import empty_list
from agentuse.core.session_ids import new_session_id
from agentuse.core.shell_env import shell_environment
from agentuse.core.store_format import StoreFormatError
from agentuse.core.terminal_text import first_non_utf8, not_utf8
from agentuse.runtime.effectiveness import count_session
from agentuse.runtime.events import ApprovalRequest, RoundStart, RunEnd, RunStart, RunStatus, under_review
from agentuse.runtime.loop import run_turns
from agentuse.runtime.messages import Usage
from agentuse.runtime.providers import ModelError, Provider, provider_for
from agentuse.runtime.session import SessionLog, this_process, utc_now
from agentuse.runtime.summary import summarize
from agentuse.runtime.tools import ToolBox

DEFAULT_PROMPT = "Do the task your instructions describe."
RESUME_OPTIONS = '--approve | --comment "..." | --reject [--remember "..."]'


class RunResult(BaseModel):
    session_id: str
    session_file: str
    status: RunStatus
    agent: str
    output: str | None = None
    error: str | None = None
    tokens: Usage = Field(default_factory=Usage)
    notices: list[str] = Field(default_factory=empty_list, description="warn-once texts to show the user")

    @property
    def revision_failed(self) -> bool:
        """A revision that failed: the session still awaits review on the output the reviewer was shown."""
        return self.status == "awaiting_review" and self.error is not None

    @property
    def resume_command(self) -> str:
        return f"agentuse sessions resume {self.session_id} {RESUME_OPTIONS}"


def system_prompt(agent: AgentFile, injection: Injection) -> str:
    """The agent body as written (its learned block included) plus the probation rules, if any."""
    body = agent.body.strip()
    return f"{body}\n\n{injection.text.strip()}\n" if injection.text.strip() else f"{body}\n"


class Instructions(BaseModel):
    """What one round of work is sent: the system prompt, the rules in it, the hash they were checked for."""

    ih: str
    system: str
    injected: list[str] = Field(default_factory=empty_list)


def instructions_now(agent_path: Path, location: store.AgentLocation) -> tuple[AgentFile, Instructions]:
    """The agent file and the rules in force at this moment: a run's start and every revision round. Read
    as one pair (store.settled_read): never the agent file from before a tidy-up and the store from after."""

    def read() -> tuple[AgentFile, Instructions]:
        agent = load_agent(agent_path)
        ih = agent_hash(agent)
        injection = _injection(agent, location, ih)
        return agent, Instructions(ih=ih, system=system_prompt(agent, injection), injected=injection.ids)

    return store.settled_read(location, read)


def _injection(agent: AgentFile, location: store.AgentLocation, ih: str) -> Injection:
    if not (agent.learning and agent.learning.apply):
        return Injection()  # no store read at all: a broken store must not block an agent that ignores it
    try:
        doc = store.load(location)
    except StoreFormatError as problem:
        raise AgentuseError(f"{problem} — fix the learnings file by hand (it is never overwritten while broken)")
    return select_for_run(agent, doc, ih)


def _notices(agent: AgentFile, location: store.AgentLocation) -> list[str]:
    """Warn-once texts not shown to this agent yet (config upgrades, learnings at the old location)."""
    texts = list(agent.notices)
    if location.legacy_path.exists():
        # Existence only, never content (spec: Moving learnings from before v0.17.0).
        from agentuse.core.status_text import stranded_notice  # the status texts load only to say this

        texts.append("\n".join(stranded_notice(location.key, _shown_path(location.legacy_path, location.root))))
    return notices.announce(location, texts)


def _shown_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def start_run(
    agent_path: Path,
    prompt: str | None = None,
    *,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    new_id: Callable[[], str] = new_session_id,
    clock: Callable[[], str] = utc_now,
) -> RunResult:
    if problem := not_utf8(prompt):  # before anything is written: the session log could not hold it
        raise AgentuseError(f"the prompt {problem}")
    agent = load_agent(agent_path)
    location = store.locate(agent_path, env=env)
    for path in (location.root, location.agent_path):
        if where := first_non_utf8(str(path)):  # the session log is UTF-8 text and records both
            raise AgentuseError(f"{path}: its name is not UTF-8 ({where}), and a run records it in its session log "
                                "as UTF-8 text: rename it to UTF-8 (convmv -f latin1 -t utf-8, say); the run did "
                                "not start")
    model = model or agent.model
    if not model:
        raise AgentuseError(f"{agent_path} names no model: add `model: anthropic:<name>` or pass --model")
    # The provider comes first: a missing key stops the run before any session or counter is written.
    provider = provider_for(model, env=env, base_dir=agent_path.parent)
    agent, now = instructions_now(agent_path, location)  # read again, with the store, as one pair
    shown = _notices(agent, location)
    log = SessionLog.create(location.session_dir, new_id(), clock=clock)
    log.append(
        RunStart(
            session_id=log.session_id,
            agent_key=location.key,
            agent_path=str(location.agent_path),
            project_root=str(location.root),
            ih=now.ih,
            model=model,
            prompt=prompt or DEFAULT_PROMPT,
            system=now.system,
            injected=now.injected,
            approval=agent.approval,
            **this_process(),
        )
    )
    record_injection(location, now.injected)
    # Registered as open now: its end folds it into the totals exactly once (core/effectiveness.py).
    counted = count_session(log.path)
    tools = ToolBox(location.root, environment=shell_environment(
        os.environ if env is None else env, model=model, let_through=agent.shell_env))
    result = work(log, provider=provider, tools=tools, approval=agent.approval)
    return result.model_copy(update={"notices": [*shown, *([counted] if counted else []), *result.notices]})


def revise(
    log: SessionLog, now: Instructions, *, location: store.AgentLocation, provider: Provider, tools: ToolBox
) -> RunResult:
    """A revision round: log the rules in force now (counted once, like a run's), then work again. If the
    work fails, the round is withdrawn and the gate stands on the output under review (RunEnd)."""
    events, _ = log.read()
    answered = sum(1 for e in events if isinstance(e, ApprovalRequest))
    log.append(RoundStart(round=answered + 1, ih=now.ih, system=now.system, injected=now.injected))
    record_injection(location, now.injected)
    return work(log, provider=provider, tools=tools, approval=True, shown=under_review(events))


def work(log: SessionLog, *, provider: Provider, tools: ToolBox, approval: bool,
         shown: str | None = None) -> RunResult:
    """Run the loop to the end of the model's turn, then finish or stop at the approval gate. A revision
    (`shown`: the output the reviewer was shown) that fails leaves that output awaiting review."""

    def failed(error: str) -> RunEnd:
        if shown is None:
            return RunEnd(status="failed", error=error)
        return RunEnd(status="awaiting_review", output=shown, error=error)

    try:
        turns = run_turns(log=log, provider=provider, tools=tools)
    except ModelError as problem:
        log.append(failed(str(problem)))
        return result_of(log)
    except BaseException as problem:  # Ctrl-C or a bug: say so in the log, then let it propagate
        log.append(failed(f"interrupted: {type(problem).__name__}: {problem}"))
        raise
    if approval:
        events, _ = log.read()
        rounds = sum(1 for e in events if isinstance(e, ApprovalRequest))
        log.append(ApprovalRequest(output=turns.output, round=rounds + 1))
        log.append(RunEnd(status="awaiting_review", output=turns.output))
    else:
        log.append(RunEnd(status="completed", output=turns.output))
    return result_of(log)


def result_of(log: SessionLog) -> RunResult:
    """The result as the log tells it, so the CLI prints exactly what `sessions show` would. Every stretch
    of work ends here, so this is where the run's rules are counted into the effectiveness index."""
    counted = count_session(log.path)
    session = summarize(log.path)
    end = next(e for e in reversed(session.events) if isinstance(e, RunEnd))  # every stretch of work writes one
    return RunResult(
        session_id=session.id,
        session_file=session.path,
        status=end.status,
        agent=session.agent_key or "",
        output=session.output,
        error=end.error,
        tokens=session.tokens,
        notices=[counted] if counted else [],
    )
