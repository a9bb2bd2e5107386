"""A fake Anthropic Messages API on 127.0.0.1, spoken to over real HTTP by the real anthropic SDK.

No machine running these tests reaches the Anthropic API, and the SDK uses `httpx2` (so `respx` cannot
mock it): the honest way to exercise the Anthropic path end to end is a loopback server. It speaks just
enough of `POST /v1/messages`: text and tool_use content blocks with usage, SSE streaming when the request
asks for it, error statuses with `retry-after-ms`/`retry-after`, deliberately malformed answers, a delay
per reply, a server that never answers (`silent()`) and one that trickles its answer a byte at a time
(`trickle()`), and a record of every request with its start and end time (so tests can assert overlap).
Both slow modes stop by themselves after a bounded time, so a client that never gives up cannot hang a test.

Script it per call with a queue of replies, or with a function from the recorded request to a reply:

    server.script(tool_use("answer", {"verdicts": []}), overloaded())
    server.script(lambda req: tool_use(req.forced_tool, {...}))
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union

# --- replies ------------------------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted answer. `content` is a list of Messages API content blocks; `status` != 200 sends
    an error body instead; `raw` (bytes) replaces the whole body, for answers that are not even JSON."""

    content: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error_type: str = ""
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    input_tokens: int = 11
    output_tokens: int = 7
    stop_reason: str | None = None
    raw: bytes | None = None
    silent: float = 0.0  # > 0: read the request, send nothing for this long, then drop the connection
    trickle: float = 0.0  # > 0: send the body one byte per this many seconds ...
    trickle_for: float = 0.0  # ... for at most this long, then drop the connection mid-body
    content_type: str | None = None  # overrides the body's own (an HTML page sent as JSON, JSON as text/html)
    filler: int = 0  # > 0: after `raw`, this many more bytes (written a MiB at a time, never held whole)
    length_header: bool = True  # False: no content-length, the body ends when the connection closes


def text(value: str, **kw: Any) -> Reply:
    return Reply(content=[{"type": "text", "text": value}], **kw)


