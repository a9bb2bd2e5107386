"""`agentuse serve` through its ASGI app: pages show what the CLI shows, forms do what the CLI does, and
nothing changes state without the CSRF token, and nothing at all without the server token (the harness
holds it, as a browser does once it opened the printed address)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from agentuse.core import store
from agentuse.core.describe import describe
from agentuse.core.learning import Source, State
from agentuse.core.status_text import render_learnings
from agentuse.runtime.approval import find_session
from agentuse.serve.app import create_app
from agentuse.serve.jobs import TidyJobs
from serve_project import (AGENT_KEY, SCRIPT_RULE, SERVE_TOKEN, add_rules, awaiting_review, csrf_of, make_project,
                           overcap_store, recorded_replies, rule, signed_in)

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"


@pytest.fixture
def agent(tmp_path) -> Path:
    return make_project(tmp_path / "blog")


@pytest.fixture
def app(agent):
    return create_app(agent.parent.parent, token=SERVE_TOKEN)


@pytest.fixture
def client(app) -> TestClient:
    return signed_in(app)


def post(client: TestClient, page: str, action: str, data: dict | None = None, **kw):
    """Submit a form the way a browser does: read the page's CSRF field, send it back with the cookie."""
    token = csrf_of(client.get(page).text)
    return client.post(action, data={"csrf": token, **(data or {})}, follow_redirects=False, **kw)


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# ------------------------------------------------------------------------------------------------ pages


def test_agents_page_lists_every_agent_with_its_summary(client, agent):
    (agent.parent / "sub").mkdir()
    (agent.parent / "sub" / "other.agentuse").write_text("---\nmodel: anthropic:claude-sonnet-5\n---\n# Other\n")
    (agent.parent / "broken.agentuse").write_text("---\nlearning:\n  criteria: old\n---\n# Broken\n")
    page = client.get("/")
    assert page.status_code == 200
    text = text_of(page.text)
    _, _, report = describe(agent)
    assert f"{report.injected} of {report.active} apply per run" in text
    assert f"{report.stale} stale" in text and f"{report.quarantined} quarantined" in text
    assert f'href="{LEARNINGS}"' in page.text
    assert "agents/sub/other.agentuse" in text
    assert '"criteria" was removed' in page.text.replace("&#34;", '"')  # shown inline, not a crash


def test_learnings_tab_has_the_cli_groups_and_counts(client, agent):
    _, _, report = describe(agent)
    cli_titles = [line for line in render_learnings(report).splitlines() if line and not line.startswith(" ")]
    page = client.get(LEARNINGS)
    assert page.status_code == 200
    found = re.findall(r'data-group="(\w+)"[^>]*>\s*<summary>(.*?)</summary>', page.text, re.S)
    headings = [text_of(h) for _, h in found]
    # The CLI's titles and counts, every one; ordered for a reviewer: what needs a decision before what waits.
    assert sorted(headings[: len(cli_titles)]) == sorted(t.replace("&", "&amp;") for t in cli_titles)
    order = [key for key, _ in found]
    assert order.index("applied") < order.index("quarantined") < order.index("stale")
    assert headings[-1].startswith("In agent file — Learned Guidance (1)")
    text = text_of(page.text)
    assert "why: contradicts the contract: &#34;End with a clear call-to-action&#34;" in text
    for badge in ("applied", "dormant", "stale", "quarantined", "in agent file"):
        assert f">{badge}</span>" in page.text


def test_learnings_json_is_the_cli_json(client, agent):
    _, _, report = describe(agent)
    assert client.get(LEARNINGS + ".json").json() == report.model_dump(mode="json")


def test_outside_the_cap_and_stranded_files_are_shown_with_what_to_do(client, agent):
    add_rules(agent, [rule(f"c{i:07x}", f"Correction {i}", src=Source.manual, date="2026-08-20") for i in range(20)])
    agent.with_name(agent.name + ".learnings.md").write_text("# old\n")
    text = text_of(client.get(LEARNINGS).text)
    assert "outside the cap" in text
    assert f"Fold the set down: agentuse learnings tidy {AGENT_KEY}" in text
    assert f"learnings found at the old location for {AGENT_KEY}" in text
    assert "No longer read. Move them: agentuse learnings migrate --all" in text


