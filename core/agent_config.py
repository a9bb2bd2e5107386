"""The `learning:` frontmatter key (spec: Configuration Options, Upgrading an existing agent).

Two layers of models: `_LearningSpec`/`_CaptureSpec` mirror what a user may write and reject anything
else (nothing is silently ignored); `LearningConfig`/`CaptureConfig` are what the rest of agentuse reads,
with sugar expanded and the capture agent's path resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from pydantic import field_validator, model_validator

from agentuse.core.learning import DEFAULT_MAX, MAX_RANGE
from agentuse.core.models import ModelRef
from agentuse.core.model_defaults import empty_list
from agentuse.core.terminal_text import shell_word

ADDONS = ("tool-errors",)

# Spec wording, verbatim (Configuration Options).
CRITERIA_REMOVED = (
    '"criteria" was removed — free-form capture is opt-in now. To restore scoped\n'
    'free-form capture, move it to capture: { custom: "..." }'
)
BOTH_SET = 'set either "custom" (built-in evaluator) or "agent" (agent file), not both'
EVALUATE_REMOVED = (
    '"evaluate" was removed in v0.17.0 (long deprecated) — delete it. Human feedback is saved through '
    'Learn or --remember; to observe runs automatically, name a channel under capture: '
    '(addons: [tool-errors], custom: "..." or agent: ./file.agentuse)'
)
FILE_REMOVED = (
    '"file" was removed in v0.17.0 — learnings now live in the AgentUse state directory, not at a path '
    "you choose. Delete the key; `agentuse learnings {agent} --path` prints where they are, and "
    "`agentuse learnings migrate --all` moves learnings kept beside the agent file"
)

# One-time notices (spec: Upgrading an existing agent): the faithful mapping is safer, so warn and go on.
LEARNING_TRUE_NOTICE = (
    "learning: true means learning: { capture: true, apply: true }: learnings saved through "
    "Learn from this comment, --remember or manual add are applied, and automatic observation stays off "
    'as of v0.19.0. To restore scoped free-form capture, name it: capture: { custom: "..." }'
)
CAPTURE_TRUE_NOTICE = (
    "capture: true used to mean free-form auto-capture; as of v0.19.0 it (like capture: {}) enables no "
    "automatic observation channel. Human feedback is saved through Learn from this comment, --remember or "
    'manual add. To restore scoped free-form capture, use capture: { custom: "..." }'
)
NOTICE_KEYS = {LEARNING_TRUE_NOTICE: "learning-true", CAPTURE_TRUE_NOTICE: "capture-true"}


@dataclass
class CaptureConfig:
    """Automatic observation. `enabled` with no channel named is the default: human learning only. This and
    LearningConfig are what `_LearningSpec` validated, as plain values: built here only, never read from
    outside, so pydantic would only cost their schemas on every command that reads an agent file."""

    enabled: bool = True
    addons: list[str] = field(default_factory=list)
    custom: str | None = None
    agent: Path | None = None  # absolute, resolved against the declaring agent file's folder

    @property
    def channels(self) -> list[str]:
        """The automatic channels that run after each run, in spec order (addons, custom, agent)."""
        if not self.enabled:
            return []
        return [*self.addons, *(["custom"] if self.custom else []), *(["agent"] if self.agent else [])]


@dataclass
class LearningConfig:
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    apply: bool = True
    max: int = DEFAULT_MAX
    model: str | None = None

    @classmethod
    def off(cls) -> LearningConfig:
        """`learning: false`: an explicit opt-out, kept distinct from an absent key (None) so surfaces can
        say which one the user wrote. Both capture nothing automatically and inject nothing."""
        return cls(capture=CaptureConfig(enabled=False), apply=False)


def _known_addon(name: str) -> str:
    if name not in ADDONS:
        raise ValueError(f'unknown capture addon "{name}"; allowed: {", ".join(ADDONS)}')
    return name


def _no_null(value: Any) -> Any:
    # `custom:` with nothing after it parses as null; treating it as "unset" would silently drop a
    # channel the user meant to configure.
    if value is None:
        raise ValueError("has no value; give it one or delete the key")
    return value


def check_model(value: str | None) -> str | None:
    """The syntax only: whether the provider is known depends on the environment (custom endpoints)."""
    if value is not None:
        ModelRef.parse(value)  # ModelRefError is a ValueError: pydantic reports it at the key
    return value


class _CaptureSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    addons: list[Annotated[StrictStr, AfterValidator(_known_addon)]] = Field(default_factory=empty_list)
    custom: StrictStr | None = None
    agent: StrictStr | None = None

    _null = field_validator("addons", "custom", "agent", mode="before")(_no_null)

    @field_validator("custom", "agent")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("is empty; write what it should hold or delete the key")
        return value

    @model_validator(mode="after")
    def _one_evaluator(self) -> _CaptureSpec:
        if self.custom is not None and self.agent is not None:
            raise ValueError(BOTH_SET)
        return self


class _LearningSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    capture: _CaptureSpec | None = Field(default_factory=_CaptureSpec)  # None = capture: false
    apply: StrictBool = True
    max: Annotated[StrictInt, Field(ge=MAX_RANGE[0], le=MAX_RANGE[1])] = DEFAULT_MAX
    model: StrictStr | None = None

    _null = field_validator("model", mode="before")(_no_null)
    _model = field_validator("model")(check_model)

    @field_validator("capture", mode="before")
    @classmethod
    def _capture_sugar(cls, value: Any) -> Any:
        if value is True:
            return {}
        if value is False:
            return None
        if isinstance(value, dict):
            return value
        raise ValueError("must be true, false, or an object with addons, custom or agent")


class Located(Exception):
    """A problem with its path inside the frontmatter; agent_file turns the path into a line number."""

    def __init__(self, path: tuple, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def parse_learning(raw: Any, *, agent_path: Path) -> tuple[LearningConfig, list[str]]:
    """Validate the value of `learning:`; return the config and the notices it earns.
    Raises `Located` for a removed key (hard error by name) and pydantic's ValidationError otherwise."""
    if raw is True:
        return LearningConfig(), [LEARNING_TRUE_NOTICE]
    if raw is False:
        return LearningConfig.off(), []
    if raw is None:
        raise Located(("learning",), "learning has no value; write learning: true, learning: false, or an object")
    if not isinstance(raw, dict):
        raise Located(("learning",), "learning must be true, false, or an object with capture, apply, max, model")
    _reject_removed(raw, agent_path)
    spec = _LearningSpec.model_validate(raw)
    notices = [CAPTURE_TRUE_NOTICE] if raw.get("capture") is True or raw.get("capture") == {} else []
    return _config(spec, agent_path=agent_path), notices


