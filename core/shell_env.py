"""What a command the model runs (`run_shell`) is given of agentuse's environment: all of it but credentials.

Whatever a command prints goes into the tool result, and from there into the session log, the next model
request and the run's evidence; a model told (or prompt-injected) to run `env` or `echo $ANTHROPIC_API_KEY`
would send the provider's key to the provider and write it into files a person shares. So the child gets
the environment less:
- the key variables of the providers (the table's, their `_<SUFFIX>` variants, and the run's model's, a
  registered endpoint's `--key-env` included), whatever they hold;
- every secret-named variable (`core/secret_looks.is_secret_name`: `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
  `PGPASSWORD`), and every variable whose value `core/redact.py` would mask (a `sk-ant-...` key under any
  name, a URL with a password), unless it holds absolute paths: `SSH_AUTH_SOCK` and
  `GOOGLE_APPLICATION_CREDENTIALS` say where a credential is, and a Nix `PATH` is store hashes;
- every variable that repeats a value withheld above.
The agent file's `shell_env: [NAME, ...]` lets named variables through (a `gh` command needs `GH_TOKEN`).

A command can still read agentuse's own environment (`/proc/$PPID/environ` on Linux) or a credentials file,
so `secrets` are the values of every variable withheld or let through: the tools mask them in what they
return (core/redact.mask_known), before the model, the log or capture see it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from agentuse.core.models import PROVIDERS, ModelRef, ModelRefError, provider_spec
from agentuse.core.secret_looks import is_secret_name


VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # what an agent file or --key-env may name

# A withheld value this long found under another name is a copy of the credential; a short one (`1`, `true`)
# is a setting many variables share.
_COPIED_MIN = 8


@dataclass(frozen=True)
class ShellEnvironment:
    env: dict[str, str]  # what a command is started with
    secrets: frozenset[str] = field(default_factory=frozenset)  # values masked in what the tools return


def key_variables(model: str | None, env: Mapping[str, str]) -> set[str]:
    """The provider key variables: the table's, and the one the run's model reads (a custom endpoint's)."""
    names = {spec.key_variable for spec in PROVIDERS.values() if spec.key_variable}
    if model:
        try:
            ref = ModelRef.parse(model)
            spec = provider_spec(ref.provider, env)
        except ModelRefError:  # the run refuses such a model before it starts anything
            spec = None
        if spec is not None and (variable := ref.key_variable(spec)):
            names.add(variable)
    return names


def _a_key(name: str, keys: set[str]) -> bool:
    return name in keys or any(name.startswith(f"{key}_") for key in keys)  # ANTHROPIC_API_KEY_DEV


def _paths(value: str) -> bool:
    """An absolute path or a list of them (`PATH`): never the credential itself, though a Nix store hash or a
    macOS temporary folder reads as random to core/redact, and a command without PATH finds no program."""
    return all(part.startswith("/") for part in value.split(os.pathsep) if part)


def shell_environment(env: Mapping[str, str], *, model: str | None = None,
                      let_through: Iterable[str] = ()) -> ShellEnvironment:
    from agentuse.core.redact import redact_text  # its pattern tables, only for a run that starts a tool box

    keys = key_variables(model, env)
    allowed = set(let_through)
    withheld = {name for name, value in env.items() if value and (
        _a_key(name, keys) or (not _paths(value) and (is_secret_name(name) or redact_text(value) != value)))}
    values = {env[name] for name in withheld if len(env[name]) >= _COPIED_MIN}
    withheld |= {name for name, value in env.items() if value in values}
    given = {name: value for name, value in env.items() if name not in withheld or name in allowed}
    return ShellEnvironment(env=given, secrets=frozenset(v for n, v in env.items() if n in withheld and v))