def test_rule_text_with_markup_stays_inert(client, agent):
    add_rules(agent, [rule("5c41p7ed", SCRIPT_RULE, state=State.quarantined, why='contradicts "<img src=x onerror=alert(1)>"',
                           body="<script>alert(1)</script>")])
    html = client.get(LEARNINGS).text
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;document.title=&#34;pwned&#34;&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<script>" not in client.get("/").text


def test_an_unknown_agent_is_a_404_page_not_a_path_outside_the_project(client):
    # %2F survives URL normalisation, so the app itself sees the dot-dot key and must refuse it.
    for key in ("..%2F..%2Fetc%2Fpasswd", "nope.agentuse", "agents%2F..%2Fagents%2Fblog-writer.agentuse"):
        page = client.get(f"/agents/{key}/learnings")
        assert page.status_code == 404
        assert "no agent file" in page.text


def test_an_agent_key_longer_than_a_file_name_can_be_is_a_404_page(client):
    """The file system refuses the name (ENAMETOOLONG): that is no agent file, not a server error."""
    for key in ("a" * 5000 + ".agentuse", "a/" * 3000 + "x.agentuse"):
        for path in (f"/agents/{key}/learnings", f"/agents/{key}/tidy/last"):
            page = client.get(path)
            assert page.status_code == 404 and "no agent file" in page.text, path


def test_an_unexpected_error_is_a_styled_500_page_that_names_no_path_and_no_traceback(app, monkeypatch):
    from starlette.testclient import TestClient

    from agentuse.serve import agents

    def broken(path):
        raise RuntimeError("/home/someone/secret-project/store.md: boom")

    monkeypatch.setattr(agents, "describe", broken)
    client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    client.get("/", params={"token": SERVE_TOKEN})
    page = client.get(LEARNINGS)
    assert page.status_code == 500 and 'data-testid="problem"' in page.text
    assert "terminal running agentuse serve" in page.text
    assert "secret-project" not in page.text and "Traceback" not in page.text and "boom" not in page.text
    assert page.headers.get("x-frame-options") == "DENY"  # the hardened headers, even here


def test_a_model_fault_is_a_502_page_with_its_message(client, monkeypatch):
    """HelperError is an AgentuseError: the page says what failed, as the CLI's one line does."""
    from agentuse.core.helper.protocol import TransientHelperError
    from agentuse.serve import agents

    def outage(path):
        raise TransientHelperError("anthropic:claude: overloaded after 3 attempts", operation="vet")

    monkeypatch.setattr(agents, "describe", outage)
    page = client.get(LEARNINGS)
    assert page.status_code == 502 and "overloaded after 3 attempts" in page.text

# ------------------------------------------------------------------------------------------------ add, discard


def test_the_add_box_saves_a_manual_rule_through_the_deliberate_learning_flow(client, agent):
    answer = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/learnings/add",
                  {"text": "Link the primary study itself, never a news article about it."})
    assert answer.status_code == 303
    page = client.get(answer.headers["location"]).text
    assert "[Learning] Saved &#34;Link the primary study itself" in page
    saved = [r for r in store.load(store.locate(agent)).learnings if r.title.startswith("Link the primary study")]
    assert len(saved) == 1 and saved[0].src is Source.manual and saved[0].ch.value == "corrections"
    assert 'data-id="%s"' % saved[0].id in page
    empty = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/learnings/add", {"text": "  "})
    assert "Write the correction first" in client.get(empty.headers["location"]).text



def test_discarding_a_quarantined_rule_archives_it(client, agent):
    location = store.locate(agent)
    answer = post(client, LEARNINGS, f"{LEARNINGS.replace('/learnings', '')}/learnings/d4e5f6a7/discard")
    assert answer.status_code == 303
    assert "d4e5f6a7" not in {r.id for r in store.load(location).learnings}
    archived = {r.id: r for r in store.load_archive(location).learnings}
    assert archived["d4e5f6a7"].state is State.retired
    shown = client.get(answer.headers["location"]).text
    assert "Discarded &#34;Skip the call-to-action on short posts&#34; (archived, id:d4e5f6a7)." in shown


