"""flows.runner.fan_out: every item runs and every result is kept, whatever one item does.

Inline (no Prefect API) for the behaviour, then once as a real flow run under a temporary server: a
submitted task that fails must not stop its siblings, nor be left unresolved (a failed `.submit()` that is
never resolved leaves the flow Completed, DESIGN.md)."""

from __future__ import annotations

import threading
import time

import pytest

from agentuse.core.errors import AgentuseError
from agentuse.core.helper.protocol import PermanentHelperError, TransientHelperError
from agentuse.core.failure import Failure
from agentuse.flows.runner import call, fan_out
from agentuse.tasks.retry import is_transient
from agentuse.tasks.step import Policy, Step


class Probe:
    """Counts calls and those in flight; item 1 fails for good (a model fault, or `error` if given)."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.calls: list[int] = []
        self.active = self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, item: int) -> int:
        with self.lock:
            self.calls.append(item)
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.02)
        with self.lock:
            self.active -= 1
        if item == 1 and self.error is not None:
            raise self.error
        return item * 10


def probe_task(probe: Probe, name: str = "probe", retry_if=is_transient) -> Step:
    return Step(fn=probe, name=name, run_name=name, policy=Policy(retries=2, retry_if=retry_if))


ITEMS = list(range(6))
FAULT = PermanentHelperError("plan_groups: bad request", operation="plan_groups")


def test_keeps_order_and_the_bound():
    probe = Probe()
    assert fan_out(probe_task(probe), ITEMS, limit=3) == [i * 10 for i in ITEMS]
    assert probe.peak <= 3
    assert fan_out(probe_task(probe), [], limit=3) == []


def test_a_permanent_fault_fails_its_item_only_and_every_other_item_runs():
    probe = Probe(FAULT)
    heard: list[tuple[int, object]] = []
    results = fan_out(probe_task(probe), ITEMS, limit=2, on_error="collect",
                      on_result=lambda item, result: heard.append((item, result)))
    assert sorted(probe.calls) == ITEMS  # a permanent fault is not retried, and stops nothing
    assert results[0] == 0 and results[2:] == [i * 10 for i in ITEMS[2:]]
    assert results[1] == Failure(operation="plan_groups", message="plan_groups: bad request (retries exhausted)")
    assert sorted(item for item, _ in heard) == ITEMS  # the failed call is heard too: its stage counts it done


def test_raise_mode_and_other_errors_raise_only_after_every_item_ran():
    probe = Probe(FAULT)
    with pytest.raises(PermanentHelperError):
        fan_out(probe_task(probe), ITEMS, limit=2)
    assert sorted(probe.calls) == ITEMS

    probe = Probe(AgentuseError("the store does not parse"))
    with pytest.raises(AgentuseError):
        fan_out(probe_task(probe), ITEMS, on_error="collect")  # only model faults are collected
    assert sorted(probe.calls) == ITEMS


def test_inline_retries_obey_the_declared_retry_condition_and_import_no_prefect():
    import subprocess
    import sys

    overloaded = TransientHelperError("vet: overloaded", operation="vet")
    flaky = Probe(overloaded)
    with pytest.raises(TransientHelperError):
        call(probe_task(flaky), 1)
    assert flaky.calls == [1, 1, 1]  # the declared policy: two retries of a transient fault
    never = Probe(overloaded)
    with pytest.raises(TransientHelperError):
        call(probe_task(never, retry_if=lambda error: False), 1)
    assert never.calls == [1]  # a step that declares no retry for it is not retried inline either
    code = ("import sys; from agentuse.flows.runner import call; from agentuse.tasks.step import Step; "
            "print(call(Step(fn=lambda x: x * 2, name='double', run_name='double'), 21), 'prefect' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split() == \
        ["42", "False"]


@pytest.mark.prefect
def test_orchestrated_a_failed_submission_is_resolved_and_its_siblings_finish(tmp_path):
    from prefect import flow
    from prefect_harness import harness

    probe = Probe(FAULT)
    failing = probe_task(probe)
    with harness(tmp_path / "prefect-home"):

        @flow(name="fan-out-check")
        def check() -> list:
            return fan_out(failing, ITEMS, limit=2, on_error="collect")

        state = check(return_state=True)
        assert state.is_completed()
        results = state.result()
        assert probe.peak <= 2  # submitted through Prefect, never more than the bound in flight
        assert sorted(probe.calls) == ITEMS
        assert isinstance(results[1], Failure) and results[:1] + results[2:] == [i * 10 for i in ITEMS if i != 1]

        probe.calls.clear()

        @flow(name="fan-out-raise")
        def raising() -> list:
            return fan_out(failing, ITEMS, limit=2)

        state = raising(return_state=True)
        assert state.is_failed()  # resolved, so the fault fails the flow instead of vanishing
        assert sorted(probe.calls) == ITEMS


def test_the_offline_evaluators_calls_run_on_the_calling_thread_and_a_providers_in_a_pool(tmp_path):
    """The offline evaluator computes in this process: threads would only take turns holding the
    interpreter. A provider's calls wait on requests, so they still run side by side."""
    from types import SimpleNamespace

    from agentuse.core.helper.offline import OfflineHelper
    from agentuse.tasks import helpers

    threads: list[threading.Thread] = []

    def ask(item: int, helper) -> int:
        threads.append(threading.current_thread())
        return item * 10

    task = Step(fn=ask, name="ask", run_name="ask", model=True)
    for helper, expected in ((OfflineHelper(), {threading.current_thread()}), (SimpleNamespace(name="fake"), None)):
        threads.clear()
        with helpers.given(helper), helpers.scope(str(tmp_path / "a.agentuse")):
            assert fan_out(task, ITEMS, on_error="collect") == [i * 10 for i in ITEMS]
        if expected is not None:
            assert set(threads) == expected
        else:
            assert threading.current_thread() not in threads
