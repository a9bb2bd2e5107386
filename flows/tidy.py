"""The tidy-up flow: re-vet, up to five passes of plan/rewrite/audit, graduation, the permanent-block
rewrite, then one commit of both files (spec: Tidying up).

Steps are composed only through `flows.runner` (`call`, `fan_out`), so the same code is a real Prefect
flow run when an API is configured and plain calls (a thread pool for the groups) when none is. The
groups of a pass are weighed in parallel, then the rewrites of a pass, then their audits. Everything
happens in memory; the files are written once, at the end, unless it is a dry run.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from agentuse.core import effectiveness, graduate, revet, snapshots, store, tidy, tidy_commit
from agentuse.core.contract import contract_text, instructions
from agentuse.core.helper.protocol import ref
from agentuse.core.learned_block import BlockRule
from agentuse.core.learning import TIDY_MAX_PASSES
from agentuse.core.overcap import explain
from agentuse.core.tidy_report import PassInfo, Progress, TidyResult
from agentuse.core.failure import Failure
from agentuse.core.tidy_state import TidyState
from agentuse.flows.artifacts import tidy_completed
from agentuse.flows.gate import through_gate
from agentuse.flows.names import tidy_run_name
from agentuse.flows.runner import fan_out, pipeline, progress, run
from agentuse.tasks.retry import counting_failures
from agentuse.tasks import helpers
from agentuse.tasks import tidy as steps

ProgressFn = Callable[[Progress], None]
emit = progress  # the runner hands each Progress to whoever started the tidy-up (the CLI, the web page)


def _recount(location: store.AgentLocation, problem: str) -> tuple[effectiveness.Index, str]:
    """Session logs are read only for an index that cannot be used: most tidy-ups never import the reader."""
    from agentuse.runtime.effectiveness import recount

    return recount(location, problem)


@pipeline("tidy", tidy_run_name, agent="agent_path", on_completion=[tidy_completed])
def tidy_flow(agent_path: str, dry_run: bool = False, today: date | None = None, seed: int | None = None) -> TidyResult:
    """Tidy up one agent's learnings and write both files once. Model steps use the agent's helper (the
    offline evaluator without a key), resolved only when something qualifies.

    Args:
        agent_path: The agent file (.agentuse), as an absolute path; a relative one is read from the folder
            the flow runs in.
        dry_run: Plan only: write nothing, and publish the plan and both diffs under tidy-dry-run-<agent>.
        today: The date the tidy-up counts from (YYYY-MM-DD; the 14-day grace); empty for today.
        seed: Seeds the ids of rewritten rules, so a run can be repeated exactly; empty for random ids.
    """
    prepared = tidy_commit.prepare(Path(agent_path), recount=_recount)
    state = tidy.new_state(agent=prepared.location.name, learnings=prepared.doc.learnings, cap=prepared.cap,
                           current_ih=prepared.current_ih, today=today or date.today(),
                           rng=random.Random(seed) if seed is not None else None,
                           offline=helpers.vets_offline(), recurring=prepared.recurring,
                           commented_about=prepared.commented_about)
    state.notes += prepared.notes
    result = TidyResult(agent_file=str(prepared.location.agent_path),
                        learnings_file=str(prepared.location.store_path), dry_run=dry_run)
    if not qualifies(state, prepared):
        result.nothing, result.notes = True, state.notes
        return result
    calls_before = helpers.calls()
    with counting_failures() as failed:
        block = _passes(prepared, state, result)
    result.failed_calls = len(failed)
    result.model_calls = helpers.calls() - calls_before
    _finish(prepared, state, block, result)
    return result


def _passes(prepared: tidy_commit.Prepared, state: TidyState, result: TidyResult) -> list[BlockRule]:
    """The passes, graduation and the permanent block's rewrite, in memory: the result says what they did."""
    block = list(prepared.block)
    # An agent whose only rules are in its permanent block (or set aside in quarantine, none of them to
    # revisit) has no learnings to read: no pass runs.
    for pass_no in range(1, TIDY_MAX_PASSES + 1 if state.in_force() or revet.candidates(state) else 1):
        info = _one_pass(state, prepared, pass_no)
        if prepared.writable:
            block, added = graduate.graduate(state, block, pass_no=pass_no)
            result.block_edits += added
        info.freed = info.read - len(state.in_force())
        result.passes.append(info)
        if not tidy.another_pass(state, pass_no, info.freed):
            break
    tidy.restated_left(state)
    if held := graduate.held_back(state):
        state.notes.append(graduate.held_back_note(held))
    if not prepared.writable and graduate.eligible(state):
        result.graduation_skipped = graduate.skipped_message(prepared.location.agent_path,
                                                             len(graduate.eligible(state)))
    if prepared.writable and _block_needs_rewrite(prepared, block):
        if not result.passes:  # the spec's lines name the passes; with none, say what is being read
            emit(Progress(kind="block", count=len(block)))
        block = _rewrite_block(prepared, state, block, result)

    result.counts = state.counts()
    result.permanent = [c.title for c in state.changes if c.kind == "graduated"]
    result.changes, result.notes = state.changes, state.notes
    last_freed = result.passes[-1].freed if result.passes else 0
    result.overcap = explain(state, passes=len(result.passes), last_freed=last_freed,
                             graduation_skipped=not prepared.writable)
    return block