def test_every_rule_in_the_store_can_be_discarded_with_the_cli_s_function(client, agent):
    location = store.locate(agent)
    rules = store.load(location).learnings
    assert {r.state for r in rules} >= {State.active, State.quarantined}
    page = client.get(LEARNINGS).text
    for r in rules:  # applied, dormant, stale, outside the cap and quarantined alike
        assert f'action="/agents/{AGENT_KEY}/learnings/{r.id}/discard"' in page
    answer = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/learnings/a1b2c3d4/discard")
    assert answer.status_code == 303
    assert "a1b2c3d4" not in {r.id for r in store.load(location).learnings}
    [archived] = [r for r in store.load_archive(location).learnings if r.id == "a1b2c3d4"]
    assert archived.why == "retired: discarded by hand"  # what `agentuse learnings discard` writes
    unknown = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/learnings/a1b2c3d4/discard")
    assert unknown.status_code == 400 and "no learning with id" in unknown.text


# ------------------------------------------------------------------------------------------------ safety


def test_every_post_route_is_csrf_protected(app, client, agent):
    posts = [r for r in app.routes if isinstance(r, Route) and "POST" in (r.methods or ())]
    assert len(posts) >= 5
    assert all(getattr(r.endpoint, "csrf_protected", False) for r in posts), [r.path for r in posts]
    sid = awaiting_review(agent)
    client.get("/")  # the browser has its CSRF cookie; the forged request lacks the field
    for action in (f"/agents/{AGENT_KEY}/learnings/d4e5f6a7/discard", f"/sessions/{sid}/resume",
                   f"/agents/{AGENT_KEY}/tidy", f"/agents/{AGENT_KEY}/undo", f"/agents/{AGENT_KEY}/learnings/add"):
        for data in ({}, {"csrf": "0" * 64}):
            answer = client.post(action, data={**data, "decision": "approve", "text": "x"}, follow_redirects=False)
            assert answer.status_code == 403, action
    assert "d4e5f6a7" in {r.id for r in store.load(store.locate(agent)).learnings}
    assert find_session(sid).status == "awaiting_review"


def test_a_csrf_field_from_another_browser_is_refused(app, agent):
    mine, theirs = (signed_in(app) for _ in range(2))
    their_token = csrf_of(theirs.get(LEARNINGS).text)
    mine.get(LEARNINGS)
    answer = mine.post(f"/agents/{AGENT_KEY}/learnings/d4e5f6a7/discard", data={"csrf": their_token})
    assert answer.status_code == 403


def test_only_loopback_hosts_are_served_unless_widened_for_a_remote_bind(agent):
    for token in (SERVE_TOKEN, None):  # the token does not widen it: `--no-token` does not either
        app = create_app(agent.parent.parent, token=token)
        assert signed_in(app, "http://localhost:8765").get("/").status_code == 200
        assert TestClient(app, base_url="http://evil.example").get("/").status_code == 400  # DNS rebinding
    remote = create_app(agent.parent.parent, token=SERVE_TOKEN, allowed_hosts=["*"])
    assert signed_in(remote, "http://192.168.1.5:8765").get("/sessions").status_code == 200


