"""Custom OpenAI-compatible endpoints the user registered (`agentuse provider add NAME --url URL`), kept in
their config: `$AGENTUSE_CONFIG_DIR/providers.json`, else `$XDG_CONFIG_HOME/agentuse/`, else
`~/.config/agentuse/`. Never a key: an entry names the environment variable that holds it.

`<NAME>_BASE_URL` in the environment wins over an entry, so a shell can point a provider elsewhere.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, field_validator

from agentuse.core.errors import AgentuseError
from agentuse.core.location import home
from agentuse.core.model_defaults import empty_list
from agentuse.core.models import Family, base_url_problem
from agentuse.core.shell_env import VARIABLE_NAME

CONFIG_DIR_VARIABLE = "AGENTUSE_CONFIG_DIR"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class CustomProvider(BaseModel):
    name: str
    url: str
    key_env: str | None = Field(None, description="the environment variable holding the key, if one is needed")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError(f"{value!r} is not a provider name: use lower-case letters, digits, '-', '_' or '.'")
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        problem = base_url_problem(value.strip(), setting="", family=Family.openai_chat,
                                   key_advice="name the variable holding the key with --key-env")
        if problem:
            raise ValueError(problem)
        return value.strip().rstrip("/")

    @field_validator("key_env")
    @classmethod
    def _key_env(cls, value: str | None) -> str | None:
        if value is not None and not VARIABLE_NAME.match(value):
            raise ValueError("--key-env takes the name of an environment variable (e.g. VLLM_API_KEY), "
                             "never the key itself")
        return value


class ProviderFile(BaseModel):
    providers: list[CustomProvider] = Field(default_factory=empty_list)


class NoHomeFolder(AgentuseError):
    """Where the providers file would be, there is no home folder: none to read, and nowhere to save one."""


def config_path() -> Path:
    base = os.environ.get(CONFIG_DIR_VARIABLE) or ""
    if base.strip():
        try:
            path = Path(base).expanduser()
        except RuntimeError:  # ~user for a user there is not: left as given, so refused below
            path = Path(base)
        if not path.is_absolute():
            # Resolved against the cwd, a relative setting would read a different file in each folder.
            raise AgentuseError(f"{CONFIG_DIR_VARIABLE} must be an absolute path, not {base!r}: a relative one "
                                "would find a different providers file in each folder a command is run from")
        return path / "providers.json"
    xdg = os.environ.get("XDG_CONFIG_HOME") or ""
    # The XDG spec says to ignore a relative value, as core/location.py does for XDG_DATA_HOME.
    if xdg.strip() and Path(xdg).is_absolute():
        return Path(xdg) / "agentuse" / "providers.json"
    folder = home()
    if folder is None:
        raise NoHomeFolder(f"there is no home folder to keep the providers file in (HOME is not set, and this user "
                           f"id has no entry in the password database): set {CONFIG_DIR_VARIABLE} to an absolute "
                           "folder")
    return folder / ".config" / "agentuse" / "providers.json"


def load() -> ProviderFile:
    try:
        path = config_path()
    except NoHomeFolder:
        return ProviderFile()
    if not path.is_file():
        return ProviderFile()
    try:
        return ProviderFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as problem:
        first = str(problem).splitlines()[0]
        raise AgentuseError(f"{path} is not a providers file agentuse can read ({first}): fix or delete it") from None


def find(name: str) -> CustomProvider | None:
    return next((p for p in load().providers if p.name == name), None)


def save(doc: ProviderFile) -> Path:
    from agentuse.core.file_access import writing
    from agentuse.core.store import atomic_write

    path = config_path()
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, doc.model_dump_json(indent=2, exclude_none=True) + "\n")
    return path


def add(entry: CustomProvider) -> Path:
    doc = load()
    doc.providers = [p for p in doc.providers if p.name != entry.name] + [entry]
    return save(doc)


def remove(name: str) -> Path:
    doc = load()
    kept = [p for p in doc.providers if p.name != name]
    if len(kept) == len(doc.providers):
        raise AgentuseError(f'no custom provider "{name}" is registered (agentuse provider list shows them)')
    doc.providers = kept
    return save(doc)
