"""`agentuse learnings tidy` and `agentuse learnings undo` through the CLI (spec: Tidying up)."""

from __future__ import annotations

import json
import re

import pytest
from tidy_scenario import SPEC_SUMMARY, Scenario, install
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.helper.factory import override_helper

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def agent(tmp_path):
    path = install(tmp_path, store.locate)
    with override_helper(Scenario().helper()):
        yield path


def test_tidy_prints_the_spec_lines_then_done_and_what_became_permanent(agent):
    result = invoke("learnings", "tidy", agent)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "  reading 58 learnings to see what repeats…"
    assert re.fullmatch(r"  rewriting \d+ rules…", lines[1])
    assert lines[2].startswith("  pass 2: reading ") and re.fullmatch(r"  pass 2: rewriting \d+ rules?…", lines[3])
    assert lines[4:8] == ["  writing both files…", "", "Done", f"  {SPEC_SUMMARY}"]
    assert "  Now permanent in the agent file:" in lines
    assert "    Check every link before saving" in lines
    assert "  + [tip] Check every link before saving" in lines  # the block edit
    # ... and the diff of both files, as written.
    assert "Diff of both files:" in lines
    assert "+++ b/blog-writer.learnings.md" in lines and "+++ b/blog-writer.agentuse" in lines
    assert "+- [tip] Check every link before saving" in lines


def test_dry_run_prints_the_plan_and_both_diffs_and_writes_nothing(agent):
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes()
    result = invoke("learnings", "tidy", agent, "--dry-run")
    assert result.exit_code == 0
    assert "Plan (dry run — nothing written)" in result.output and "writing both files" not in result.output
    assert "--- a/blog-writer.learnings.md" in result.output and "--- a/blog-writer.agentuse" in result.output
    assert '  pass 1: retire "Keep post titles short" — superseded by "Keep post titles under 60 characters"' \
        in result.output
    assert (agent.read_bytes(), location.store_path.read_bytes()) == before


def test_json_carries_the_summary_and_every_count(agent):
    result = invoke("learnings", "tidy", agent, "--json")
    data = json.loads(result.output)
    assert data["summary"] == SPEC_SUMMARY
    assert data["counts"]["after"] == 15 and data["written"] is True
    assert [p["pass_no"] for p in data["passes"]] == [1, 2]


def test_nothing_to_tidy_up(tmp_path):
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nlearning: true\n---\n\n# A\n\nDo things.\n")
    result = invoke("learnings", "tidy", agent)
    assert result.output == "Nothing to tidy up\n"


def test_undo_restores_and_then_has_nothing_left(agent):
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes()
    invoke("learnings", "tidy", agent)

    undone = invoke("learnings", "undo", agent)
    assert undone.exit_code == 0
    assert undone.output.startswith("Undid the tidy-up of ") and f"({SPEC_SUMMARY})" in undone.output
    assert (agent.read_bytes(), location.store_path.read_bytes()) == before

    again = invoke("learnings", "undo", agent)
    assert again.exit_code == 1
    assert "error: Nothing to undo" in again.output


def test_rules_with_no_hash_are_reported_as_backfilled_not_as_stale(tmp_path):
    # Spec (Rules are stamped): rules with no hash at all are not stale; they stay injectable until the first
    # capture or tidy backfills them. Only rules whose hash no longer matches were held out and "inject again".
    from agentuse.core.contract import agent_hash
    from agentuse.core.agent_file import load_agent
    from agentuse.core.helper.offline import OfflineHelper

    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nlearning: true\n---\n\n# A\n\nWrite short posts.\n")
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(
        "# Learnings for a\n\n"
        "### [tip] Name the tool in every tip\n<!-- id:11111111 | 2025-01-02 -->\nName the tool in every tip.\n\n"
        "### [tip] Open with a question\n<!-- id:22222222 | ih:0c1d2e3f4a5b | 2025-01-03 -->\nOpen with a question.\n")
    assert agent_hash(load_agent(agent)) != "0c1d2e3f4a5b"
    with override_helper(OfflineHelper()):
        out = invoke("learnings", "tidy", agent).output
    assert "  1 stale learning(s) re-vetted and re-stamped: they inject again.\n" in out
    assert "  1 learning(s) with no instruction hash vetted and stamped against the current instructions.\n" in out


# ---------------------------------------------------------------- a retire is audited (review 19)