def test_every_request_needs_the_token(app):
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    assert client.get("/").status_code == 403
    assert client.get(LEARNINGS + ".json").status_code == 403
    assert client.get("/static/style.css").status_code == 403
    assert client.get("/", params={"token": "wrong"}).status_code == 403
    first = client.get("/sessions", params={"token": SERVE_TOKEN}, follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/sessions"  # token leaves the URL
    assert client.get("/").status_code == 200  # the cookie carries it from now on
    for scheme in ("token", "Bearer"):
        script = TestClient(app, base_url="http://127.0.0.1:8765")
        assert script.get("/", headers={"Authorization": f"{scheme} {SERVE_TOKEN}"}).status_code == 200


# ------------------------------------------------------------------------------------------------ sessions


# Cookies are per host, not per port: every app a browser opened on 127.0.0.1 sends its cookies here too,
# and plenty write values Python's SimpleCookie refuses whole (JSON, a space, a bare name, non-ASCII).
NEIGHBOURS = ['prefs={"theme":"dark","tabs":[1,2]}', "greeting=hello world", "seen", "name=José",
              'messages="unterminated', r"path=C:\\temp"]


@pytest.mark.parametrize("neighbour", NEIGHBOURS)
def test_another_local_app_s_cookie_neither_locks_the_browser_out_nor_breaks_its_forms(app, agent, neighbour):
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    exchange = client.get("/", params={"token": SERVE_TOKEN}, follow_redirects=False)
    token_cookie = exchange.headers["set-cookie"].split(";")[0]
    page = client.get(LEARNINGS, headers={"Cookie": f"{neighbour}; {token_cookie}".encode()})  # UTF-8, as sent
    assert page.status_code == 200, page.text[:200]  # not 'needs its token' right after opening the address
    csrf_cookie = page.headers["set-cookie"].split(";")[0]
    jar = f"{neighbour}; {token_cookie}; {csrf_cookie}".encode()
    again = client.get(LEARNINGS, headers={"Cookie": jar})
    assert "set-cookie" not in again.headers  # the browser's CSRF cookie is read, not minted anew each time
    discard = client.post(f"/agents/{AGENT_KEY}/learnings/d4e5f6a7/discard", data={"csrf": csrf_of(again.text)},
                          headers={"Cookie": jar}, follow_redirects=False)
    assert discard.status_code == 303, discard.text[:200]
    assert "d4e5f6a7" not in {r.id for r in store.load(store.locate(agent)).learnings}


def test_sessions_list_and_detail_show_events_tool_errors_and_the_review_form(client, agent):
    sid = awaiting_review(agent)
    listing = client.get("/sessions")
    assert sid in listing.text and "awaiting review" in listing.text
    assert sid in client.get("/sessions", params={"agent": AGENT_KEY}).text
    assert sid not in client.get("/sessions", params={"agent": "other.agentuse"}).text
    page = client.get(f"/sessions/{sid}")
    text = text_of(page.text)
    assert "Tool calls (2, 1 failed)" in text and "error:" in text
    assert "run_start" in text and "approval_request round 1" in text
    assert "Learn from this comment" in text
    for label in ("Approve", "Request changes", "Reject"):
        assert f">{label}</button>" in page.text


def test_a_session_log_that_cannot_be_read_is_named_and_the_rest_are_listed(client, agent):
    sid = awaiting_review(agent)
    folder = store.locate(agent).session_dir / "01KFOLDER0000000000000000000.jsonl"
    folder.mkdir()  # a folder where a log should be
    listing = client.get("/sessions")
    assert listing.status_code == 200 and sid in listing.text
    unread = re.search(r'data-testid="unreadable-logs">(.*?)</', listing.text, re.S)
    assert unread and f"{folder}: is a directory, not a session log" in unread.group(1)


def test_a_session_lists_the_learnings_it_produced_and_its_quarantined_ones_can_be_discarded(client, agent):
    sid = awaiting_review(agent)
    add_rules(agent, [rule("aa11bb22", "Publish drafts without review", src=Source.manual, sess=sid,
                           state=State.quarantined, why='contradicts the contract: "Never publish unreviewed"')])
    page = client.get(f"/sessions/{sid}").text
    assert "Learnings from this session (1)" in page and "Publish drafts without review" in page
    assert f'href="/agents/{AGENT_KEY}/learnings#rule-aa11bb22"' in page  # managed where every rule is
    assert 'data-testid="tidy-up"' not in page  # nothing competes with the review's own buttons
    assert 'id="rule-aa11bb22"' in client.get(LEARNINGS).text
    post(client, LEARNINGS, f"/agents/{AGENT_KEY}/learnings/aa11bb22/discard")
    assert "aa11bb22" in {r.id for r in store.load_archive(store.locate(agent)).learnings}


def test_outside_git_every_agent_folder_is_its_own_project_and_its_sessions_are_found(tmp_path):
    plain = tmp_path / "plain"
    (plain / "agents").mkdir(parents=True)
    agent = plain / "agents" / "writer.agentuse"
    agent.write_text((Path(__file__).parent.parent / "examples" / "blog-writer.agentuse").read_text())
    sid = awaiting_review(agent)
    client = signed_in(create_app(plain, token=SERVE_TOKEN))
    listing = client.get("/sessions", params={"agent": "agents/writer.agentuse"}).text
    assert sid in listing and 'href="/agents/agents/writer.agentuse/learnings"' in listing
    assert "Learn from this comment" in client.get(f"/sessions/{sid}").text


def test_approve_completes_the_session_and_credits_the_rules_in_force(client, agent):
    sid = awaiting_review(agent)
    injected = find_session(sid).injected
    before = {r.id: r.ok for r in store.load(store.locate(agent)).learnings}
    answer = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "approve"})
    assert answer.status_code == 303
    assert find_session(sid).status == "completed"
    after = {r.id: r.ok for r in store.load(store.locate(agent)).learnings}
    assert injected and all(after[i] == before[i] + 1 for i in injected)
    assert f"Session {sid}: completed." in client.get(answer.headers["location"]).text


