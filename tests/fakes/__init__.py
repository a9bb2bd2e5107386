"""Loopback fakes for the tests: the fake Anthropic Messages, OpenAI Chat Completions and Bedrock Converse
servers, and fixtures."""

from .messages_server import (  # noqa: F401  (re-exported for `from fakes import ...`)
    FakeMessagesServer,
    RecordedRequest,
    Reply,
    bad_request,
    error,
    gzip_bomb,
    huge,
    overloaded,
    rate_limited,
    server_error,
    silent,
    text,
    tool_use,
    trickle,
    unauthorized,
)
from .openai_server import FakeOpenAIServer, json_answer  # noqa: F401
from .bedrock_server import FakeBedrockServer, throttled  # noqa: F401


def session_id_in(output: str) -> str:
    """The first session id (a ULID) a command printed."""
    import re

    return re.search(r"\b(01[0-9A-HJKMNP-TV-Z]{24})\b", output).group(1)
