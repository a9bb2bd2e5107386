"""A server's retry-after is honoured under Prefect's task retries as it is inline: Prefect waits the
declared back-off, and the retry condition waits the rest, so no attempt comes sooner than the server asked
(and none is made when that wait does not fit in the call's deadline)."""

from __future__ import annotations

from types import SimpleNamespace

from agentuse.core.helper import deadline
from agentuse.core.helper.protocol import PermanentHelperError, TransientHelperError
from agentuse.tasks import retry


def prefect_args(error, *, delays=(2.0, 4.0, 8.0), run_count=1):
    task = SimpleNamespace(retries=len(delays), retry_delay_seconds=list(delays))
    return task, SimpleNamespace(id=object(), run_count=run_count), SimpleNamespace(data=error)


def test_prefect_retries_wait_at_least_the_servers_retry_after(monkeypatch, capsys):
    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    throttled = TransientHelperError("vet: 429", operation="vet", status=429, reason="rate-limited", retry_after=30)
    assert retry.transient_only(*prefect_args(throttled)) is True
    assert slept == [28.0]  # Prefect itself waits the declared 2 s: together, the 30 s the server asked for
    assert "model rate-limited, retrying in 30 s (2 of 4)" in capsys.readouterr().err


def test_a_retry_after_shorter_than_the_backoff_adds_no_wait(monkeypatch, capsys):
    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    busy = TransientHelperError("vet: 529", operation="vet", status=529, reason="overloaded", retry_after=1)
    assert retry.transient_only(*prefect_args(busy, run_count=2)) is True
    assert slept == [] and "retrying in 4 s (3 of 4)" in capsys.readouterr().err


def test_a_retry_after_past_the_call_deadline_is_not_retried(monkeypatch):
    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    monkeypatch.setenv(deadline.CALL_DEADLINE_VARIABLE, "10")
    throttled = TransientHelperError("vet: 429", operation="vet", status=429, reason="rate-limited", retry_after=60)
    assert retry.transient_only(*prefect_args(throttled)) is False
    assert slept == []


def test_a_permanent_fault_is_never_retried(monkeypatch):
    monkeypatch.setattr(retry.time, "sleep", lambda _s: None)
    assert retry.transient_only(*prefect_args(PermanentHelperError("vet: 400", operation="vet"))) is False