def test_learn_from_this_comment_is_remember_with_the_comment_text(client, agent):
    sid = awaiting_review(agent)
    refused = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "approve", "learn": "1"})
    assert "Learn from this comment needs a comment" in client.get(refused.headers["location"]).text
    assert find_session(sid).status == "awaiting_review"
    answer = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume",
                  {"decision": "approve", "comment": "Headings should be in sentence case.", "learn": "1"})
    session = find_session(sid)
    assert session.status == "completed"
    assert session.decisions[-1].comment == session.decisions[-1].remember == "Headings should be in sentence case."
    assert any(line.startswith('[Learning] Saved "Headings should be in sentence case') for line in session.learning)
    shown = client.get(answer.headers["location"]).text
    assert "[Learning] Saved &#34;Headings should be in sentence case" in shown  # the flash and the log line
    rules = [r for r in store.load(store.locate(agent)).learnings if r.title.startswith("Headings should be")]
    assert len(rules) == 1 and rules[0].src is Source.manual


def test_request_changes_revises_with_the_comment_and_reject_ends_it(client, agent, tmp_path):
    replies = recorded_replies(tmp_path / "rec", "Draft one", "Draft two")
    sid = awaiting_review(agent, replies)
    empty = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "revise", "comment": " "})
    assert "Request changes needs a comment" in client.get(empty.headers["location"]).text
    post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "revise", "comment": "Shorter, please"})
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.output == "Draft two"
    assert session.decisions[-1].comment == "Shorter, please" and session.decisions[-1].remember is None
    assert [e.type for e in session.events].count("round_start") == 1  # the rules in force re-read, as the CLI does
    post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "reject", "comment": "Not this week"})
    assert find_session(sid).status == "rejected"
    again = post(client, LEARNINGS, f"/sessions/{sid}/resume", {"decision": "approve"})  # no form left here
    assert again.status_code == 400 and "only a session awaiting review can be resumed" in again.text


def test_session_content_is_escaped(client, agent, tmp_path):
    replies = recorded_replies(tmp_path / "rec", "<script>alert('out')</script>")
    sid = awaiting_review(agent, replies, prompt="<img src=x onerror=alert(1)>")
    html = client.get(f"/sessions/{sid}").text
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&#39;out&#39;)&lt;/script&gt;" in html


# ------------------------------------------------------------------------------------------------ tidy jobs


def test_a_second_press_joins_the_running_tidy_up(app, client, agent):
    release = threading.Event()
    calls = []

    class Event:
        def __init__(self, kind, pass_no, count=0):
            self.kind, self.pass_no, self.count = kind, pass_no, count
            self.line = f"{kind} {count}"

    def slow(path, progress, note):
        calls.append(path)
        progress(Event("reading", 1, 20))
        progress(Event("rewriting", 1, 4))
        release.wait(10)
        return None

    app.state.jobs = TidyJobs(runner=slow)
    first = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy", headers={"Accept": "application/json"})
    second = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy", headers={"Accept": "application/json"})
    assert first.status_code == second.status_code == 202
    assert first.json()["joined"] is False and second.json() == {"job": first.json()["job"], "joined": True}
    assert second.headers["location"] == first.json()["job"]
    assert len(calls) == 1
    assert "A tidy-up is running" in client.get(LEARNINGS).text
    release.set()
    job = app.state.jobs.get(first.json()["job"].rsplit("/", 1)[1])
    for _ in range(200):
        if job.status != "running":
            break
        threading.Event().wait(0.02)
    assert job.progress()["rewritten"] == 4 and job.status == "done"


