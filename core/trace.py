"""A finished run as the capture pipeline reads it: its tool calls in order, and its evidence as text.

core never reads session logs (the runtime owns their format); the runtime converts a log into this
model (`agentuse.runtime.trace.trace_from_session`), and everything downstream — the tool-errors
channel, the evaluator, the vet, a capture agent — works from it alone.

So a trace is redacted as it is built (core/redact.py): no credential the run handled (a `run_shell`
command's `--password`, a token in the prompt, a key a tool printed) reaches a record, a helper prompt or
a capture agent. A value recognised anywhere in the run is masked wherever else it appears, which
catches an error message that echoes a password with nothing around it to recognise it by.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, model_validator

from agentuse.core.clip import clip
from agentuse.core.redact import environment_secrets, mask_known_value, redact_value
from agentuse.core.model_defaults import empty_list

# Per-field clip when the evidence is rendered from calls: a tool that returned a whole file must not
# crowd the rest of the run out of the bounded trace the helper sees.
_FIELD_CHARS = 2_000


class TraceCall(BaseModel):
    """One tool call and what came back."""

    call_id: str
    tool: str
    input: Any = None
    ok: bool | None = Field(None, description="True: succeeded; False: failed; None: no result recorded")
    error: str | None = None
    output: str | None = None

    @property
    def failed(self) -> bool:
        return self.ok is False

    @property
    def succeeded(self) -> bool:
        return self.ok is True


class ToolTrace(BaseModel):
    """What a run did, in order. `transcript` is the run's evidence as the runtime rendered it
    (prompt, replies, tool calls and results); when absent it is rebuilt from the calls."""

    session: str | None = None
    agent_key: str | None = None
    prompt: str = ""
    output: str = ""  # the final output, or the output a reviewer saw at the gate
    calls: list[TraceCall] = Field(default_factory=empty_list)
    transcript: str = ""

    @model_validator(mode="after")
    def _redacted(self) -> "ToolTrace":
        found = environment_secrets()
        text = {"prompt": self.prompt, "output": self.output, "transcript": self.transcript,
                "calls": [{"input": c.input, "error": c.error, "output": c.output} for c in self.calls]}
        text = mask_known_value(redact_value(text, found), found)
        self.prompt, self.output, self.transcript = text["prompt"], text["output"], text["transcript"]
        self.calls = [call.model_copy(update=clean) for call, clean in zip(self.calls, text["calls"], strict=True)]
        return self

    def evidence(self) -> str:
        if self.transcript.strip():
            return self.transcript
        parts = [f"PROMPT:\n{self.prompt}"] if self.prompt else []
        for call in self.calls:
            parts.append(f"TOOL CALL {call.tool} {canonical_json(call.input)}")
            if call.failed:
                parts.append(f"TOOL ERROR {call.tool}: {clip(call.error or '', _FIELD_CHARS)}")
            elif call.succeeded:
                parts.append(f"TOOL RESULT {call.tool}: {clip(call.output or '', _FIELD_CHARS)}")
        if self.output:
            parts.append(f"OUTPUT:\n{self.output}")
        return "\n".join(indented(part) for part in parts)


# The entries of the evidence that hold the run's own text (runtime/trace.py and `evidence` write them): what
# a tool returned, what the run's model said or submitted. Data to judge the run by, never a person's words.
RUN_TEXT_MARKERS = ("ASSISTANT:", "TOOL CALL", "TOOL RESULT", "TOOL ERROR", "SUBMITTED FOR REVIEW:",
                    "FINAL OUTPUT:", "OUTPUT:", "RUN ENDED")


def outside_run_text(evidence: str) -> list[str]:
    """The lines of `evidence` not inside an entry of the run's own text: an entry starts at a line the
    runtime wrote (unindented: `indented`), and its continuation lines are indented."""
    lines, skipping = [], False
    for line in evidence.splitlines():
        if line[:1] not in (" ", "\t", ""):
            skipping = line.startswith(RUN_TEXT_MARKERS)
        if not skipping:
            lines.append(line)
    return lines


def indented(entry: str) -> str:
    """One entry of the evidence (a marker and the run's text it holds) with every line after its first
    indented, at every kind of line break (str.splitlines: \\r, U+2028, ...): only the runtime starts a line
    of the evidence, so a file holding "REVIEWER (revise): ..." is never read as a reviewer's comment."""
    return "\n  ".join(entry.splitlines())


def canonical_json(value: Any) -> str:
    """One spelling per input: the tool-errors channel compares inputs by this text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


