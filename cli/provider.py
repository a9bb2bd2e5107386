"""`agentuse provider add|list|remove`: custom OpenAI-compatible endpoints, kept in the user's config."""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from agentuse.cli.common import say

app = typer.Typer(help="Custom OpenAI-compatible endpoints (vLLM, llama.cpp, a gateway), and every provider's variables.",
                  no_args_is_help=True)


@app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The provider name, as written in models: NAME:<model>.", show_default=False)],
    url: Annotated[str, typer.Option("--url", help="The base URL, e.g. http://localhost:8000/v1.", show_default=False)],
    key_env: Annotated[Optional[str], typer.Option(
        "--key-env", help="The environment variable holding its key (never the key itself).", show_default=False)] = None,
) -> None:
    """Register an OpenAI-compatible endpoint, so `model: NAME:<model>` runs on it."""
    from pydantic import ValidationError

    from agentuse.core import provider_config
    from agentuse.core.errors import AgentuseError
    from agentuse.core.models import PROVIDERS

    if name.lower() in PROVIDERS:
        spec = PROVIDERS[name.lower()]
        where = f"set {spec.base_url_variable}" if spec.base_url_variable else "it has no URL to set"
        raise AgentuseError(f'"{name}" is a built-in provider: to point it elsewhere {where}')
    try:
        entry = provider_config.CustomProvider(name=name, url=url, key_env=key_env)
    except ValidationError as problem:
        raise AgentuseError(problem.errors()[0]["msg"].removeprefix("Value error, ")) from None
    path = provider_config.add(entry)
    key = f", key from ${entry.key_env}" if entry.key_env else ", no key"
    say(f"Added {entry.name}: {entry.url}{key} ({path}). Use it as model: {entry.name}:<model>")


@app.command("list")
def list_() -> None:
    """Every provider: its endpoint, the variable of its key, and whether that is set here."""
    from agentuse.core import provider_config
    from agentuse.core.models import PROVIDERS, Family, ModelRef, bedrock_endpoint, endpoint, url_problem

    rows = [name for name, spec in PROVIDERS.items() if spec.family not in (Family.offline, Family.replay)]
    rows += [p.name for p in provider_config.load().providers if p.name not in PROVIDERS]
    for name in rows:
        where = endpoint(ModelRef(provider=name, model="-"), os.environ)
        spec = where.spec
        url = url_problem(where, os.environ) or where.base_url or "the SDK default"  # never a URL with a password
        if spec.family is Family.bedrock:
            from agentuse.core import bedrock

            region, source = bedrock.region(os.environ), bedrock.credential_source(os.environ)
            url = (url_problem(where, os.environ) or where.base_url or bedrock_endpoint(region)
                   or "the region's endpoint (AWS_REGION not set)")
            key = f", AWS credentials from {source}" if source else ", no AWS credentials found"
        elif spec.key_variable is None:
            key = ""
        elif where.api_key:
            key = f", {spec.key_variable} set"
        else:
            key = f", {spec.key_variable} {'not set' if spec.key_required else 'not needed'}"
        custom = "" if name in PROVIDERS else " (custom)"
        say(f"{name}{custom}: {url}{key}")


@app.command("remove")
def remove(name: Annotated[str, typer.Argument(help="A provider added with agentuse provider add.", show_default=False)]) -> None:
    """Forget a custom endpoint."""
    from agentuse.core import provider_config

    path = provider_config.remove(name)
    say(f"Removed {name} ({path}).")
