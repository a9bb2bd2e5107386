"""The tool-errors channel: verified in code, no model, one record per failure mode."""

from __future__ import annotations

import pytest
from capture_support import TODAY, UPLOAD_FAIL, archived, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, passing, drafts

from agentuse.core.learning import Category, Channel, Source, State
from agentuse.core.tool_errors import record_for, recoveries, signature
from agentuse.core.trace import ToolTrace, TraceCall
from agentuse.flows.capture import run_capture

TOOL_ONLY = """learning:
  capture:
    addons: [tool-errors]"""


def trace(*calls: tuple[str, object, str | None]) -> ToolTrace:
    return ToolTrace(calls=[TraceCall(call_id=str(i), tool=t, input=inp, ok=err is None, error=err,
                                      output=None if err else "ok") for i, (t, inp, err) in enumerate(calls)])


@pytest.mark.parametrize("error, expected", [
    ("files.length remained 0", "files.length remained #"),  # the spec's example
    ("Error: ENOENT: no such file or directory, open './shot.png'", "error: enoent: no such file or directory, open #"),
    ("open /tmp/x/y.txt: permission denied", "open #: permission denied"),
    ("read_file: no such file: src/app.py", "read_file: no such file: #"),
    ("request 3fa85f64-5717-4562-b3fc-2c963f66afa6 failed after 2.5s", "request # failed after #s"),
    ("HTTP 404 for https://api.example.com/v1/items/123", "http # for #"),
    ("commit deadbeef12 missing", "commit # missing"),
    ("session 01K8ZABCDEFGHJKMNPQRSTVWXY not found", "session # not found"),
    ("bad utf8 at byte 17", "bad utf8 at byte #"),  # a digit inside a word is not noise
    ("\n\n  Timeout:   30000 ms\nstack trace line", "timeout: # ms"),  # first non-blank line only
])
def test_signature_normalizes_run_specific_noise(error, expected):
    assert signature(error) == expected


def test_a_failure_then_a_different_successful_call_is_a_recovery():
    found = recoveries(trace(("upload", {"path": "./shot.png"}, "files.length remained 0"),
                             ("list_dir", {"path": "."}, None),  # looking around in between is fine
                             ("upload", {"path": "/Users/me/shot.png"}, None)))
    assert [(r.tool, r.sig, r.succeeded.input) for r in found] == [
        ("upload", "files.length remained #", {"path": "/Users/me/shot.png"})]


@pytest.mark.parametrize("calls", [
    # identical input that happened to work: flakiness, not a lesson
    [("upload", {"path": "./a.png"}, "timeout 30"), ("upload", {"path": "./a.png"}, None)],
    # key order does not make an input different
    [("upload", {"a": 1, "b": 2}, "boom"), ("upload", {"b": 2, "a": 1}, None)],
    # never recovered
    [("upload", {"path": "./a.png"}, "boom"), ("read_file", {"path": "./a.png"}, None)],
    # the retry of the same tool failed too, and nothing followed
    [("upload", {"path": "./a.png"}, "boom"), ("upload", {"path": "b.png"}, "boom again")],
])
def test_no_record_without_a_verified_correction(calls):
    assert recoveries(trace(*calls)) == []


def test_a_chain_of_failures_pairs_the_last_one_with_the_success():
    found = recoveries(trace(("upload", {"path": "1"}, "files.length remained 0"),
                             ("upload", {"path": "2"}, "files.length remained 0"),
                             ("upload", {"path": "3"}, None)))
    assert len(found) == 1 and found[0].failed.input == {"path": "2"}


def test_the_record_follows_the_spec_example_and_redacts_secrets():
    [found] = recoveries(trace(("browser.uploadFile", {"path": "./shot.png"}, "files.length remained 0"),
                               ("browser.uploadFile", {"path": "/Users/me/shot.png"}, None)))
    rec = record_for(found)
    assert rec.title == "browser.uploadFile: files.length remained #"
    assert rec.body == ('When browser.uploadFile fails with "files.length remained #", use the corrected call '
                        'shape that succeeded: {"path":"/Users/me/shot.png"}')
    assert rec.evidence == 'failed: {"path":"./shot.png"} → succeeded: {"path":"/Users/me/shot.png"}'
    assert rec.category is Category.error_fix and rec.confidence == 1.0

    # The key's value is redacted as the trace is built (a retry that changed only it is no lesson at all:
    # tests/reliability/test_secrets.py); the url the retry corrected is what the record keeps.
    [secret] = recoveries(trace(("http", {"url": "x", "api_key": "sk-1"}, "401 unauthorized"),
                                ("http", {"url": "y", "api_key": "sk-2"}, None)))
    assert "sk-" not in record_for(secret).body and "sk-" not in record_for(secret).evidence