def test_another_spelling_of_the_agent_s_address_joins_its_running_tidy_up(app, client, agent):
    """`agents//blog-writer.agentuse` names the same file as `agents/blog-writer.agentuse` (a doubled slash
    typed or pasted): it must join the tidy-up running on that file, not start a second one beside it."""
    release = threading.Event()
    calls = []

    def slow(path, progress, note):
        calls.append(path)
        release.wait(10)

    app.state.jobs = TidyJobs(runner=slow)
    try:
        first = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy", headers={"Accept": "application/json"})
        other = AGENT_KEY.replace("/", "//")
        assert client.get(f"/agents/{other}/learnings").status_code == 200  # the same agent's tab
        assert "A tidy-up is running" in client.get(f"/agents/{other}/learnings").text
        second = post(client, LEARNINGS, f"/agents/{other}/tidy", headers={"Accept": "application/json"})
        assert second.json() == {"job": first.json()["job"], "joined": True} and len(calls) == 1
    finally:
        release.set()


def _wait(job) -> None:
    for _ in range(3000):
        if job.status != "running":
            return
        threading.Event().wait(0.02)
    raise AssertionError("the tidy-up did not finish")


def test_tidy_up_runs_the_flow_in_the_background_and_the_result_waits_with_undo(app, client, agent):
    overcap_store(agent)
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    started = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy")
    assert started.status_code == 202
    job_url = started.headers["location"]
    assert f'url={job_url}"' in started.text  # a browser without JS moves on to the job page by itself
    job = app.state.jobs.get(job_url.rsplit("/", 1)[1])
    _wait(job)
    state = client.get(job_url + ".json").json()
    assert state["status"] == "done", state
    assert state["lines"][-1] == "writing both files…" and any(l.startswith("reading ") for l in state["lines"])
    assert state["rewritten"] > 0 and " merged, " in state["summary"]
    page = client.get(job_url).text
    assert 'data-testid="tidy-summary"' in page and "Now permanent in the agent file" in page
    assert 'data-file="learnings file"' in page and 'data-file="agent file"' in page
    assert 'data-testid="undo"' in page and "http-equiv=\"refresh\"" not in page
    tab = client.get(LEARNINGS).text
    assert re.search(r"Tidied up (just now|\d+m ago) — see what changed or undo it", tab)
    last = client.get(f"/agents/{AGENT_KEY}/tidy/last").text
    assert 'data-file="agent file"' in last and f'href="{job_url}"' in last
    undone = post(client, job_url, f"/agents/{AGENT_KEY}/undo")
    assert undone.status_code == 303
    assert agent.read_bytes() == agent_before and location.store_path.read_bytes() == store_before
    after = client.get(undone.headers["location"]).text
    assert "Undid the tidy-up of" in after and "see what changed or undo it" not in after
    again = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/undo")
    assert again.status_code == 400 and "Nothing to undo" in again.text


def test_a_tidy_up_from_the_terminal_is_linked_until_it_can_no_longer_be_undone(client, agent):
    from agentuse.flows.tidy import run_tidy

    overcap_store(agent)
    result = run_tidy(agent)
    assert result.written
    tab = client.get(LEARNINGS).text
    assert "see what changed or undo it" in tab
    assert result.summary in client.get(f"/agents/{AGENT_KEY}/tidy/last").text
    from agentuse.core.inject import record_injection

    in_force = [r.id for r in store.load(store.locate(agent)).learnings if r.state is State.active]
    record_injection(store.locate(agent), in_force[:2])  # a run since: still undoable, still linked
    assert "see what changed or undo it" in client.get(LEARNINGS).text
    store.locate(agent).store_path.write_text(store.locate(agent).store_path.read_text() + "\n")  # edited since
    assert "see what changed or undo it" not in client.get(LEARNINGS).text
    assert "can no longer be undone" in client.get(f"/agents/{AGENT_KEY}/tidy/last").text


