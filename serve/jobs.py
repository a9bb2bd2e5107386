"""Tidy-ups as background jobs of the server (spec: Tidying up — "leaving that page does not stop it").

A job runs the tidy flow in its own thread and keeps what its progress callback reports, so any page can
show the pass it is on and the rules rewritten so far. One job per agent at a time: pressing Tidy up
again while one runs joins it instead of starting a second tidy-up of the same files. Finished jobs stay
in memory (the newest few per server) so the result waits on its page.
"""

from __future__ import annotations

import secrets
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentuse.core.errors import AgentuseError
from agentuse.core.store_format import StoreFormatError
from agentuse.core.tidy_commit import result_diffs
from agentuse.core.tidy_report import TidyResult

KEEP_FINISHED = 50

# (agent_path, progress callback, note callback) -> TidyResult. The default is the tidy flow.
Runner = Callable[[Path, Callable[[Any], None], Callable[[str], None]], Any]


def default_runner(agent_path: Path, progress: Callable[[Any], None], note: Callable[[str], None]) -> Any:
    """What `agentuse learnings tidy` runs: the agent's helper model (its one-time notice, e.g. the offline
    evaluator taking over, goes on the job's page), then the tidy flow."""
    from agentuse.core.agent_file import load_agent
    from agentuse.core.helper.factory import once, resolve_helper
    from agentuse.flows.tidy import run_tidy  # Prefect is imported only when a tidy-up actually runs

    helper = resolve_helper(load_agent(agent_path).helper_model, announce=once(note))
    return run_tidy(agent_path, helper=helper, progress=progress)


@dataclass
class TidyJob:
    id: str
    key: str
    agent_path: Path
    started: str
    status: str = "running"  # running | done | failed
    pass_no: int = 0
    lines: list[str] = field(default_factory=list)  # the progress lines, worded as the CLI prints them
    rewritten: int = 0  # rules written so far (each counted as the flow reports it written)
    rewriting: int = 0  # rules of the running stage still being written
    result: Any = None  # TidyResult
    diffs: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def url(self) -> str:
        return f"/tidy/{self.id}"

    def on_progress(self, event: Any) -> None:
        """The flow's progress callback (may be called from worker threads)."""
        with self._lock:
            if event.kind == "written":  # one rule of the running stage: no line, the count moves now
                self.rewritten += 1
                self.rewriting = max(0, self.rewriting - 1)
                return
            # The previous stage is over once anything else happens: a rule it never reported (a runner
            # without per-rule events) is counted with it.
            self.rewritten += self.rewriting
            self.rewriting = event.count if event.kind == "rewriting" else 0
            self.pass_no = max(self.pass_no, event.pass_no)
            self.lines.append(event.line)

    def note(self, text: str) -> None:
        with self._lock:
            self.lines.append(text)

    def finish(self, result: Any = None, error: str | None = None) -> None:
        with self._lock:
            self.rewritten += self.rewriting
            self.rewriting = 0
            self.result, self.error = result, error
            self.status = "failed" if error else "done"

    def progress(self) -> dict:
        with self._lock:
            return {
                "id": self.id, "agent": self.key, "url": self.url, "status": self.status, "pass": self.pass_no,
                "lines": list(self.lines), "rewritten": self.rewritten, "rewriting": self.rewriting,
                "summary": self.result.summary if self.result is not None and not self.result.nothing else None,
                "error": self.error,
            }


class TidyJobs:
    def __init__(self, runner: Runner | None = None) -> None:
        self.runner = runner or default_runner
        self._lock = threading.Lock()
        self._jobs: dict[str, TidyJob] = {}
        self._running: dict[str, str] = {}  # agent key -> job id

    def start_or_join(self, key: str, agent_path: Path) -> tuple[TidyJob, bool]:
        """(job, joined): the running job of this agent, or a new one started now."""
        with self._lock:
            running = self._running.get(key)
            if running is not None:
                return self._jobs[running], True
            job = TidyJob(id=secrets.token_hex(6), key=key, agent_path=agent_path,
                          started=datetime.now(timezone.utc).isoformat(timespec="seconds"))
            self._jobs[job.id] = job
            self._running[key] = job.id
            self._forget_old()
        threading.Thread(target=self._run, args=(job,), name=f"tidy {key}", daemon=True).start()
        return job, False

    def _run(self, job: TidyJob) -> None:
        try:
            result = self.runner(job.agent_path, job.on_progress, job.note)
        except (AgentuseError, StoreFormatError) as problem:  # says what to do (file:line): show it as written
            job.finish(error=str(problem))
        except BaseException as problem:  # noqa: BLE001 - the page must say the job died, not spin forever
            # BaseException too: Prefect stops a flow run with signals that are not Exceptions (Abort when
            # the run is cancelled, TerminationSignal), and the thread ends here either way.
            traceback.print_exc()  # the whole story goes to the server's terminal, the gist to the page
            job.finish(error=f"{type(problem).__name__}: {problem}")
        else:
            # A runner a test scripts may return no TidyResult: its diffs, if it carries any, as they are.
            job.diffs = result_diffs(result) if isinstance(result, TidyResult) else dict(
                getattr(result, "diffs", {}) or {})
            job.finish(result=result)
        finally:
            with self._lock:
                self._running.pop(job.key, None)

    def get(self, job_id: str) -> TidyJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def current(self, key: str) -> TidyJob | None:
        with self._lock:
            job_id = self._running.get(key)
            return self._jobs.get(job_id) if job_id else None

    def latest(self, key: str) -> TidyJob | None:
        """This agent's newest tidy-up on this server, running or over (jobs are kept in start order)."""
        with self._lock:
            return next((j for j in reversed(self._jobs.values()) if j.key == key), None)

    def for_snapshot(self, folder: str) -> TidyJob | None:
        with self._lock:
            return next((j for j in self._jobs.values() if j.result is not None and j.result.snapshot == folder), None)

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.status != "running"]
        for job in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[job.id]


