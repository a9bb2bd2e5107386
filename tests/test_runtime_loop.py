"""The model loop against the replay provider: tools really run, errors go back to the model."""

from __future__ import annotations

import os

import pytest

from agentuse.core.errors import AgentuseError
from agentuse.runtime.events import ApprovalDecision, ModelReplyEvent, RunStart, ToolResultEvent
from agentuse.runtime.loop import conversation_from, run_turns
from agentuse.runtime.messages import ModelCall, ModelReply, TextBlock, ToolUseBlock, Usage
from agentuse.runtime.providers import MissingKeyError, ModelError, ReplayProvider, model_ref, provider_for
from agentuse.runtime.session import SessionLog
from agentuse.runtime.tools import ToolBox

REFUSED = "path '/posts/post.md' is outside the project root; use a path relative to the project root"


def reply(*blocks, tokens=(10, 5)) -> ModelReplyEvent:
    stop = "tool_use" if any(isinstance(b, ToolUseBlock) for b in blocks) else "end_turn"
    return ModelReplyEvent(content=list(blocks), stop_reason=stop, usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]))


def write_call(call_id: str, path: str, content: str = "# Post\n") -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name="write_file", input={"path": path, "content": content})


def recording(tmp_path, *replies: ModelReplyEvent):
    log = SessionLog.create(tmp_path / "recorded", "01RECORDED")
    for event in replies:
        log.append(event)
    return log.path


class Spy:
    """Wraps a provider and keeps every call it was given."""

    def __init__(self, inner):
        self.inner, self.model, self.calls = inner, inner.model, []

    def complete(self, call: ModelCall) -> ModelReply:
        self.calls.append(call.model_copy(deep=True))
        return self.inner.complete(call)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    return root


def new_log(tmp_path, project):
    log = SessionLog.create(tmp_path / "sessions", "01LIVE")
    log.append(
        RunStart(session_id="01LIVE", agent_key="blog.agentuse", agent_path=str(project / "blog.agentuse"),
                 project_root=str(project), ih="0" * 12, model="replay:r", prompt="Write a post",
                 system="# Blog Writer", pid=os.getpid())
    )
    return log


def test_a_failed_tool_call_goes_back_to_the_model_which_corrects_it(tmp_path, project):
    path = recording(
        tmp_path,
        reply(TextBlock(text="Saving."), write_call("c1", "/posts/post.md")),
        reply(write_call("c2", "posts/post.md")),
        reply(TextBlock(text="Saved to posts/post.md")),
    )
    log = new_log(tmp_path, project)
    spy = Spy(ReplayProvider(path))
    result = run_turns(log=log, provider=spy, tools=ToolBox(project))
    assert result.output == "Saved to posts/post.md"
    assert result.usage == Usage(input_tokens=30, output_tokens=15)
    assert (project / "posts" / "post.md").read_text() == "# Post\n"
    # The model saw the failure as an error tool_result and then the success.
    second = spy.calls[1].messages[-1].content[0]
    assert second.is_error and second.content == REFUSED
    third = spy.calls[2].messages[-1].content[0]
    assert not third.is_error and third.content.startswith("wrote 7 bytes")
    assert all(call.system == "# Blog Writer" for call in spy.calls)
    assert {t.name for t in spy.calls[0].tools} == {"read_file", "write_file", "list_dir", "run_shell"}
    events, _ = log.read()
    types = [e.type for e in events]
    assert types == ["run_start", "model_request", "model_reply", "tool_call", "tool_result", "model_request",
                     "model_reply", "tool_call", "tool_result", "model_request", "model_reply"]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(r.is_error, r.error) for r in results] == [
        (True, REFUSED), (False, None)]
    # What the log holds rebuilds exactly the conversation the model saw last.
    assert conversation_from(events)[:-1] == spy.calls[-1].messages


def test_a_revision_comment_becomes_the_next_user_message(tmp_path, project):
    log = new_log(tmp_path, project)
    log.append(reply(TextBlock(text="draft")))
    log.append(ApprovalDecision(decision="revise", comment="Add citations", pid=1))
    messages = conversation_from(log.read()[0])
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert "Add citations" in messages[-1].content[0].text


def test_replay_running_out_is_a_clear_model_error(tmp_path, project):
    path = recording(tmp_path, reply(write_call("c1", "posts/a.md")))
    with pytest.raises(ModelError, match="ran out of model replies: the run asked for reply 2 but only 1 were recorded"):
        run_turns(log=new_log(tmp_path, project), provider=ReplayProvider(path), tools=ToolBox(project))


def test_a_model_that_never_stops_is_stopped(tmp_path, project):
    path = recording(tmp_path, *[reply(ToolUseBlock(id=f"c{i}", name="list_dir", input={})) for i in range(5)])
    with pytest.raises(ModelError, match="did not finish its work within 3 model requests"):
        run_turns(log=new_log(tmp_path, project), provider=ReplayProvider(path), tools=ToolBox(project), max_turns=3)


def test_replay_skip_continues_after_replies_already_used(tmp_path):
    path = recording(tmp_path, reply(TextBlock(text="one")), reply(TextBlock(text="two")))
    provider = ReplayProvider(path, skip=1)
    assert provider.complete(ModelCall(model="m", system="", messages=[])).text == "two"


def test_provider_choice_and_the_missing_key_message(tmp_path):
    with pytest.raises(MissingKeyError) as missing:
        provider_for("anthropic:claude-sonnet-5", env={})
    assert str(missing.value).startswith("ANTHROPIC_API_KEY is not set: the model anthropic:claude-sonnet-5 needs it")
    with pytest.raises(AgentuseError, match="write it as provider:model"):
        model_ref("claude-sonnet-5")
    with pytest.raises(ModelError, match="does not exist"):
        provider_for("replay:nowhere.jsonl", env={})
    path = recording(tmp_path, reply(TextBlock(text="x")))
    relative = provider_for(f"replay:{path.name}", env={}, base_dir=path.parent)
    assert isinstance(relative, ReplayProvider) and relative.path == path