def test_undo_after_a_run_says_the_runs_counts_are_kept(client, agent):
    from agentuse.core.inject import record_injection
    from agentuse.flows.tidy import run_tidy

    overcap_store(agent)
    assert run_tidy(agent).written
    location = store.locate(agent)
    counted = next(r for r in store.load(location).learnings if r.state is State.active)
    record_injection(location, [counted.id])
    undone = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/undo")
    assert undone.status_code == 303
    page = client.get(undone.headers["location"]).text
    assert "Undid the tidy-up of" in page and "the counts runs recorded since are kept" in page
    assert {r.id: r for r in store.load(location).learnings}[counted.id].injected == counted.injected + 1


def test_the_running_tidy_page_refreshes_itself_without_javascript(app, client):
    release = threading.Event()
    app.state.jobs = TidyJobs(runner=lambda path, progress, note: release.wait(10))
    job_url = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy").headers["location"]
    page = client.get(job_url).text
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert '<script src="/static/tidy.js" defer></script>' in page
    assert "Leaving this page does not stop it" in page
    release.set()
    _wait(app.state.jobs.get(job_url.rsplit("/", 1)[1]))
    assert client.get("/static/tidy.js").status_code == 200


def test_a_tidy_up_that_fails_says_why_on_its_page(app, client):
    from agentuse.core.errors import AgentuseError

    def broken(path, progress, note):
        raise AgentuseError("the learnings file changed while tidying; run it again")

    app.state.jobs = TidyJobs(runner=broken)
    job_url = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy").headers["location"]
    _wait(app.state.jobs.get(job_url.rsplit("/", 1)[1]))
    page = client.get(job_url).text
    assert "The tidy-up stopped" in page and "run it again" in page
    assert client.get("/tidy/nope").status_code == 404


def test_after_leaving_a_tidy_up_that_then_failed_the_learnings_tab_says_so_and_links_its_page(app, client, agent):
    """The tidy page says leaving it does not stop it. A person who left comes back to the Learnings tab:
    a tidy-up that failed meanwhile must be named there, with its page, not vanish without a word."""
    from agentuse.core.errors import AgentuseError

    def broken(path, progress, note):
        raise AgentuseError("the learnings file changed while tidying; run it again")

    app.state.jobs = TidyJobs(runner=broken)
    job_url = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy").headers["location"]
    _wait(app.state.jobs.get(job_url.rsplit("/", 1)[1]))
    tab = client.get(LEARNINGS).text
    assert 'data-testid="tidy-failed"' in tab and "run it again" in tab and f'href="{job_url}"' in tab
    assert "A tidy-up is running" not in tab
    from agentuse.flows.tidy import run_tidy

    overcap_store(agent)
    assert run_tidy(agent).written  # a tidy-up from the terminal since: the failure is old news
    tab = client.get(LEARNINGS).text
    assert "see what changed or undo it" in tab and 'data-testid="tidy-failed"' not in tab


def test_a_tidy_up_stopped_by_a_signal_is_not_shown_running_for_ever(app, client):
    """Prefect stops a flow run with BaseExceptions (Abort when its run is cancelled, TerminationSignal):
    they pass `except Exception`, and the job was left 'running' with its thread gone."""

    class Signal(BaseException):  # what prefect.exceptions.PrefectSignal and ExternalSignal are
        pass

    def cancelled(path, progress, note):
        progress(type("Event", (), {"kind": "pass", "count": 0, "pass_no": 1, "line": "Pass 1: planning"})())
        raise Signal("flow run cancelled")

    app.state.jobs = TidyJobs(runner=cancelled)
    job_url = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy").headers["location"]
    job = app.state.jobs.get(job_url.rsplit("/", 1)[1])
    for _ in range(3000):  # until the job's thread has let the agent go
        if app.state.jobs.current(AGENT_KEY) is None:
            break
        threading.Event().wait(0.02)
    assert job.status == "failed" and client.get(job_url + ".json").json()["status"] == "failed"
    page = client.get(job_url).text
    assert "The tidy-up stopped" in page and "Signal" in page and "Pass 1: planning" in page