def qualifies(state: TidyState, prepared: tidy_commit.Prepared) -> bool:
    """Over the cap, rules to re-vet, rules ready to graduate, a rule too long to compare, or a permanent
    block that changed since the last tidy-up. Otherwise: Nothing to tidy up, and no model call."""
    in_force = state.in_force()
    return bool(len(in_force) > state.cap or revet.candidates(state)
                or graduate.eligible(state) or tidy.needs_planning(state)
                or _block_needs_rewrite(prepared, prepared.block))


def _each(task, items: list, on_result: Callable[[Any, Any], None] | None = None) -> list:
    """fan_out, where a fault that outlived its retries fails that call, not the tidy-up: the core treats
    a `Failure` as "could not be planned/written/audited" and keeps the originals."""
    return fan_out(task, items, on_error="collect", on_result=on_result)


def _one_pass(state: TidyState, prepared: tidy_commit.Prepared, pass_no: int) -> PassInfo:
    info = PassInfo(pass_no=pass_no, read=len(state.in_force()), groups=0, moves=0, rewrites=0, freed=0)
    emit(Progress(kind="reading", pass_no=pass_no, count=info.read))
    if pass_no == 1:  # nothing turns a rule stale mid-tidy, so the re-vet belongs to the first pass
        revet.restamp_structural(state)
        requests = revet.requests(state, contract_text(prepared.agent))
        items = [steps.Revet(agent=state.agent, index=i + 1, request=r) for i, r in enumerate(requests)]
        for request, answer in zip(requests, _each(steps.revet, items), strict=True):
            revet.apply(state, request, answer)
    restated = tidy.restated_merges(state)
    if not restated and not tidy.needs_planning(state):
        return info
    groups = tidy.make_groups(state, pass_no, taken=restated)
    moves = restated + tidy.accept_moves(state, groups, _each(steps.plan_group, groups))
    jobs = tidy.jobs_for(state, moves, pass_no)
    info.groups, info.moves, info.rewrites = len(groups), len(moves), len(jobs)
    if jobs:
        emit(Progress(kind="rewriting", pass_no=pass_no, count=len(jobs)))
    answers = _each(steps.rewrite, jobs, on_result=_rule_counter(pass_no, len(jobs)))
    replacements = [r for r in (tidy.accept_replacement(state, j, a) for j, a in zip(jobs, answers, strict=True)) if r]
    decisions = through_gate(tidy.pass_proposals(state, moves, replacements), contract=contract_text(prepared.agent),
                             rules=[ref(r) for r in state.in_force()], label=f"{state.agent}/pass-{pass_no}")
    tidy.apply_pass(state, pass_no, moves, replacements, decisions)
    return info