def test_the_record_keeps_only_the_fields_the_retry_changed():
    body = "# A whole post\n" * 40
    [found] = recoveries(trace(("write_file", {"path": "/abs/post.md", "content": body}, "path is outside the root"),
                               ("write_file", {"path": "posts/post.md", "content": body}, None)))
    rec = record_for(found)
    assert rec.body.endswith('use the corrected call shape that succeeded: {"path":"posts/post.md"}')
    assert rec.evidence == 'failed: {"path":"/abs/post.md"} → succeeded: {"path":"posts/post.md"}'
    [dropped] = recoveries(trace(("q", {"a": 1, "b": 2}, "bad b"), ("q", {"a": 1}, None)))
    assert record_for(dropped).evidence == 'failed: {"a":1,"b":2} → succeeded: {"a":1}'


# ---------------------------------------------------------------- through the flow


def test_tool_errors_alone_makes_no_model_call_and_stores_a_stamped_record(tmp_path):
    agent = make_agent(tmp_path / "p", TOOL_ONLY)
    session = make_session(agent, UPLOAD_FAIL)
    helper = ScriptedHelper()  # any model call would fail the test: nothing is scripted
    report = run_capture(agent=str(agent), session=str(session), helper=helper, today=TODAY)
    assert helper.usage.calls == 0
    assert report.line.startswith("Extracted 1 learning(s), 0 quarantined → ")
    [rec] = stored(agent)
    assert (rec.ch, rec.src, rec.category, rec.state) == (Channel.tool_errors, Source.auto, Category.error_fix,
                                                          State.active)
    assert (rec.tool, rec.sig, rec.confidence) == ("upload", "files.length remained #", 1.0)
    assert rec.sess == session.stem and rec.ih and rec.date == "2026-08-19"
    assert rec.evidence == 'failed: {"path":"./shot.png"} → succeeded: {"path":"/Users/me/shot.png"}'


def test_flaky_success_is_not_captured(tmp_path):
    agent = make_agent(tmp_path / "p", TOOL_ONLY)
    session = make_session(agent, [("upload", {"path": "a"}, "timeout"), ("upload", {"path": "a"}, None)])
    report = run_capture(agent=str(agent), session=str(session), helper=ScriptedHelper(), today=TODAY)
    assert report.extracted == 0 and stored(agent) == []


def test_one_record_per_failure_mode_refreshed_then_superseded(tmp_path):
    agent = make_agent(tmp_path / "p", TOOL_ONLY)
    first = make_session(agent, UPLOAD_FAIL, session_id="01K8ZCAPTURE0000000000001A")
    run_capture(agent=str(agent), session=str(first), helper=ScriptedHelper(), today=TODAY)
    [original] = stored(agent)

    again = make_session(agent, UPLOAD_FAIL, session_id="01K8ZCAPTURE0000000000002A")
    report = run_capture(agent=str(agent), session=str(again), helper=ScriptedHelper(), today=TODAY)
    [refreshed] = stored(agent)
    assert report.extracted == 0  # the same recovery again is not a new learning
    assert refreshed.id == original.id and refreshed.sess == again.stem and refreshed.body == original.body

    better = make_session(agent, [("upload", {"path": "shot.png"}, "files.length remained 3"),
                                  ("upload", {"path": "./assets/shot.png"}, None)],
                          session_id="01K8ZCAPTURE0000000000003A")
    run_capture(agent=str(agent), session=str(better), helper=ScriptedHelper(), today=TODAY)
    [superseded] = stored(agent)
    assert superseded.id == original.id and "./assets/shot.png" in superseded.body
    [old] = archived(agent)
    assert old.body == original.body and old.state is State.retired  # replaced, never deleted


def test_a_graduated_failure_mode_is_not_captured_again(tmp_path):
    agent = make_agent(tmp_path / "p", TOOL_ONLY)
    seed(agent, [rule("aaaa0001", "upload: files.length remained #", ch=Channel.tool_errors, tool="upload",
                      sig="files.length remained #", state=State.graduated)])
    report = run_capture(agent=str(agent), session=str(make_session(agent, UPLOAD_FAIL)),
                             helper=ScriptedHelper(), today=TODAY)
    assert report.extracted == 0 and len(stored(agent)) == 1


def test_tool_errors_records_skip_the_vet(tmp_path):
    agent = make_agent(tmp_path / "p")  # tool-errors + custom
    helper = ScriptedHelper(extract=[drafts("Save posts under posts/ with a dated filename")], vet=[passing])
    run_capture(agent=str(agent), session=str(make_session(agent, UPLOAD_FAIL)), helper=helper, today=TODAY)
    [vet_request] = helper.requests["vet"]
    assert [c.text for c in vet_request.candidates] == ["Save posts under posts/ with a dated filename"]
    assert {r.ch for r in stored(agent)} == {Channel.tool_errors, Channel.custom}