def test_the_tidy_page_counts_the_rules_as_the_flow_writes_them(app, client, agent):
    """Spec: the page counts "the rules as it writes them": one written rule shows before its stage ends."""
    import shutil
    from datetime import date

    from tidy_scenario import SEED, Scenario

    from agentuse.flows.tidy import run_tidy

    shutil.copyfile(SEED, store.locate(agent).store_path)
    scenario, release, lock, started = Scenario(), threading.Event(), threading.Lock(), []

    def first_rewrite_only(request):
        with lock:
            started.append(request)
            first = len(started) == 1
        if not first:
            release.wait(10)  # the rest of the stage is still being written
        return scenario.rewrite(request)

    helper = scenario.helper(rewrite_group=first_rewrite_only)
    app.state.jobs = TidyJobs(runner=lambda path, progress, note: run_tidy(
        path, helper=helper, progress=progress, today=date(2026, 11, 30), seed=7))
    job_url = post(client, LEARNINGS, f"/agents/{AGENT_KEY}/tidy").headers["location"]
    try:
        for _ in range(500):
            state = client.get(job_url + ".json").json()
            if state["rewritten"]:
                break
            threading.Event().wait(0.02)
        stage = int(re.fullmatch(r"rewriting (\d+) rules…", state["lines"][-1]).group(1))
        assert state["status"] == "running" and stage > 1
        assert (state["pass"], state["rewritten"], state["rewriting"]) == (1, 1, stage - 1)
        page = text_of(client.get(job_url).text)
        assert f"pass 1 · 1 rule(s) rewritten so far (writing {stage - 1} now)" in page
    finally:
        release.set()
    _wait(app.state.jobs.get(job_url.rsplit("/", 1)[1]))
    state = client.get(job_url + ".json").json()
    result = app.state.jobs.get(job_url.rsplit("/", 1)[1]).result
    assert state["status"] == "done" and state["rewritten"] == sum(p.rewrites for p in result.passes)
    assert state["rewriting"] == 0
    assert all(not line.startswith(("wrote", "written")) for line in state["lines"])  # the CLI's lines only


def test_the_agents_page_says_how_many_rules_were_vetted_offline(client, agent):
    # Issue 16: the provisional count, on the page as the CLI prints it.
    from agentuse.core.status_text import PROVISIONAL_LINE

    location = store.locate(agent)
    doc = store.load(location)
    first = next(r for r in doc.learnings if r.state.value == "active")
    doc.learnings = [r.model_copy(update={"vet": "offline"}) if r.id == first.id else r for r in doc.learnings]
    store.save(location, doc)
    _, _, report = describe(agent)
    assert report.provisional == 1
    assert PROVISIONAL_LINE.format(n=1) in text_of(client.get("/").text)


def test_undo_on_a_tidy_up_page_undoes_that_tidy_up_or_nothing(client, agent):
    """The page's Undo names the pass it shows. A pass that ran after the page was drawn (a run's capture),
    or the same Undo sent twice, must not undo a pass the person never saw: before, it undid the newest."""
    from agentuse.core import snapshots
    from agentuse.flows.tidy import run_tidy

    overcap_store(agent)
    assert run_tidy(agent).written
    location = store.locate(agent)
    last_page = client.get(f"/agents/{AGENT_KEY}/tidy/last").text
    shown = re.search(r'name="snapshot" value="([^"]+)"', last_page).group(1)
    token = csrf_of(last_page)
    with snapshots.store_pass(location, kind="capture re-vet") as work:  # a run's capture, after the page
        rule = next(r for r in work.doc.learnings if r.state is State.active)
        rule.state, rule.why = State.quarantined, 'contradicts the contract: "x"'
        work.summary = "capture re-vet: 1 quarantined"
    after_capture = location.store_path.read_bytes()
    refused = client.post(f"/agents/{AGENT_KEY}/undo", data={"csrf": token, "snapshot": shown}, follow_redirects=False)
    assert refused.status_code == 400 and "is no longer the newest pass: the capture re-vet of" in text_of(refused.text)
    assert location.store_path.read_bytes() == after_capture and len(snapshots.listing(location)) == 2

    snapshots.undo(location)  # the capture's pass, undone from the terminal: the tidy-up is newest again
    undone = client.post(f"/agents/{AGENT_KEY}/undo", data={"csrf": token, "snapshot": shown}, follow_redirects=False)
    assert undone.status_code == 303 and snapshots.listing(location) == []
    again = client.post(f"/agents/{AGENT_KEY}/undo", data={"csrf": token, "snapshot": shown}, follow_redirects=False)
    assert again.status_code == 400 and "That pass was undone already" in text_of(again.text)
