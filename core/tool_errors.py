"""The `tool-errors` channel (spec: Advanced: Automatic Capture Channels): code, no model.

A record is produced only when the trace holds a failed call, a later successful call of the same tool,
and a different input on that retry. The verification is the point: these records carry mechanics, not
policy, so they skip the model-judged vet and never go through free-text merging. They dedupe by
(tool, normalized failure signature) and supersede structurally (see `fold_into`).

Pairing: a failure pairs with the *next call of the same tool*. Calls of other tools may come between
(an agent that lists a folder to find the right path and then retries has corrected itself); a second
failure of the same tool in between means the first failure was not what got corrected, so the later
failure pairs instead. Within one run the last recovery of a failure mode is kept: it is the one the run
ended up relying on.

Values where they are the lesson, shapes where they are not. The spec's example stores the corrected call
itself (`{"path":"/Users/me/shot.png"}`): a shape alone would not tell the agent what to do differently.
Only the fields the retry changed are kept (a write_file retried with a corrected path keeps `path`, not
the whole document it wrote), and long strings are clipped. A value is shown as its JSON type instead
(`{"command":<string>}`, the shape upstream always stores, DESIGN.md) when it is sensitive (it held a
credential: the trace is redacted as it is built, core/redact.py) or one-off (it carries a run-specific
id: a uuid, ULID, hash, date or long number, as in `posts/2026-08-19-focus-3fa85f64.md`). A one-off
value is not the rule: stored literally it would be "corrected" by every later run (a supersede each
time) and could graduate as if that file name were the lesson; as a shape the record refreshes instead.
The signature is computed from the redacted error, so the dedupe key (tool, sig) names the failure mode
and not the credential: another password for the same command is the same record.

The run's model writes these calls, and the record skips the vet: its text must not pass for structure
or hide what it says. The signature keeps only what a screen shows (terminal_text.plain); a value in the
shape is JSON, and a character no screen shows or that breaks a line (U+2028, a bidi override, a tag
character) is written as its \\u escape, the same JSON value, so it cannot start a line of the prompt.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from agentuse.core.learning import RULE_CHAR_LIMIT, Category, Channel, Learning, State
from agentuse.core.redact import REDACTED, redact_text, redact_value
from agentuse.core.terminal_text import plain
from agentuse.core.trace import ToolTrace, TraceCall, canonical_json

SIG_CHARS = 120
VALUE_CHARS = 200

# Order matters: whole tokens (quoted text, paths, uuids, ids) collapse before bare digit runs do.
_NOISE = [
    re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`"),  # quoted values: file names, user input
    # paths and urls: any token with a slash, trailing punctuation kept (`open /tmp/x: denied`)
    re.compile(r"[^\s\"'`]*[/\\][^\s\"'`]*?(?=[,;:.)\]]*(?:\s|$))"),
    re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),  # uuids
    re.compile(r"\b[0-9a-hjkmnp-tv-z]{26}\b"),  # ulids (session ids)
    re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b"),  # hex ids and hashes
    re.compile(r"(?<![a-z_])\d+(?:[.,:]\d+)*"),  # numbers not glued to a word (utf8 stays utf8)
]
_HASH_RUNS = re.compile(r"#(?:[\s,]*#)+")
# What makes a string value run-specific (a one-off): the id-like parts of `_NOISE`, dates, long numbers.
_ONE_OFF = re.compile("|".join([
    r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
    r"\b(?=[0-9a-z]*\d)(?=[0-9a-z]*[a-z])[0-9a-hjkmnp-tv-z]{26}\b",
    r"\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b",
    r"\d{4}-\d{2}-\d{2}",
    r"\d{6,}",
]), re.I)


class Recovery(BaseModel):
    """A failed call and the corrected call that succeeded, verified in code."""

    tool: str
    sig: str
    failed: TraceCall
    succeeded: TraceCall


def signature(error: str) -> str:
    """The failure mode: first non-blank line, lower-cased, run-specific noise (quoted values, paths,
    ids, numbers) replaced by `#`, whitespace collapsed. Computed in code so the same failure keys the
    same record across runs; a model-worded signature would vary and dedupe would never fire."""
    line = plain(redact_text(next((ln for ln in error.splitlines() if ln.strip()), ""))).lower()
    for pattern in _NOISE:
        line = pattern.sub("#", line)
    line = _HASH_RUNS.sub("#", " ".join(line.split()))
    return line[:SIG_CHARS].strip()


def recoveries(trace: ToolTrace) -> list[Recovery]:
    """Every verified recovery in a run, one per (tool, signature)."""
    found: dict[tuple[str, str], Recovery] = {}
    calls = trace.calls
    for index, failed in enumerate(calls):
        if not failed.failed:
            continue
        retry = next((c for c in calls[index + 1:] if c.tool == failed.tool), None)
        if retry is None or not retry.succeeded:
            continue
        if canonical_json(retry.input) == canonical_json(failed.input):
            # the same call happened to work: flakiness, not a lesson. Inputs are compared redacted, so a
            # retry that changed only a credential is the same call too: "use the right key" cannot be stored.
            continue
        sig = signature(failed.error or "")
        if not sig:
            continue
        found[(failed.tool, sig)] = Recovery(tool=failed.tool, sig=sig, failed=failed, succeeded=retry)
    return list(found.values())


def one_off(value: str) -> bool:
    return bool(_ONE_OFF.search(value))


def shown(value: Any) -> str:
    """A call input as a rule shows it: canonical JSON, with each sensitive or one-off string as its type."""
    return _shape(redact_value(value))  # a trace is redacted already; a caller's own input may not be


def _visible(json_text: str) -> str:
    """`json_text` with every character str.isprintable refuses (line and paragraph separators, format and
    control characters) as its JSON escape: the same value, on one line, every character shown."""
    if json_text.isprintable():
        return json_text
    return "".join(char if char.isprintable() else json.dumps(char)[1:-1] for char in json_text)


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{_visible(json.dumps(str(k), ensure_ascii=False))}:{_shape(v)}"
                              for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_shape(v) for v in value) + "]"
    if isinstance(value, str):
        if REDACTED in value or one_off(value):
            return "<string>"
        return _visible(canonical_json(value if len(value) <= VALUE_CHARS else value[:VALUE_CHARS] + "…"))
    return canonical_json(value)


class StructuralRecord(BaseModel):
    """The fields a recovery contributes; capture stamps the rest (id, ih, sess, date)."""

    title: str
    body: str
    tool: str
    sig: str
    evidence: str
    category: Category = Category.error_fix
    confidence: float = 1.0


def changed_fields(failed: Any, succeeded: Any) -> tuple[Any, Any]:
    """The part of each input that the retry changed: the correction itself. Inputs that are not both
    objects, or retries that only dropped fields, are kept whole."""
    if not (isinstance(failed, dict) and isinstance(succeeded, dict)):
        return failed, succeeded
    keys = [k for k in {**failed, **succeeded} if failed.get(k, _MISSING) != succeeded.get(k, _MISSING)]
    if not any(k in succeeded for k in keys):
        return failed, succeeded  # the fix was dropping fields: only the whole call shows what to send
    return ({k: failed[k] for k in keys if k in failed}, {k: succeeded[k] for k in keys if k in succeeded})


_MISSING = object()


def record_for(recovery: Recovery) -> StructuralRecord:
    failed_part, succeeded_part = changed_fields(recovery.failed.input, recovery.succeeded.input)
    corrected = shown(succeeded_part)
    body = f'When {recovery.tool} fails with "{recovery.sig}", use the corrected call shape that succeeded: {corrected}'
    if len(body) > RULE_CHAR_LIMIT:
        body = body[: RULE_CHAR_LIMIT - 1] + "…"
    return StructuralRecord(
        title=f"{recovery.tool}: {recovery.sig}",
        body=body,
        tool=recovery.tool,
        sig=recovery.sig,
        evidence=f"failed: {shown(failed_part)} → succeeded: {corrected}",
    )


class Fold(BaseModel):
    """What one structural record does to a store: add, refresh an existing record, supersede one, or
    nothing (the failure mode is already permanent in the agent file)."""

    action: str  # "add" | "refresh" | "supersede" | "permanent"
    existing: Learning | None = None


def fold_into(learnings: list[Learning], record: StructuralRecord) -> Fold:
    """One record per failure mode. The same corrected call again refreshes its stamps; a different
    corrected call supersedes the old one (the newest confirmed recovery is the one that still works
    against the tool as it is now; the old copy goes to the archive)."""
    for rule in learnings:
        if rule.ch is not Channel.tool_errors or rule.tool != record.tool or rule.sig != record.sig:
            continue
        if rule.state is State.graduated:
            return Fold(action="permanent", existing=rule)
        if rule.body.strip() == record.body.strip():
            return Fold(action="refresh", existing=rule)
        return Fold(action="supersede", existing=rule)
    return Fold(action="add")
