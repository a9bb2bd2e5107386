"""`agentuse doctor <agent-file>`: is this agent healthy, and what does its learning cost?"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import say


def doctor(agent_file: Annotated[Path, typer.Argument(help="The agent file (.agentuse).", show_default=False)]) -> None:
    """Check an agent file and report its learning: applied, stale, quarantined, cost, where it lives."""
    from agentuse.cli.common import described
    from agentuse.core.status_text import render_doctor_learning

    agent, _, report = described(agent_file)
    say(f"agent: {report.agent}")
    say(f"  agent file: ok ({agent.path})")
    say(f"  model: {agent.model or 'not set'}{_key_note(agent.model, judges=agent.helper_model == agent.model)}")
    if agent.learning is None:
        say("  learning: not configured (checked Learn notes are still stored; they apply once learning.apply is on)")
    else:
        config = agent.learning
        channels = [*config.capture.addons] + (["custom"] if config.capture.custom else []) + (
            ["agent"] if config.capture.agent else []
        )
        capture = ", ".join(channels) if channels else "no automatic channel (human corrections only)"
        if not config.capture.enabled:
            capture = "off"
        say(f"  learning: apply {'on' if config.apply else 'off'}, capture: {capture}, max {config.max}")
        helper = agent.helper_model
        if helper and helper != agent.model:
            say(f"  helper model: {helper}{_key_note(helper, runs=False)}")
        say(f"  judge: {_judge(helper)}")
    for notice in report.notices:
        say(f"  notice: {notice}")
    for line in render_doctor_learning(report, str(agent_file)):
        say(f"  {line}")


def _judge(helper: str | None) -> str:
    """Which judge vets and tidies: the helper model, or the offline evaluator and why."""
    from agentuse.core.helper.factory import OFFLINE, offline_reason
    from agentuse.core.models import ModelRef

    reason = offline_reason(helper, os.environ)
    if reason is not None:
        return f"the embedded offline evaluator ({reason})"
    if ModelRef.parse(helper or "").provider == OFFLINE:
        return "the embedded offline evaluator (chosen: offline:)"
    return f"the model {helper}"


def _key_note(model: str | None, *, judges: bool = True, runs: bool = True) -> str:
    """The provider behind `model`, the URL it will call when that is not the provider's public default
    (a local or custom endpoint, a base-URL variable, Bedrock's region), and whether its key is set.
    `runs`: the agent's own model, which runs need; a helper model only ever makes helper calls."""
    from agentuse.core.models import PROVIDERS, Family, ModelRef, ModelRefError, endpoint, missing_key, provider_spec
    from agentuse.core.models import request_url, unknown_provider, url_problem

    env = os.environ
    try:
        ref = ModelRef.parse(model or "")
    except ModelRefError:
        return ""
    spec = provider_spec(ref.provider, env)
    if spec is None:
        return f" ({unknown_provider(ref.provider)})"
    if spec.family in (Family.replay, Family.offline):
        return ""
    where = endpoint(ref, env)
    custom = ref.provider not in PROVIDERS
    parts = [f"provider {ref.provider}"] + (["custom"] if custom else [])
    problem = url_problem(where, env)
    if problem:  # never the URL itself: it may hold a password
        return f" ({', '.join(parts)}, {problem})"
    fallback = "; helper calls fall back to the embedded offline evaluator" if judges else ""
    if spec.family is Family.bedrock:
        from agentuse.core import bedrock

        url = request_url(where, bedrock.region(env))
        parts.append(f"calls {url}" if url else "no AWS region is set (AWS_REGION)")
        source = bedrock.credential_source(env)
        role = ("an instance or container role is asked when a call is made"
                + (", else helper calls run on the embedded offline evaluator" if judges else ""))
        parts.append(f"AWS credentials from {source}" if source else f"no AWS credentials found in the "
                     f"environment or ~/.aws: {role}")
        return f" ({', '.join(parts)})"
    moved = bool(spec.base_url_variable and (env.get(spec.base_url_variable) or "").strip())
    if spec.local or custom or moved:
        parts.append(f"calls {request_url(where)}")
    variable = missing_key(ref, spec, env)
    if variable:
        parts.append(f"{variable} is not set: runs need it{fallback}" if runs
                     else f"{variable} is not set: helper calls fall back to the embedded offline evaluator")
    elif where.api_key:
        parts.append(f"{ref.key_variable(spec)} set")
    elif not spec.key_required:
        parts.append("no key needed")
    return f" ({', '.join(parts)})"
