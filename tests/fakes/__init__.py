"""Loopback fakes for the tests: the fake Anthropic Messages API server and its pytest fixture."""

from .messages_server import (  # noqa: F401  (re-exported for `from fakes import ...`)
    FakeMessagesServer,
    RecordedRequest,
    Reply,
    bad_request,
    error,
    overloaded,
    rate_limited,
    server_error,
    silent,
    text,
    tool_use,
    trickle,
    unauthorized,
)