def _rule_counter(pass_no: int, total: int) -> Callable[[Any, Any], None]:
    """One "written" event per stage-2 rewrite as its call finishes (a `Failure` too: that rule is done
    with, and the stage's count must reach its total). Calls finish on several threads at once; the lock
    keeps the count and the events in step, so a page counting them only ever counts up."""
    lock = threading.Lock()
    done = 0

    def written(_job: Any, _answer: Any) -> None:
        nonlocal done
        with lock:
            done += 1
            emit(Progress(kind="written", pass_no=pass_no, count=done, of=total))

    return written


def _block_needs_rewrite(prepared: tidy_commit.Prepared, block: list[BlockRule]) -> bool:
    """Two or more rules, and not exactly what the last tidy-up left (rules added, or edited by hand)."""
    if len(block) < 2:
        return False
    return snapshots.last_block(prepared.location) != snapshots.block_digest(block)


def _rewrite_block(prepared: tidy_commit.Prepared, state: TidyState, block: list[BlockRule],
                   result: TidyResult) -> list[BlockRule]:
    """The rewrite, checked in code (every input claimed once), then each combined rule through the gate:
    vetted against the instructions outside the block and the rules in force, audited against the inputs it
    claims. Inputs of a rule that fails go back untouched."""
    agent, rules = state.agent, [ref(r) for r in state.in_force()]
    answer = _each(steps.rewrite_block, [steps.BlockRewrite(agent=agent, block=block)])[0]
    if isinstance(answer, Failure):
        result.block_discarded = f"The permanent block was not rewritten: {answer.message}"
        return block
    problem = graduate.check_claims(block, answer)
    if problem:
        result.block_discarded = problem
        return block
    proposals = graduate.proposals(agent, block, answer)
    decisions = through_gate(proposals, contract=instructions(prepared.agent.body), rules=rules,
                             label=f"{agent}/block")
    new_block, edits = graduate.apply_rewrite(block, answer, dict(zip((p.key for p in proposals), decisions)))
    result.block_edits = graduate.fold_edits(result.block_edits + edits)
    return new_block


def _finish(prepared: tidy_commit.Prepared, state: TidyState, block: list[BlockRule], result: TidyResult) -> None:
    new_agent = tidy_commit.agent_text(prepared, block)
    before_store = (prepared.store_bytes or b"").decode("utf-8-sig")
    new_store = tidy_commit.store_text(prepared, state)
    if result.dry_run:
        names = (prepared.location.store_path.name, prepared.location.agent_path.name)
        result.diffs = {"learnings file": tidy_commit.diff(before_store, new_store, names[0]),
                        "agent file": tidy_commit.diff(prepared.agent.text, new_agent, names[1])}
        return
    if new_agent == prepared.agent.text and new_store == before_store and not state.archived:
        return  # nothing changed: no snapshot, so undo still undoes the last tidy-up that did something
    emit(Progress(kind="writing", pass_no=len(result.passes)))
    snapshot = tidy_commit.commit(prepared, state, block, summary=result.summary)
    result.written, result.snapshot = True, str(snapshot.folder)
    result.diffs = tidy_commit.snapshot_diffs(snapshot.folder, prepared.location.agent_path,
                                              prepared.location.store_path)


def run_tidy(agent_path: str | Path, *, dry_run: bool = False, helper: Any = None,
             progress: ProgressFn | None = None, force_prefect: bool = False, today: date | None = None,
             seed: int | None = None, announce: Callable[[str], None] | None = None) -> TidyResult:
    """The entry point every surface uses: a real flow run when Prefect is configured, inline otherwise."""
    return run(tidy_flow, force_prefect=force_prefect, helper=helper, on_progress=progress, announce=announce,
               agent_path=str(agent_path), dry_run=dry_run, today=today, seed=seed)