def _reject_removed(raw: dict, agent_path: Path) -> None:
    # Checked before pydantic so the user reads why the key is gone, not "unknown key".
    if "criteria" in raw:
        raise Located(("learning", "criteria"), CRITERIA_REMOVED)
    if "evaluate" in raw:
        raise Located(("learning", "evaluate"), EVALUATE_REMOVED)
    if "file" in raw:
        raise Located(("learning", "file"), FILE_REMOVED.format(agent=shell_word(agent_path)))
    capture = raw.get("capture")
    if isinstance(capture, dict) and "criteria" in capture:
        raise Located(("learning", "capture", "criteria"), CRITERIA_REMOVED)


def _config(spec: _LearningSpec, *, agent_path: Path) -> LearningConfig:
    if spec.capture is None:
        capture = CaptureConfig(enabled=False)
    else:
        capture = CaptureConfig(
            addons=list(dict.fromkeys(spec.capture.addons)),  # a repeated name is one channel
            custom=spec.capture.custom,
            agent=_resolve_capture_agent(spec.capture.agent, agent_path) if spec.capture.agent else None,
        )
    return LearningConfig(capture=capture, apply=spec.apply, max=spec.max, model=spec.model)


def _resolve_capture_agent(value: str, agent_path: Path) -> Path:
    # Relative to the declaring file, not the working directory, so the agent runs the same from anywhere.
    path = Path(value).expanduser()
    resolved = (path if path.is_absolute() else agent_path.resolve().parent / path).resolve()
    if not resolved.is_file():
        raise Located(
            ("learning", "capture", "agent"),
            f"capture agent {value} not found (looked for {resolved}); the path is relative to this agent file",
        )
    return resolved
