"""The `.agentuse` file: YAML frontmatter between `---` lines, then the markdown instructions.

Loading is strict about the keys agentuse owns (`model`, `approval`, `learning`, `shell_env`) and lets other top-level
keys through untouched (`verify`, `tools`, `description` belong to other runtime features). Every error
names the file and, where it can be known, the 1-based line in the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, StrictBool, StrictStr, ValidationError, field_validator

from agentuse.core.agent_config import (  # noqa: F401  (re-exported: the contract names them here)
    ADDONS,
    CAPTURE_TRUE_NOTICE,
    LEARNING_TRUE_NOTICE,
    NOTICE_KEYS,
    CaptureConfig,
    LearningConfig,
    Located,
    check_model,
    parse_learning,
)
from agentuse.core.agent_errors import AgentFileError, BlockMarkerError  # noqa: F401
from agentuse.core.file_access import read_regular
from agentuse.core.frontmatter import read as read_plain
from agentuse.core.learning import DEFAULT_MAX
from agentuse.core.model_defaults import empty_list
from agentuse.core.shell_env import VARIABLE_NAME
from agentuse.core.learned_block import (  # noqa: F401
    END,
    GUIDANCE,
    HEADING,
    START,
    BlockRule,
    read_block,
    write_block,
)

_FENCE = re.compile(r"^---[ \t]*\r?$")


@dataclass
class AgentFile:
    """A loaded agent file: built by `load_agent` alone, from what it validated (a plain value)."""

    path: Path
    text: str  # the raw file, exactly as read (CRLF and BOM kept) so edits can be byte-exact
    model: str | None = None
    approval: bool = False
    learning: LearningConfig | None = None  # None: no `learning` key; LearningConfig.off(): `learning: false`
    body: str = ""
    notices: list[str] = field(default_factory=list)
    shell_env: list[str] = field(default_factory=list)  # variables run_shell gets though they look secret
    # Every key as YAML read it, for features agentuse does not own (YAML 1.1 may make a key like `on` a bool).
    frontmatter: dict[Any, Any] = field(default_factory=dict)

    @property
    def cap(self) -> int:
        """How many rules this agent keeps (`learning.max`), 15 when learning is not configured."""
        return self.learning.max if self.learning is not None else DEFAULT_MAX

    @property
    def applies(self) -> bool:
        """Whether stored rules reach runs: only with a learning config whose `apply` is on."""
        return bool(self.learning is not None and self.learning.apply)

    @property
    def channels(self) -> list[str]:
        """The automatic capture channels that run after each run; none without a learning config."""
        return self.learning.capture.channels if self.learning is not None else []

    @property
    def helper_model(self) -> str | None:
        """Model for capture, vet and tidy: `learning.model`, else the agent's own."""
        return (self.learning.model if self.learning else None) or self.model


class _Frontmatter(BaseModel):
    model: StrictStr | None = None
    approval: StrictBool = False
    shell_env: list[str] = Field(default_factory=empty_list)

    _model = field_validator("model")(check_model)

    @field_validator("shell_env", mode="before")
    @classmethod
    def _variable_names(cls, value: Any) -> Any:
        # Names only: a value written here would be a credential committed with the agent file.
        if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
            raise ValueError("must be a list of environment variable names, e.g. [GH_TOKEN]")
        for name in value:
            if not VARIABLE_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name (letters, digits and _)")
        return value


def split_frontmatter(text: str, *, filename: str = "<agent file>") -> tuple[str | None, str]:
    """(YAML text or None, body). No opening `---` on the first line means no frontmatter: the whole file
    is instructions. An opening fence without a closing one is an error, not a body starting with `---`."""
    lines = text.split("\n")
    if not _FENCE.match(lines[0].lstrip("\ufeff")):
        return None, text
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index]):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1:])
    raise AgentFileError(
        filename, "the frontmatter opened by --- on line 1 is never closed; add a line with --- after it", line=1
    )


def load_agent(path: Path) -> AgentFile:
    path = Path(path)
    name = str(path)
    try:
        # Bytes, not read_text(): universal newlines would turn CRLF into LF and break byte-exact edits.
        # A FIFO or device is refused before it is opened: opening a FIFO would wait forever.
        text = read_regular(path, "agent file").decode("utf-8")
    except FileNotFoundError:
        raise AgentFileError(name, "no such agent file") from None
    except UnicodeDecodeError as error:
        raise AgentFileError(name, f"is not UTF-8 text ({error.reason} at byte {error.start})") from None
    yaml_text, body = split_frontmatter(text, filename=name)
    raw, lines = _load_yaml(yaml_text or "", name)
    return _build(path, text, body, raw, lines)


