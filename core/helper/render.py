"""Requests rendered as the user message a model reads, and the prompt files loaded beside them.

Untrusted text (the contract, the trace, rule text) goes inside XML-style tags so the model can tell
data from instructions, and cannot write those tags itself: where it holds one (a tool result that says
`</trace>`, a rule that opens `<rule human="yes">`), its `<` is sent as `&lt;` (`data`). The contract is never truncated (spec: "The vet sees the whole contract");
only the trace and the reviewed output are bounded, keeping their head and tail, because a run and a
model's output can be arbitrarily long.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from agentuse.core.helper import protocol as p
from agentuse.core.helper.operations import OPERATIONS as _TABLE

# Generous: a trace is evidence, and the end of a run (where the outcome is) matters as much as the start.
MAX_TRACE_CHARS = 120_000
# The work a note was left on: what grounds the note, not evidence to weigh; the head and tail place it.
MAX_REVIEWED_OUTPUT_CHARS = 40_000
_TRACE_HEAD_SHARE = 1 / 3

OPERATIONS = tuple(_TABLE)  # the operation names, in the table's order


# Every prompt file asks for a forced tool call in these words; a provider answering by JSON-schema
# response format (core/helper/openai_compat.py) reads the other instruction instead.
_BY_TOOL = "Answer by calling the tool once"
_BY_JSON = "Answer with one JSON object matching the response schema, once"


@cache
def prompt(operation: str, *, json_answer: bool = False) -> str:
    """The system prompt of one operation: its text file, with the shared rule-writing style spliced in."""
    folder = resources.files("agentuse.core.helper") / "prompts"
    text = (folder / f"{operation}.txt").read_text(encoding="utf-8")
    style = (folder / "rule_style.txt").read_text(encoding="utf-8").strip()
    text = text.replace("{{RULE_STYLE}}", style).strip()
    return text.replace(_BY_TOOL, _BY_JSON) if json_answer else text


# Every tag this module writes; a longer name first, so `rules_in_force` is not read as `rules`.
_TAGS = ("capture_guidance", "contract", "rules_in_force", "rules", "rule", "trace", "candidates", "candidate",
         "reviewer_comment", "reviewed_output", "new_rule", "originals", "rewritten", "draft", "learned_block")
_OUR_TAG = re.compile(r"<(?=/?(?:" + "|".join(_TAGS) + r")(?![\w-]))", re.IGNORECASE)


def data(text: str) -> str:
    """Text for inside a section: it cannot close its section or open another."""
    return _OUR_TAG.sub("&lt;", text) if "<" in text else text


def bound_trace(trace: str, limit: int = MAX_TRACE_CHARS, *, what: str = "trace") -> str:
    if len(trace) <= limit:
        return trace
    head = int(limit * _TRACE_HEAD_SHARE)
    tail = limit - head
    omitted = len(trace) - head - tail
    return f"{trace[:head]}\n[... {omitted} characters of the {what} omitted ...]\n{trace[-tail:]}"


def _attrs(**values: object) -> str:
    return "".join(f' {k}="{v}"' for k, v in values.items() if v not in (None, "", False, 0))


def rule(ref: p.RuleRef) -> str:
    words = len(ref.text.split())
    attrs = _attrs(id=ref.id, category=ref.category.value, human="yes" if ref.human else None,
                   re=ref.re, commented=ref.commented, ok=ref.ok, injected=ref.injected, date=ref.date, words=words)
    return f"<rule{attrs}>\n{data(ref.text)}\n</rule>"


def rules(refs: list[p.RuleRef], tag: str = "rules_in_force") -> str:
    inner = "\n".join(rule(r) for r in refs) if refs else "(none)"
    return f"<{tag}>\n{inner}\n</{tag}>"


def draft(d: p.Draft, tag: str = "draft", **attrs: object) -> str:
    body = d.body.strip()
    text = d.title if not body or body == d.title else f"{d.title}\n{body}"
    return f"<{tag}{_attrs(category=d.category.value, **attrs)}>\n{data(text)}\n</{tag}>"


def section(tag: str, text: str) -> str:
    return f"<{tag}>\n{data(text)}\n</{tag}>"


def render(operation: str, request: p.BaseModel) -> str:
    """The user message for one operation. Each branch names every field of its request."""
    r = request
    if isinstance(r, p.ExtractRequest):
        parts = [section("capture_guidance", r.guidance), section("contract", r.contract),
                 rules(r.rules_in_force), section("trace", bound_trace(r.trace))]
    elif isinstance(r, p.VetRequest):
        cands = "\n".join(
            f"<candidate{_attrs(id=c.id, category=c.category.value, human='yes' if c.human else None)}>\n"
            f"{data(c.text)}\n</candidate>"
            for c in r.candidates
        )
        parts = [section("contract", r.contract), rules(r.rules_in_force),
                 section("trace", bound_trace(r.trace) or "(no trace recorded)"),
                 f"<candidates>\n{cands}\n</candidates>"]  # each candidate's text is data already
    elif isinstance(r, p.GroundRequest):
        parts = [section("reviewer_comment", r.comment),
                 section("reviewed_output", bound_trace(r.reviewed_output, MAX_REVIEWED_OUTPUT_CHARS,
                                                        what="reviewed output") or "(not available)"),
                 section("contract", r.contract or "(not available)")]
    elif isinstance(r, p.ReconcileRequest):
        parts = [draft(r.draft, "new_rule", human="yes" if r.draft_is_human else None),
                 rules(r.rules_in_force), f"cap_full: {'yes' if r.cap_full else 'no'}"]
    elif isinstance(r, p.PlanRequest):
        parts = [rules(r.rules, "rules")]
    elif isinstance(r, p.RewriteRequest):
        parts = [f"move: {r.kind.value}", rules(r.originals, "originals")]
    elif isinstance(r, p.AuditRequest):
        parts = [rules(r.originals, "originals"), draft(r.rewritten, "rewritten")]
    elif isinstance(r, p.BlockRequest):
        parts = [rules(r.rules, "learned_block")]
    else:  # a new operation must be rendered explicitly, not guessed at
        raise TypeError(f"no rendering for {operation} ({type(r).__name__})")
    return "\n\n".join(parts)