def tool_use(name: str | None, input: Any, *, preamble: str = "", **kw: Any) -> Reply:
    """A tool_use block. `input` may be any JSON value: a non-object or a wrong shape is how tests send
    a malformed tool answer (the API itself would only ever send an object, the model decides its keys)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": preamble}] if preamble else []
    blocks.append({"type": "tool_use", "id": "", "name": name or "answer", "input": input})
    kw.setdefault("stop_reason", "tool_use")
    return Reply(content=blocks, **kw)


# Bounds on the slow modes: long enough that any deadline a test sets passes first, short enough that a
# client without one still finishes (its test fails on its assertions instead of hanging).
SLOW_MODE_SECONDS = 20.0


def silent(seconds: float = SLOW_MODE_SECONDS, **kw: Any) -> Reply:
    """A server that accepts the request and never answers (for `seconds`, then it drops the call)."""
    return Reply(silent=seconds, **kw)


def trickle(reply: Reply | None = None, *, every: float = 1.0, limit: float = SLOW_MODE_SECONDS) -> Reply:
    """`reply` (a short text by default) sent one byte every `every` seconds, headers first: each read
    gets a byte well inside any read timeout, so only a wall-clock deadline ends the call early. After
    `limit` seconds the server drops the connection mid-body."""
    base = reply or text("trickled")
    base.trickle, base.trickle_for = every, limit
    return base


def huge(size: int, *, status: int = 200, prefix: bytes = b'{"content": [{"type": "text", "text": "',
         length_header: bool = True, **kw: Any) -> Reply:
    """A body of `size` bytes (a JSON string that never ends, by default), produced as it is written: the
    server never holds it, and records in `sent` how much of it the client took before closing."""
    return Reply(status=status, raw=prefix, filler=max(size - len(prefix), 0), length_header=length_header, **kw)


def gzip_bomb(size: int) -> Reply:
    """`size` bytes of JSON-ish filler, sent gzip-compressed (about 1,000 times smaller on the wire)."""
    import gzip

    body = gzip.compress(b'{"content": [{"type": "text", "text": "' + b"a" * size, compresslevel=9)
    return Reply(raw=body, headers={"content-encoding": "gzip"})


def error(status: int, error_type: str, message: str = "", *, retry_after_ms: int | None = None,
          retry_after: float | None = None, **kw: Any) -> Reply:
    headers = dict(kw.pop("headers", {}))
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    return Reply(status=status, error_type=error_type, message=message or error_type, headers=headers, **kw)


# Short retry-after-ms by default so a client that does retry (max_retries > 0) does not slow tests.
def overloaded(**kw: Any) -> Reply:
    kw.setdefault("retry_after_ms", 1)
    return error(529, "overloaded_error", "Overloaded", **kw)


def rate_limited(**kw: Any) -> Reply:
    kw.setdefault("retry_after_ms", 1)
    return error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit", **kw)


def bad_request(message: str = "invalid request", **kw: Any) -> Reply:
    return error(400, "invalid_request_error", message, **kw)


def unauthorized(**kw: Any) -> Reply:
    return error(401, "authentication_error", "invalid x-api-key", **kw)


def server_error(**kw: Any) -> Reply:
    return error(500, "api_error", "Internal server error", **kw)


# --- the record -------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    index: int
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any
    started: float  # time.monotonic() when the body had been read
    ended: float = 0.0  # time.monotonic() when the reply was sent (0 while in flight)
    raw: bytes = b""  # the body as it came, byte for byte (what a signature covers)
    sent: int = 0  # filler bytes of a `huge()` reply the client took before it closed the connection

    @property
    def forced_tool(self) -> str | None:
        """The tool the request forces: Anthropic `{type: tool, name}`, OpenAI `{type: function, function}` or
        Bedrock Converse `toolConfig.toolChoice.tool.name`."""
        body = self.body if isinstance(self.body, dict) else {}
        converse = ((body.get("toolConfig") or {}).get("toolChoice") or {}).get("tool")
        if converse:
            return converse.get("name")
        choice = body.get("tool_choice") or {}
        if not isinstance(choice, dict):
            return None
        if choice.get("type") == "function":
            return (choice.get("function") or {}).get("name")
        return choice.get("name") if choice.get("type") == "tool" else None

    @property
    def schema_name(self) -> str | None:
        """The name of an OpenAI `response_format: {type: json_schema}` request, if it has one."""
        fmt = (self.body or {}).get("response_format") or {}
        return (fmt.get("json_schema") or {}).get("name") if fmt.get("type") == "json_schema" else None

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("tools") or [])

    @property
    def text(self) -> str:
        """Every string the client sent as prompt: system plus all message text, in order."""
        parts: list[str] = []

        def walk(value: Any) -> None:
            if isinstance(value, str):
                parts.append(value)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
            elif isinstance(value, dict):
                for key in ("text", "content"):
                    if key in value:
                        walk(value[key])

        body = self.body or {}
        walk(body.get("system", ""))
        walk(body.get("messages", []))
        return "\n".join(parts)


Script = Callable[[RecordedRequest], Union[Reply, list, None]]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects
    disable_nagle_algorithm = True  # with Nagle on each call took ~45 ms instead of ~1 ms (DESIGN.md)
    server: "FakeMessagesServer"

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output quiet
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}  # HTTP names are case-insensitive
        record = self.server._record(self.command, self.path, headers, body, raw)
        if not self.server.serves(self.path.split("?")[0]):
            reply = error(404, "not_found_error", f"{self.server.NAME} serves POST {self.server.PATH}, not {self.path}")
        else:
            reply = self.server._next_reply(record)
        if reply.delay and self.server._stopping.wait(reply.delay):
            return  # shutting down: drop the call as a vanished server would
        if reply.silent:
            self.server._stopping.wait(reply.silent)
            self.close_connection = True
            return  # never answered: the connection closes with nothing sent
        # Stamped before the bytes go out, so a client that has its answer always sees `ended` set.
        record.ended = time.monotonic()
        self._send(reply, record)

    def do_GET(self) -> None:
        self.do_POST()

    def _send(self, reply: Reply, record: RecordedRequest) -> None:
        headers = {"request-id": f"req_fake_{record.index}", **reply.headers}
        if reply.status != 200:
            headers.update(self.server._error_headers(reply))
        stream = isinstance(record.body, dict) and bool(record.body.get("stream"))
        if reply.raw is not None:
            payload, ctype = reply.raw, "application/json"
        elif reply.status != 200:
            payload, ctype = json.dumps(self.server._error_body(reply)).encode(), "application/json"
        elif stream:
            payload, ctype = self.server._stream(self.server._message(reply, record)).encode(), "text/event-stream"
        else:
            payload, ctype = json.dumps(self.server._message(reply, record)).encode(), "application/json"
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type or ctype)
        if reply.length_header:
            self.send_header("content-length", str(len(payload) + reply.filler))
        else:
            self.close_connection = True  # the body ends when the connection does
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        try:
            if reply.trickle:
                self._trickle(payload, reply)
            else:
                self.wfile.write(payload)
                self._fill(reply.filler, record)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to deliver to

    def _fill(self, size: int, record: RecordedRequest) -> None:
        chunk = b"a" * (1 << 20)
        while size > 0 and not self.server._stopping.is_set():
            piece = chunk[:size]
            self.wfile.write(piece)
            size -= len(piece)
            record.sent += len(piece)

    def _trickle(self, payload: bytes, reply: Reply) -> None:
        self.wfile.flush()  # the status line and headers now: the client is "answered", then waits on the body
        ends = time.monotonic() + reply.trickle_for
        for i in range(len(payload)):
            if time.monotonic() > ends or self.server._stopping.wait(reply.trickle):
                self.close_connection = True  # bounded: drop the call with the body unfinished
                return
            self.wfile.write(payload[i:i + 1])
            self.wfile.flush()


def _sse(message: dict[str, Any]) -> str:
    """The message as the event sequence the streaming API sends; the whole body in one write, which
    is valid SSE and keeps the server simple (per-event pacing is not something these tests need)."""
    events: list[tuple[str, dict[str, Any]]] = []
    head = {**message, "content": [], "stop_reason": None,
            "usage": {**message["usage"], "output_tokens": 1}}
    events.append(("message_start", {"type": "message_start", "message": head}))
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                     "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


class FakeMessagesServer(ThreadingHTTPServer):
    """`start()` binds 127.0.0.1 on a free port; `url` is the base URL to hand the SDK."""

    PATH = "/v1/messages"
    NAME = "fake_anthropic"
    daemon_threads = True
    block_on_close = False  # a reply parked in a long delay must not hang stop(); _stopping wakes it

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._lock = threading.Lock()
        self._queue: deque[Reply | Script] = deque()
        self._fallback: Script | None = None
        self._records: list[RecordedRequest] = []
        self._counter = itertools.count()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- lifecycle
    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeMessagesServer":
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=self.NAME, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.shutdown()
        self.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    # -- scripting
    def script(self, *replies: Reply | Script, default: Script | None = None) -> "FakeMessagesServer":
        """Queue replies for the next calls, in order (a callable in the queue answers one call).
        `default` answers every call once the queue is empty."""
        with self._lock:
            self._queue.extend(replies)
            if default is not None:
                self._fallback = default
        return self

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._fallback = None
            self._records.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._records)

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet (a test can assert its script was used up)."""
        with self._lock:
            return len(self._queue)

    def env(self, api_key: str = "sk-ant-fake") -> dict[str, str]:
        """Environment that points the SDK (and `resolve_helper`) at this server."""
        return {"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": api_key}

    # -- handler side
    def _record(self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes = b"") -> RecordedRequest:
        with self._lock:
            rec = RecordedRequest(next(self._counter), method, path, headers, body, time.monotonic(), raw=raw)
            self._records.append(rec)
            return rec

    def _next_reply(self, record: RecordedRequest) -> Reply:
        with self._lock:
            item = self._queue.popleft() if self._queue else self._fallback
        if item is None:
            # A 400 (permanent) rather than a 5xx so a test with a short script fails loudly, not retried.
            return bad_request(f"{self.NAME}: no reply scripted for call {record.index}")
        reply = item(record) if callable(item) else item
        if isinstance(reply, list):  # a bare list of content blocks
            reply = Reply(content=reply)
        if reply is None:
            return bad_request(f"{self.NAME}: script returned nothing for call {record.index}")
        return reply

    def serves(self, path: str) -> bool:
        return path == self.PATH

    def _error_body(self, reply: Reply) -> dict[str, Any]:
        return {"type": "error", "error": {"type": reply.error_type, "message": reply.message}}

    def _error_headers(self, reply: Reply) -> dict[str, str]:
        return {}

    def _stream(self, message: dict[str, Any]) -> str:
        return _sse(message)

    def _message(self, reply: Reply, record: RecordedRequest) -> dict[str, Any]:
        blocks = []
        for n, block in enumerate(reply.content):
            block = dict(block)
            if block.get("type") == "tool_use" and not block.get("id"):
                block["id"] = f"toolu_fake_{record.index}_{n}"
            blocks.append(block)
        has_tool = any(b.get("type") == "tool_use" for b in blocks)
        body = record.body if isinstance(record.body, dict) else {}
        return {
            "id": f"msg_fake_{record.index}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": blocks,
            "stop_reason": reply.stop_reason or ("tool_use" if has_tool else "end_turn"),
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
        }
