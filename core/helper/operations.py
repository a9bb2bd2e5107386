"""The eight helper operations as one table: name, request model, answer model, output budget.

Every model-backed helper (Anthropic, OpenAI-compatible, Bedrock) reads this table, so an operation is added
in one place; its prompt is `prompts/<name>.txt` (render.prompt) and its user message `render.render`.
`ModelHelper` is what those helpers share: name, usage, the limits and the "no answer" fault.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.model_http import CallError, auth_hint
from agentuse.core.terminal_text import plain_values

R = TypeVar("R")


class Operation(BaseModel):
    name: str
    request: type[BaseModel]
    answer: type[BaseModel]
    # Output budget: enough for the largest honest answer, small enough to fail fast.
    max_tokens: int

    @property
    def tool_name(self) -> str:
        return f"submit_{self.name}"

    @property
    def description(self) -> str:
        return f"Record your answer for the {self.name.replace('_', ' ')} step. Call exactly once."


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    Operation(name="extract", request=p.ExtractRequest, answer=p.ExtractAnswer, max_tokens=4096),
    Operation(name="vet", request=p.VetRequest, answer=p.VetAnswer, max_tokens=4096),
    Operation(name="ground", request=p.GroundRequest, answer=p.GroundAnswer, max_tokens=2048),
    Operation(name="reconcile", request=p.ReconcileRequest, answer=p.ReconcileAnswer, max_tokens=2048),
    Operation(name="plan_groups", request=p.PlanRequest, answer=p.PlanAnswer, max_tokens=4096),
    Operation(name="rewrite_group", request=p.RewriteRequest, answer=p.RewriteAnswer, max_tokens=2048),
    Operation(name="audit", request=p.AuditRequest, answer=p.AuditAnswer, max_tokens=2048),
    Operation(name="rewrite_block", request=p.BlockRequest, answer=p.BlockAnswer, max_tokens=8192),
)}


class OperationsMixin:
    """The protocol's eight methods, each one `self._ask(operation, request)`: a model-backed helper
    implements `_ask` only."""

    def extract(self, request: p.ExtractRequest) -> p.ExtractAnswer:
        return self._ask(OPERATIONS["extract"], request)

    def vet(self, request: p.VetRequest) -> p.VetAnswer:
        return self._ask(OPERATIONS["vet"], request)

    def ground(self, request: p.GroundRequest) -> p.GroundAnswer:
        return self._ask(OPERATIONS["ground"], request)

    def reconcile(self, request: p.ReconcileRequest) -> p.ReconcileAnswer:
        return self._ask(OPERATIONS["reconcile"], request)

    def plan_groups(self, request: p.PlanRequest) -> p.PlanAnswer:
        return self._ask(OPERATIONS["plan_groups"], request)

    def rewrite_group(self, request: p.RewriteRequest) -> p.RewriteAnswer:
        return self._ask(OPERATIONS["rewrite_group"], request)

    def audit(self, request: p.AuditRequest) -> p.AuditAnswer:
        return self._ask(OPERATIONS["audit"], request)

    def rewrite_block(self, request: p.BlockRequest) -> p.BlockAnswer:
        return self._ask(OPERATIONS["rewrite_block"], request)


class ModelHelper(OperationsMixin):
    """A model-backed helper: `name` ("provider:model"), `usage`, and its limits (core/helper/deadline.py).
    The command's budget starts when the helper is made: a command makes its helper once."""

    def __init__(self, name: str, limits: deadline.Limits | None = None) -> None:
        self.name = name
        self.usage = p.HelperUsage()
        self.limits = limits or deadline.Limits.from_env()
        self.budget = deadline.Budget(self.limits.command)

    def request_limit(self, op: Operation) -> tuple[float, deadline.DeadlineError | None]:
        """How long this request may take, and the error to raise when that runs out (deadline.py)."""
        return deadline.request_limit(self.limits, self.budget, op.name)

    def send(self, op: Operation, request: Callable[[float, float], R], *, check: str | None) -> R:
        """`request(timeout, deadline)` within this call's limits; its `CallError` becomes the protocol's
        fault (naming `check` when the key is refused), or the deadline's own error when that ran out."""
        seconds, expired = self.request_limit(op)
        try:
            return request(seconds, time.monotonic() + seconds)
        except CallError as problem:
            if problem.timed_out and expired is not None:
                raise expired from problem  # the call's deadline or the command's budget: not worth a retry
            text = f"{op.name}: {self.name}: {problem}{auth_hint(problem.status, check)}"
            raise problem.helper_error(op.name, text) from problem


def no_answer(op: Operation, *, out_of_tokens: bool, by_tool: bool = True) -> p.InvalidAnswerError:
    """The reply holds no answer: the model stopped at its output budget, or answered some other way."""
    if out_of_tokens:
        why = "ran out of output tokens"
    else:
        why = "did not call the tool" if by_tool else "sent an empty answer"
    where = f" ({op.tool_name})" if by_tool else ""
    return p.InvalidAnswerError(f"{op.name}: the model {why}{where}", operation=op.name)


_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def json_text(content: str | None) -> str:
    """An answer given as JSON text, unwrapped from the code fence small models often put around it."""
    content = (content or "").strip()
    fenced = _FENCE.match(content)
    return fenced.group(1) if fenced else content


def validate(operation: Operation, raw: object):
    """The answer as the operation's model, or `InvalidAnswerError` summarising why it does not validate."""
    try:
        if isinstance(raw, str):  # some servers and proxies hand tool input back as a JSON string
            raw = json.loads(raw)
        # A model's text is data: no escape sequence or control character of it reaches a file or a prompt.
        return operation.answer.model_validate(plain_values(raw))
    except RecursionError:
        raise p.InvalidAnswerError(f"{operation.name}: the model's answer is nested deeper than the JSON parser "
                                   "follows", operation=operation.name) from None
    except (ValidationError, ValueError) as exc:
        summary = "; ".join(line.strip() for line in str(exc).splitlines()[:6])
        raise p.InvalidAnswerError(f"{operation.name}: the model's answer does not validate: {summary}",
                                   operation=operation.name) from exc
