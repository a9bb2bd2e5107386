"""The model loop: model <-> tools until the model ends its turn; the final text is the output.

The conversation is rebuilt from the session log (`conversation_from`) rather than trusted from memory,
so a run resumed in another process after an approval gate continues exactly the conversation the log
holds — and what the log holds is what the model saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from agentuse.runtime.events import (
    ApprovalDecision,
    Event,
    ModelReplyEvent,
    ModelRequestEvent,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
    current_round,
    standing,
)
from agentuse.runtime.messages import (AnyBlock, Message, ModelCall, ModelReply, TextBlock, ToolResultBlock,
                                       ToolUseBlock, Usage)
from agentuse.runtime.providers import ModelError, Provider
from agentuse.runtime.session import SessionLog
from agentuse.runtime.tools import ToolBox

MAX_TURNS = 50  # model requests per stretch of work; a model that never ends its turn is a failure
# Stop reasons of a model that declined the work (Anthropic, Chat Completions, Bedrock): not an answer.
REFUSED = frozenset({"refusal", "content_filter", "guardrail_intervened", "content_filtered"})
CUT_OFF = "max_tokens"  # the stop reason of a reply cut off at its output limit (every provider maps to it)
CUT_OFF_CONTINUE = ("Your reply was cut off at the output limit. Continue exactly where it stopped, "
                    "without repeating what you already wrote.")
CUT_OFF_CALL = ("not run: your reply was cut off at the output limit before this {name} call was complete, so "
                "its input is cut short. Make the call again with less in it (a long file in smaller parts).")


class TurnsResult(BaseModel):
    output: str
    usage: Usage


def conversation_from(events: list[Event]) -> list[Message]:
    """The messages the model has seen so far: prompt, replies, tool results, revision comments."""
    start = next(e for e in events if isinstance(e, RunStart))
    messages = [Message.user_text(start.prompt)]
    results: list[ToolResultBlock] = []

    def flush_results() -> None:
        if results:
            add(messages, "user", results)
            results.clear()

    for event in events:
        if isinstance(event, ModelReplyEvent):
            flush_results()
            add(messages, "assistant", event.content)
            if cut_off_text(event):
                add(messages, "user", [TextBlock(text=CUT_OFF_CONTINUE)])
        elif isinstance(event, ToolResultEvent):
            results.append(result_block(event))
        elif isinstance(event, ApprovalDecision) and event.decision == "revise":
            flush_results()
            add(messages, "user", [TextBlock(text=revision_message(event.comment or ""))])
    flush_results()
    return messages


def add(messages: list[Message], role: Literal["user", "assistant"], blocks: Sequence[AnyBlock]) -> None:
    """One message onto the conversation as the APIs accept it: a blank text block is left out, a message
    left empty is not sent (a turn that ended with no text: `content: []`), and a user turn following a user
    turn joins it, so roles still alternate. The log keeps every reply as it came."""
    kept = [b for b in blocks if not (isinstance(b, TextBlock) and not b.text.strip())]
    if not kept:
        return
    if messages and messages[-1].role == role:
        messages[-1] = Message(role=role, content=[*messages[-1].content, *kept])
    else:
        messages.append(Message(role=role, content=kept))


def result_block(event: ToolResultEvent) -> ToolResultBlock:
    """The tool_result the model is shown for a recorded result (live and rebuilt alike)."""
    return ToolResultBlock(tool_use_id=event.call_id, content=event.text or "(no output)", is_error=event.is_error)


def cut_off_text(reply: ModelReplyEvent) -> bool:
    """A final answer cut off at the output limit: the model is asked to go on (its tool calls, if it made
    any, are answered as not run instead)."""
    return reply.stop_reason == CUT_OFF and not any(isinstance(b, ToolUseBlock) for b in reply.content)


def _said(reply: ModelReply) -> str:
    return "".join(block.text for block in reply.content if isinstance(block, TextBlock))


def revision_message(comment: str) -> str:
    return f"A reviewer asked for changes before approving your work:\n\n{comment}\n\nRevise the work accordingly."


def run_turns(*, log: SessionLog, provider: Provider, tools: ToolBox, max_turns: int = MAX_TURNS) -> TurnsResult:
    """Work until the model ends its turn. Tool failures go back to the model; model faults raise."""
    events = standing(log.read()[0])  # a revision that failed is not part of the conversation
    system = current_round(events).system  # a revision round's rules replace the earlier round's
    messages = conversation_from(events)
    usage = Usage()
    cut: list[str] = []  # the text of final answers cut off at the output limit, continued in the next reply
    for turn in range(1, max_turns + 1):
        log.append(ModelRequestEvent(model=provider.model, turn=turn, messages=len(messages)))
        reply = provider.complete(
            ModelCall(model=provider.model, system=system, messages=messages, tools=tools.specs)
        ).recordable()
        try:
            event = log.append(ModelReplyEvent(content=reply.content, stop_reason=reply.stop_reason, usage=reply.usage))
        except ValueError as problem:  # pydantic's serializer refuses it (nested past its depth limit): nothing written
            raise ModelError(f"{provider.model}: the model's reply could not be recorded ({problem}), so it "
                             "was not acted on") from None
        usage = usage + reply.usage
        if reply.stop_reason in REFUSED:  # its text, if any, is not the work: never shown or reviewed as output
            raise ModelError(f"{provider.model}: the model refused to do this work (stop reason "
                             f"{reply.stop_reason}); its reply is in the session log")
        add(messages, "assistant", reply.content)
        if cut_off_text(event):
            cut.append(_said(reply))
            add(messages, "user", [TextBlock(text=CUT_OFF_CONTINUE)])
            continue
        calls = reply.tool_uses
        if not calls:
            whole = "".join([*cut, _said(reply)]).strip() if cut else reply.text
            return TurnsResult(output=whole, usage=usage)
        cut.clear()
        results = []
        for call in calls:
            log.append(ToolCallEvent(call_id=call.id, name=call.name, input=call.input))
            if reply.stop_reason == CUT_OFF:  # its input is cut short: run it and half a file is written
                result = ToolResultEvent(call_id=call.id, name=call.name, error=CUT_OFF_CALL.format(name=call.name),
                                         is_error=True, cut_off=True)
                log.append(result)
                results.append(result_block(result))
                continue
            outcome = tools.run(call.name, call.input)
            result = ToolResultEvent(
                call_id=call.id, name=call.name, output=outcome.output, error=outcome.error, is_error=outcome.is_error
            )
            log.append(result)
            results.append(result_block(result))
        add(messages, "user", results)
    raise ModelError(f"the model did not finish its work within {max_turns} model requests")
