"""Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`), shared by agent runs and helper calls.

Why botocore's `bedrock-runtime` client and not the anthropic SDK's `AnthropicBedrock`: Converse speaks to
every Bedrock model with tool use (Claude, Nova, Llama, Mistral, ...), as upstream AgentUse's `bedrock:`
does, where AnthropicBedrock serves Claude only; and import plus client took 0.15-0.27 s where
AnthropicBedrock took 1.4 s (side by side, fresh processes): it is the anthropic SDK plus botocore anyway,
for SigV4 and the credential chain.
botocore is an optional extra (`pip install 'agentuse[bedrock]'`, ~14 MB of service data), imported only
when a `bedrock:` model is called.

botocore does what only it should: the standard AWS credential chain (environment, profiles, SSO, web
identity, container and instance roles), the region, SigV4 signing (or an `AWS_BEARER_TOKEN_BEDROCK` API
key), and the Converse wire shapes. The bytes go out through core/model_http.py (a `before-send` hook), so
timeouts, the body deadline, connection faults and transient-vs-permanent are the same as for every other
provider; botocore's own retries are off (the caller's retry policy decides, once).

`AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (or `AWS_ENDPOINT_URL`) points it elsewhere: a VPC endpoint, or the
tests' fake server on 127.0.0.1.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agentuse.core.errors import AgentuseError
from agentuse.core.model_http import CallError, garbled, retry_after_seconds, send, token_count, too_deep
from agentuse.core.models import Endpoint

EXTRA = "pip install 'agentuse[bedrock]'"
# What the auth hint names on a refused call (core/model_http.auth_hint).
CREDENTIALS = "the AWS credentials and the model's access in the Bedrock console"

# Variables through which the credential chain finds credentials without asking the network.
_CREDENTIAL_VARIABLES = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK",
                         "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                         "AWS_CONTAINER_CREDENTIALS_FULL_URI")


# What a request carries, or is signed with, that a server's error text could echo.
_SENT_SECRETS = ("AWS_BEARER_TOKEN_BEDROCK", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


class BedrockSetupError(AgentuseError):
    """botocore is missing, or the AWS chain gives no credentials or no region: one line saying what to do."""


def installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("botocore") is not None


def credential_source(env: Mapping[str, str]) -> str | None:
    """Where the AWS chain will look first, judged without network (doctor, and whether helper calls
    can run on Bedrock); None when no variable and no ~/.aws file is there. An instance or container role
    is only known by asking the metadata service: `role_credentials`, which helper calls ask and doctor does not."""
    for variable in _CREDENTIAL_VARIABLES:
        if (env.get(variable) or "").strip():
            return variable
    for variable, default in (("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials"), ("AWS_CONFIG_FILE", "~/.aws/config")):
        try:
            path = Path((env.get(variable) or "").strip() or default).expanduser()
        except RuntimeError:  # no home folder (core/location.home): no ~/.aws either
            continue
        if path.is_file():
            return str(path)
    return None


# How long a helper call waits for the instance metadata service, once, when nothing else names
# credentials: on a machine that is not an EC2 instance (or container with a role) nothing answers.
METADATA_TIMEOUT_SECONDS = 1


def role_credentials() -> bool:
    """Whether the rest of the chain (botocore's own: the container and instance roles, which only the
    metadata service knows) gives credentials. Asked once, with a short timeout, and only by a command about
    to make helper calls when `credential_source` found nothing; it reads the process environment."""
    try:
        import botocore.session
        from botocore.exceptions import BotoCoreError
    except ImportError:
        return False
    session = botocore.session.Session()
    session.set_config_variable("metadata_service_timeout", METADATA_TIMEOUT_SECONDS)
    session.set_config_variable("metadata_service_num_attempts", 1)
    try:
        return session.get_credentials() is not None
    except BotoCoreError:  # a profile that does not exist, an expired SSO login: no usable credentials
        return False


def region(env: Mapping[str, str]) -> str | None:
    """The region from the environment (the profile's own is read by botocore only)."""
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if (env.get(variable) or "").strip():
            return env[variable].strip()
    return None


def missing_credentials(model: str) -> str:
    return (f"no AWS credentials found for {model}: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, or run aws configure (the standard AWS credential chain)")


class _Raw:
    """The body as botocore's AWSResponse reads it."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **_: Any):
        yield self.body


class ConverseClient:
    def __init__(self, where: Endpoint, *, timeout: float = 120.0) -> None:
        try:
            import botocore.session
            from botocore.awsrequest import AWSResponse
            from botocore.config import Config
            from botocore.exceptions import BotoCoreError
        except ImportError:
            raise BedrockSetupError(f"bedrock: models need botocore, which is not installed: {EXTRA}") from None
        import httpx

        self.model_id, self.name = where.ref.model, f"bedrock:{where.ref.model}"
        self._response, self._timeout = AWSResponse, timeout
        self._call = threading.local()  # the timeout and deadline of the request in flight on this thread
        self._http = httpx.Client(timeout=timeout)
        session = botocore.session.Session()
        try:
            if not os.environ.get("AWS_BEARER_TOKEN_BEDROCK") and session.get_credentials() is None:
                raise BedrockSetupError(missing_credentials(self.name))
            # AWS_REGION as the other AWS SDKs (and upstream AgentUse) read it; botocore itself reads only
            # AWS_DEFAULT_REGION, then the profile's region (None here leaves that to it).
            self._client = session.create_client(
                "bedrock-runtime", region_name=region(os.environ),
                endpoint_url=where.base_url or None,
                config=Config(retries={"total_max_attempts": 1}, user_agent_extra="agentuse"))
        except BotoCoreError as problem:  # no region, a profile that does not exist, an expired SSO login
            raise BedrockSetupError(f"{self.name}: {_setup_message(problem)}") from None
        self._client.meta.events.register("before-send.bedrock-runtime.Converse", self._send)

    def converse(self, body: dict[str, Any], *, timeout: float | None = None,
                 deadline: float | None = None) -> dict[str, Any]:
        """The Converse reply; a failed call raises `CallError` (transient or not, with its retry-after)."""
        from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

        seconds = timeout or self._timeout
        self._call.timeout, self._call.deadline = seconds, deadline or time.monotonic() + seconds
        try:
            reply = self._client.converse(modelId=self.model_id, **body)
        except CallError as problem:  # a server that echoes a credential: the line never shows it
            raise problem.masking(*(os.environ.get(v) for v in _SENT_SECRETS)) from None
        except ClientError as problem:
            response = problem.response or {}
            meta = response.get("ResponseMetadata") or {}
            error = response.get("Error") or {}
            status = int(meta.get("HTTPStatusCode") or 500)
            message = f"the API answered {status} {error.get('Code', '')}: {error.get('Message', '')}".strip()
            fault = CallError(message, status=status, retry_after=retry_after_seconds(meta.get("HTTPHeaders") or {}))
            raise fault.masking(*(os.environ.get(v) for v in _SENT_SECRETS)) from None
        except NoCredentialsError:
            raise BedrockSetupError(missing_credentials(self.name)) from None
        except BotoCoreError as problem:  # signing failed: an expired SSO login, a bearer key over plain HTTP
            raise BedrockSetupError(f"{self.name}: {_setup_message(problem)}") from None
        except RecursionError:  # botocore's JSON parser on a body nested past what it follows
            raise too_deep() from None
        except (TypeError, AttributeError, ValueError) as problem:
            # botocore's parser on a body of the wrong shape (JSON null, content as a string, bytes that are
            # not UTF-8): a broken hop, like a body that is not JSON elsewhere, not a traceback.
            raise garbled(f"the API sent a reply botocore cannot read ({type(problem).__name__})") from None
        return _checked(reply)

    def _send(self, request: Any, **_: Any) -> Any:
        """botocore's `before-send` hook: the signed request goes out through model_http.send."""
        headers = {k: v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()}
        body = request.body.encode() if isinstance(request.body, str) else request.body
        status, answer_headers, raw = send(self._http, request.method, request.url, content=body, headers=headers,
                                           timeout=self._call.timeout, deadline=self._call.deadline)
        return self._response(request.url, status, dict(answer_headers.items()), _Raw(raw))

    def close(self) -> None:
        self._http.close()
        self._client.close()


def _setup_message(problem: Exception) -> str:
    from botocore.exceptions import NoRegionError

    if isinstance(problem, NoRegionError):
        return "no AWS region is set: set AWS_REGION (or AWS_DEFAULT_REGION, or a region in your AWS profile)"
    return str(problem)


class _ToolUse(BaseModel):
    toolUseId: str | None = None
    name: str = ""
    input: Any = None


class _Block(BaseModel):
    text: str | None = None
    toolUse: _ToolUse | None = None


class _Message(BaseModel):
    content: list[_Block]


class _Output(BaseModel):
    message: _Message


class _Reply(BaseModel):
    """The part of a Converse reply agentuse reads, checked once so readers can index it as a dict."""

    output: _Output
    stopReason: str | None = None


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    """The reply, or a CallError: an HTML page that botocore parsed into nothing read as a turn with no
    content (the run 'completed' with empty output), a tool use given as text as an AttributeError."""
    try:
        _Reply.model_validate(reply)
    except ValidationError as problem:
        first = problem.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise garbled(f"the API sent a reply that is not a Converse answer ({where}: {first['msg']})") from None
    return reply


def usage(reply: dict[str, Any]) -> tuple[int, int]:
    counts = reply.get("usage")
    counts = counts if isinstance(counts, dict) else {}
    return token_count(counts.get("inputTokens")), token_count(counts.get("outputTokens"))


def content(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return list(((reply.get("output") or {}).get("message") or {}).get("content") or [])
