"""The conversation as pydantic models: what the loop sends a provider and what comes back.

The shapes follow the Anthropic Messages API (text, tool_use and tool_result blocks) because that is the
provider we speak to; a reply's blocks are recorded verbatim in the session log, which is what lets
`replay:` play a recorded run back through the real loop.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field

from agentuse.core.model_defaults import empty_list
from agentuse.core.terminal_text import LONE_SURROGATE


class TextBlock(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ToolUseBlock(BaseModel):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: Any = Field(default_factory=dict)


def utf8_safe(value: Any) -> Any:
    """`value` with every lone surrogate (a file name that is not UTF-8, as the file system hands it back; half
    an escape pair in a model's JSON) as U+FFFD: the session log is UTF-8 and cannot hold one."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [utf8_safe(item) for item in value]
    if isinstance(value, dict):
        return {utf8_safe(key): utf8_safe(item) for key, item in value.items()}
    return value


def new_call_id(prefix: str = "call") -> str:
    """An id for a tool call a server sent without one: unique in the run, so each call's result goes with
    it (a per-reply index gave every turn's first call the same id)."""
    return f"{prefix}_{secrets.token_hex(8)}"


class ToolResultBlock(BaseModel):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


ReplyBlock = Annotated[Union[TextBlock, ToolUseBlock], Field(discriminator="type")]
AnyBlock = Annotated[Union[TextBlock, ToolUseBlock, ToolResultBlock], Field(discriminator="type")]


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: list[AnyBlock]

    @classmethod
    def user_text(cls, text: str) -> "Message":
        return cls(role="user", content=[TextBlock(text=text)])


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


class ToolSpec(BaseModel):
    name: str
    description: str
    input_schema: dict[str, Any]


class ModelCall(BaseModel):
    """One request to a provider."""

    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=empty_list)
    max_tokens: int = 4096


class ModelReply(BaseModel):
    content: list[ReplyBlock] = Field(default_factory=empty_list)
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)

    def recordable(self) -> "ModelReply":
        """This reply as the session log can write it (utf8_safe), the same object when it already can. One
        nested past what the serializer follows is left as it is: the log's append refuses it, plainly."""
        try:
            self.model_dump_json()
            return self
        except ValueError:
            pass
        try:
            safe = utf8_safe([b.model_dump() for b in self.content])
        except (ValueError, RecursionError):
            return self
        return self.model_copy(update={"content": [
            TextBlock(**b) if b["type"] == "text" else ToolUseBlock(**b) for b in safe]})

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [block for block in self.content if isinstance(block, ToolUseBlock)]

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.content if isinstance(block, TextBlock)).strip()