def _load_yaml(yaml_text: str, name: str) -> tuple[dict, dict[tuple, int]]:
    plain = read_plain(yaml_text)  # the usual frontmatter, without importing PyYAML (core/frontmatter.py)
    if plain is not None:
        return plain
    import yaml

    try:
        node = yaml.compose(yaml_text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(yaml_text)
    except yaml.MarkedYAMLError as error:
        # Marks count from 0 inside the YAML; the file has the opening --- above it.
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "unreadable"
        if error.context and error.problem and error.context_mark:
            problem += f" ({error.context} started on line {error.context_mark.line + 2})"
        raise AgentFileError(name, f"frontmatter is not valid YAML: {problem}",
                             line=mark.line + 2 if mark else None) from None
    except yaml.YAMLError as error:
        raise AgentFileError(name, f"frontmatter is not valid YAML: {error}") from None
    if raw is None:
        return {}, {}
    if not isinstance(raw, dict):
        kind = "a list" if isinstance(raw, list) else f"a {type(raw).__name__} value"
        raise AgentFileError(name, f"frontmatter must be a YAML mapping of keys (model:, learning:, ...), "
                                   f"found {kind}", line=2)
    lines: dict[tuple, int] = {}
    _index_lines(node, (), lines, name, set())
    return raw, lines


def _index_lines(node, path: tuple, lines: dict[tuple, int], name: str, seen: set[int]) -> None:
    """Record the file line of every key and list item, and refuse duplicate keys (YAML keeps the last
    one silently, which would drop a setting the user wrote). Each node is visited once: an alias is the
    same node again, and following it anew would recurse forever (`a: &a [*a]`) or multiply the work by
    every nesting level (a few lines of aliases-of-aliases reach millions of paths)."""
    import yaml

    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            child = (*path, key)
            line = key_node.start_mark.line + 2
            if child in lines:
                raise AgentFileError(name, f'"{_where(child)}" is set twice (first on line {lines[child]}); '
                                           "keep one", line=line)
            lines[child] = line
            _index_lines(value_node, child, lines, name, seen)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 2
            _index_lines(item, (*path, index), lines, name, seen)


def _build(path: Path, text: str, body: str, raw: dict, lines: dict[tuple, int]) -> AgentFile:
    name = str(path)
    problems: list[tuple[int | None, str]] = []
    try:
        top = _Frontmatter.model_validate({k: raw[k] for k in ("model", "approval", "shell_env") if k in raw})
    except ValidationError as error:
        problems += [_explain(item, (), lines) for item in error.errors()]
        top = None
    learning, notices = None, []
    if "learning" in raw:
        try:
            learning, notices = parse_learning(raw["learning"], agent_path=path)
        except Located as error:
            problems.append((_line(error.path, lines), error.message))
        except ValidationError as error:
            problems += [_explain(item, ("learning",), lines) for item in error.errors()]
    if problems:
        # In file order, so fixing them top to bottom is natural.
        problems.sort(key=lambda problem: problem[0] or 0)
        (line, message), *more = problems
        raise AgentFileError(name, message, line=line, more=more)
    assert top is not None
    return AgentFile(path=path, text=text, model=top.model, approval=top.approval, learning=learning,
                     body=body, notices=notices, frontmatter=raw, shell_env=top.shell_env)


def _line(path: tuple, lines: dict[tuple, int]) -> int | None:
    # The deepest located key on the path: an error about a value points at the key that holds it.
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _where(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_EXPECTED = {
    "bool_type": "expected true or false", "int_type": "expected a whole number",
    "string_type": "expected a string", "list_type": "expected a list, e.g. [tool-errors]",
    "model_type": "expected an object", "dict_type": "expected an object",
}


def _explain(error: dict, prefix: tuple, lines: dict[tuple, int]) -> tuple[int | None, str]:
    """Turn one pydantic error into the sentence a user can act on, at the line of the key involved."""
    path = (*prefix, *error["loc"])
    kind, value = error["type"], error.get("input")
    if kind == "extra_forbidden":
        section, key = path[:-1], path[-1]
        allowed = {("learning",): "capture, apply, max, model",
                   ("learning", "capture"): "addons, custom, agent"}.get(section, "")
        message = f'unknown key "{key}" under {_where(section)}; allowed: {allowed}'
    elif kind in ("greater_than_equal", "less_than_equal"):
        message = (f"{_where(path)} must be between 1 and 50, got {_show(value)} "
                   "(how many rules this agent keeps)")
    elif kind == "value_error":
        message = f"{_where(path)}: {error['ctx']['error']}"
    else:
        expected = _EXPECTED.get(kind, error["msg"])
        message = f"{_where(path)}: {expected}, got {_show(value)}"
    return _line(path, lines), message


def _show(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # a recursive YAML alias (`model: &m [*m]`) cannot be printed
        return "a value that contains itself (a recursive YAML alias)"