def test_a_plan_that_retires_a_persons_rule_for_one_that_does_not_state_it_retires_nothing(tmp_path, cli,
                                                                                            fake_anthropic):
    """Spec: retire what has been superseded. The plan names the rule that now states the retired one, and
    that claim is audited like a merge's: a model cannot retire a person's rule by naming any other rule."""
    import re as regex

    from capture_support import current_ih, make_agent, rule, seed, stored
    from fakes import tool_use
    from agentuse.core.learning import Source

    agent = make_agent(tmp_path / "p", "learning:\n  max: 15")
    ih = current_ih(agent)
    seed(agent, [rule("a1a1a1a1", "Keep every post between 150 and 200 words", src=Source.manual, ih=ih),
                 rule("b2b2b2b2", "Keep posts short", src=Source.manual, ih=ih),
                 rule("c3c3c3c3", "Cite sources before publishing", ih=ih),
                 rule("d4d4d4d4", "Link every source the post uses before publishing it", ih=ih)])
    audits = []

    def model(request):
        tool = request.forced_tool
        if tool == "submit_plan_groups":
            return tool_use(tool, {"moves": [
                {"kind": "retire", "ids": ["a1a1a1a1"], "superseded_by": "b2b2b2b2", "reason": "b2 says it"},
                {"kind": "retire", "ids": ["c3c3c3c3"], "superseded_by": "d4d4d4d4", "reason": "d4 says it"}]})
        if tool == "submit_audit":
            originals = regex.findall(r'<rule id="([^"]+)"', request.text)
            audits.append(originals)
            return tool_use(tool, {"missing": [{"id": "a1a1a1a1", "what": 'the bound "between 150 and 200 words"'}]
                                   if "a1a1a1a1" in originals else []})
        return tool_use(tool, {"verdicts": []} if tool == "submit_vet" else {"moves": []})

    fake_anthropic.script(default=model)
    result = cli("learnings", "tidy", agent)
    assert sorted(set(map(tuple, audits))) == [("a1a1a1a1",), ("c3c3c3c3",)]  # one rule each, no merge
    assert sorted(r.id for r in stored(agent)) == ["a1a1a1a1", "b2b2b2b2", "d4d4d4d4"]
    assert 'retire of "Keep every post between 150 and 200 words" not applied: "Keep posts short" does not ' \
           'carry the bound "between 150 and 200 words"' in result.stdout


def test_a_models_megabyte_reasons_print_as_short_lines(tmp_path, cli, fake_anthropic):
    """A model's reasons (a move's, an audit's "what", a drop's) are printed, kept in the snapshot and shown
    on the tidy-up page: a hostile answer's megabyte reason is one short line, like a vet's quote."""
    import re as regex

    from capture_support import current_ih, make_agent, rule, seed, stored
    from fakes import tool_use

    huge = "because " * 200_000
    agent = make_agent(tmp_path / "p", "learning:\n  max: 15")
    agent.write_text(agent.read_text() + "\n<!-- agentuse:learned -->\n## Learned Guidance\n\n"
                     "- [tip] Cite sources\n- [tip] Cite every source\n<!-- /agentuse:learned -->\n")
    ih = current_ih(agent)
    seed(agent, [rule("a1a1a1a1", "Keep posts short", ih=ih), rule("b2b2b2b2", "Keep posts brief", ih=ih),
                 rule("c3c3c3c3", "Keep posts under 200 words", ih=ih)])

    def model(request):
        tool = request.forced_tool
        rules = regex.findall(r'<rule id="([^"]+)"', request.text)
        ids = regex.findall(r'<candidate id="([^"]+)"', request.text)
        answers = {
            "submit_plan_groups": {"moves": [{"kind": "merge", "ids": ["a1a1a1a1", "b2b2b2b2", "c3c3c3c3"],
                                              "reason": huge}]},
            "submit_rewrite_group": {"rule": {"title": "Keep posts short"}, "covers": rules},
            "submit_audit": {"missing": [{"id": "c3c3c3c3", "what": huge}] if "c3c3c3c3" in rules else []},
            "submit_vet": {"verdicts": [{"id": i, "verdict": "pass", "detail": huge} for i in ids]},
            "submit_rewrite_block": {"rules": [{"text": "Cite every source", "covers": ["b2"]}],
                                     "dropped": [{"id": "b1", "reason": huge, "stated_by": "b2"}]}}
        return tool_use(tool, answers[tool])

    fake_anthropic.script(default=model)
    result = cli("learnings", "tidy", agent)
    assert "because because" in result.stdout and len(result.stdout) < 20_000
    assert ("c3c3c3c3", "Keep posts under 200 words") in {(r.id, r.title) for r in stored(agent)}  # put back untouched
    shown = cli("learnings", "tidy", agent, "--dry-run", "--json")
    assert len(shown.stdout) < 50_000


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_tidy_up_whose_model_calls_failed_exits_1_after_saying_so(tmp_path, cli, fake_anthropic, as_json):
    """A nightly `learnings tidy` with its key revoked: every re-vet and plan call failed, the output said
    so in its notes ('could not be planned', 'tidying up again would get further') and the job exited 0,
    so the schedule read as healthy night after night. What it could do without a model is still done."""
    from capture_support import make_agent, rule, seed
    from fakes import unauthorized

    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]\n  max: 15")
    seed(agent, [rule(f"{n:08x}", f"Rule {n} about topic {n}") for n in range(20)])
    fake_anthropic.script(default=lambda request: unauthorized())
    done = cli("learnings", "tidy", agent, *(["--json"] if as_json else []), code=1)
    if as_json:
        assert json.loads(done.stdout)["failed_calls"] > 0
    else:
        assert "could not be" in done.stdout
    assert len(fake_anthropic.requests) > 0
