"""A Helper that tells the truth through the real Anthropic path, except at one operation, where it faults.

Each call's honest answer comes from a scripted helper; it is then delivered by the fake Messages API
over HTTP to the real `AnthropicHelper` (SDK, forced tool use, validation, fault translation). At the
chosen operation the fake server sends a fault instead, on every attempt (so retries cannot save it):

    timeout      the reply comes after the client's timeout
    storm        529 overloaded, every time
    malformed    a tool answer that does not fit the schema
    unknown_ids  the honest answer with every id replaced by one that does not exist
    drop_rule    the honest answer with one rule left out
"""

from __future__ import annotations

import threading
from typing import Any

from fakes import FakeMessagesServer, overloaded, tool_use
from fakes.messages_server import Reply, bad_request

from agentuse.core.helper.anthropic import AnthropicHelper, tool_name
from agentuse.core.helper.render import render

FAULTS = ("timeout", "storm", "malformed", "unknown_ids", "drop_rule")
CLIENT_TIMEOUT = 0.3
NOWHERE = "0badc0de"
# Every answer field of every operation, with the wrong type: no schema accepts it (an answer with only
# unknown keys would validate as "nothing to say" wherever every field has a default).
MALFORMED = {"verdicts": "all fine", "moves": "none", "candidates": "none", "rule": "keep it", "covers": 5,
             "missing": "nothing", "rules": "same as before", "action": "maybe", "dropped": 1}


def _unknown(operation: str, answer: dict) -> dict:
    if operation == "vet":
        return {"verdicts": [{**v, "id": NOWHERE} for v in answer["verdicts"]]}
    if operation == "plan_groups":
        return {"moves": [{**m, "ids": [NOWHERE], "superseded_by": NOWHERE} for m in answer["moves"]]}
    if operation == "rewrite_group":
        return {**answer, "covers": [NOWHERE]}
    if operation == "audit":
        return {"missing": [{"id": NOWHERE, "what": "an exception"}]}
    if operation == "rewrite_block":
        return {**answer, "rules": [{**r, "covers": [NOWHERE]} for r in answer["rules"]]}
    if operation == "reconcile":
        return {"action": "fold", "replaces": [NOWHERE], "merged": answer.get("merged") or
                {"category": "tip", "title": "Merged", "body": "Merged."}}
    return answer  # extract and ground name no ids


def _drop(operation: str, answer: dict) -> dict:
    if operation == "vet":
        return {"verdicts": answer["verdicts"][1:]}
    if operation == "plan_groups":
        return {"moves": answer["moves"][1:]}
    if operation == "rewrite_group":
        return {**answer, "covers": answer["covers"][1:]}
    if operation == "audit":
        return {"missing": []}
    if operation == "rewrite_block":
        return {**answer, "rules": answer["rules"][1:]}
    if operation == "extract":
        return {"candidates": answer["candidates"][1:]}
    if operation == "reconcile":
        return {"action": "fold", "replaces": answer.get("replaces") or [], "merged": None}
    if operation == "ground":
        return {"rule": {"category": "tip", "title": ""}}
    return answer


class FaultyAnthropic:
    def __init__(self, server: FakeMessagesServer, truth: Any, *, operation: str, fault: str) -> None:
        self.truth, self.operation, self.fault = truth, operation, fault
        self.client = AnthropicHelper("anthropic:claude-test", api_key="sk-ant-fake", base_url=server.url,
                                      timeout=CLIENT_TIMEOUT)
        self.name, self.usage = self.client.name, self.client.usage
        self.faulted = 0
        self._replies: dict[str, Reply] = {}
        self._lock = threading.Lock()
        server.script(default=self._reply)

    def _reply(self, record) -> Reply:
        key = record.body["messages"][0]["content"]
        with self._lock:
            return self._replies.get(key) or bad_request("faults.py: no reply registered for this request")

    def _make(self, operation: str, answer: dict) -> Reply:
        name = tool_name(operation)
        if operation != self.operation:
            return tool_use(name, answer)
        self.faulted += 1
        if self.fault == "timeout":
            return tool_use(name, answer, delay=CLIENT_TIMEOUT * 3)
        if self.fault == "storm":
            return overloaded()
        if self.fault == "malformed":
            return tool_use(name, MALFORMED)
        return tool_use(name, (_unknown if self.fault == "unknown_ids" else _drop)(operation, answer))

    def __getattr__(self, operation: str):
        honest = getattr(self.truth, operation)

        def ask(request):
            answer = honest(request).model_dump(mode="json")
            with self._lock:
                self._replies[render(operation, request)] = self._make(operation, answer)
            return getattr(self.client, operation)(request)

        return ask

    def close(self) -> None:
        self.client.close()
