"""pytest fixtures for the fakes, registered from tests/conftest.py through `pytest_plugins`."""

from __future__ import annotations

from typing import Iterator

import pytest

from .bedrock_server import FakeBedrockServer
from .messages_server import FakeMessagesServer
from .openai_server import FakeOpenAIServer


@pytest.fixture
def fake_anthropic() -> Iterator[FakeMessagesServer]:
    """A fresh fake Messages API per test: `.url`, `.script(...)`, `.requests`, `.env()`."""
    server = FakeMessagesServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A fresh fake Chat Completions API per test: `.url`, `.script(...)`, `.requests`, `.env("OPENAI")`."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_bedrock() -> Iterator[FakeBedrockServer]:
    """A fresh fake Bedrock Converse API per test: `.url`, `.script(...)`, `.requests`, `.env()`."""
    server = FakeBedrockServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def offline_helper() -> Iterator[None]:
    """Helper calls on the offline evaluator: a `--remember` note is saved through the helper, and must not
    take the fake server's scripted replies, which belong to the runs under test."""
    from agentuse.core.helper.factory import override_helper
    from agentuse.core.helper.offline import OfflineHelper

    with override_helper(OfflineHelper()):
        yield
