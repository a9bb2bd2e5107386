"""`agentuse serve` end to end in headless Chromium: Debian's /usr/bin/chromium driven by Playwright, against
uvicorn on a free loopback port, at a desktop width (1280 px) and a phone width (390 px). Every test fails on
a console error or an uncaught page error, and every page it opens is checked for horizontal overflow.
Set AGENTUSE_SCREENSHOTS=1 to save the pages to docs/screenshots/ (the README shows them).

Skipped (with the reason) only where Chromium is absent and this is not CI; in CI (`CI=true`) a missing
browser is a failure, because .ci/run installs it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentuse.core import effectiveness, store
from agentuse.core.session_ids import new_session_id
from serve_project import (AGENT_KEY, counted, SERVE_TOKEN, awaiting_review, free_port, make_project, overcap_store,
                           recorded_replies)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() == "true"
SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WAIT_MS = 90_000  # a tidy-up imports Prefect and runs the offline evaluator: seconds, not minutes
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "mobile": {"width": 390, "height": 844}}
LEARNINGS = f"/agents/{AGENT_KEY}/learnings"
REVIEWED = ("# The Two-Minute Inbox Rule\n\nIf a reply takes **less than two minutes**, send it now.\n\n"
            "- Open the inbox once an hour\n- Reply, archive or snooze\n\n| step | time |\n|---|---|\n"
            "| triage | 2 min |\n")
HOSTILE = ("# Plan\n\n<script>window.pwned = 1</script> <img src=x onerror=\"window.pwned = 2\">\n\n"
           "[a link](javascript:window.pwned=3) <a href=\"javascript:window.pwned=4\">raw</a>\n")

if not CHROMIUM.exists() and not IN_CI:
    pytest.skip("headless browser tests need Debian's chromium at /usr/bin/chromium "
                "(apt-get install chromium); CI installs it and runs them", allow_module_level=True)
if not CHROMIUM.exists():
    pytest.fail("CI=true but /usr/bin/chromium is missing: .ci/run must install it", pytrace=False)

from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def agent(tmp_path) -> Path:
    return make_project(tmp_path / "blog")


@contextlib.contextmanager
def serving(app, port: int) -> Iterator[str]:
    """uvicorn in a thread, on 127.0.0.1:`port`; stopped (and joined) on leaving."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, name="uvicorn", daemon=True)
    thread.start()
    for _ in range(500):
        if uv.started or not thread.is_alive():
            break
        threading.Event().wait(0.02)
    assert uv.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        uv.should_exit = True
        thread.join(15)


@pytest.fixture
def server(agent) -> Iterator[str]:
    """The project's server on a free port for the length of the test."""
    from agentuse.serve.app import create_app

    with serving(create_app(agent.parent.parent, token=SERVE_TOKEN), free_port()) as url:
        yield url


def signed_in(browser: Browser, server: str, **options) -> BrowserContext:
    """A browser context that opened the address `agentuse serve` prints: the token is its cookie now."""
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(f"{server}/?token={SERVE_TOKEN}")
    assert page.url == f"{server}/"  # traded for the cookie and gone from the address bar
    page.close()
    return context


class Console:
    """Console errors and uncaught page errors of one page. `expect_404(url)` allows the one error Chromium
    logs for a page that is itself a 404 (that is the page under test, not a broken resource)."""

    def __init__(self, page: Page) -> None:
        self.errors: list[tuple[str, str]] = []
        self.allowed: set[str] = set()
        page.on("console", lambda m: self.errors.append((m.text, m.location.get("url", ""))) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append((f"uncaught: {e}", "")))

    def expect_404(self, url: str) -> None:
        self.allowed.add(url)

    def unexpected(self) -> list[tuple[str, str]]:
        return [(text, url) for text, url in self.errors
                if not (url in self.allowed and "status of 404" in text)]


@pytest.fixture(params=list(VIEWPORTS), ids=list(VIEWPORTS))
def width(request) -> str:
    return request.param


@pytest.fixture
def page(browser, server, width, request) -> Iterator[Page]:
    context = signed_in(browser, server, viewport=VIEWPORTS[width])
    try:
        page = context.new_page()
        page.console = Console(page)  # type: ignore[attr-defined]
        page.width_name = width  # type: ignore[attr-defined]
        yield page
        assert page.console.unexpected() == [], "console errors"  # type: ignore[attr-defined]
    finally:
        context.close()


def visit(page: Page, url: str) -> None:
    """Open a page and check it fits the viewport: nothing wider than the screen."""
    page.goto(url)
    fits(page)


def fits(page: Page) -> None:
    viewport = page.viewport_size["width"]  # type: ignore[index]
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= viewport, f"{page.url} is {wide}px wide at a {viewport}px viewport"


def shot(page: Page, name: str, *, full_page: bool = True, height: int | None = None) -> None:
    """The README's screenshots, refreshed by `AGENTUSE_SCREENSHOTS=1 pytest tests/test_serve_browser.py`.
    `height`: the top of the full page, that many pixels (a long page's first screens)."""
    if os.environ.get("AGENTUSE_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        suffix = "" if getattr(page, "width_name", "desktop") == "desktop" else "-mobile"
        clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height} if height else None  # type: ignore[index]
        page.screenshot(path=str(SHOTS / f"{name}{suffix}.png"), full_page=full_page, clip=clip)


def counted_runs(agent: Path, runs: int = 8) -> None:
    """Sessions in the effectiveness index, a day apart, each with more rules in force: the charts' data."""
    location = store.locate(agent)
    ids = [r.id for r in store.load(location).learnings]
    start = time.time() - runs * 86400
    for day in range(runs):
        digest = effectiveness.SessionDigest(
            outcome=("approved", "commented", "approved", "rejected")[day % 4],
            rounds=[effectiveness.RoundDigest(injected=ids[: min(len(ids), 3 + 2 * day, 15)])])
        counted(agent, new_session_id(clock=lambda: start + day * 86400), digest)


# ------------------------------------------------------------------------------------------------ agents, learnings


def test_add_a_correction_and_see_it_listed(page, server, agent):
    visit(page, server + "/")
    expect(page.locator(f'tr[data-agent="{AGENT_KEY}"]')).to_contain_text("apply per run")
    shot(page, "agents")
    page.click(f"text={AGENT_KEY}")
    expect(page.locator("h1")).to_contain_text(f"Learnings for {AGENT_KEY}")
    page.fill("#add-text", "Link the primary study itself, never a news article about it.")
    page.click('[data-testid="add-learning"]')
    expect(page.locator(".flash")).to_contain_text('[Learning] Saved "Link the primary study itself', timeout=WAIT_MS)
    expect(page.locator('details[data-group="applied"]')).to_contain_text("Link the primary study itself")
    fits(page)
    saved = [r for r in store.load(store.locate(agent)).learnings if r.title.startswith("Link the primary study")]
    assert len(saved) == 1 and saved[0].src.value == "manual"


def test_the_learnings_tab_filters_folds_charts_and_discards_restores_and_edits(page, server, agent):
    overcap_store(agent)
    counted_runs(agent)
    visit(page, server + LEARNINGS)
    groups = page.locator("details.group").evaluate_all("els => els.map(e => e.dataset.group)")
    assert groups.index("quarantined") < groups.index("stale") < groups.index("outside_cap")
    expect(page.locator('details[data-group="outside_cap"]')).not_to_have_attribute("open", "")
    expect(page.locator('[data-testid="in-force-chart"]')).to_be_visible()
    expect(page.locator('[data-testid="rule-chart"]').first).to_be_visible()
    expect(page.locator("#rule-a1b2c3d4 [data-testid=figures]")).to_contain_text("in force 8 runs")
    shot(page, "learnings", height=2000)

    page.select_option("#filter-state", "quarantined")  # one state: only those rules, groups without any hidden
    expect(page.locator("#filter-count")).to_contain_text("1 of ")
    expect(page.locator('details[data-group="applied"]')).to_be_hidden()
    expect(page.locator("#rule-d4e5f6a7")).to_be_visible()
    page.select_option("#filter-state", "")
    page.fill("#filter-text", "jargon")  # words: a match in a folded group unfolds it
    expect(page.locator('details[data-group="outside_cap"]')).to_have_attribute("open", "")
    shown = page.locator("li.rule[data-id]:visible")
    assert shown.count() >= 1 and all("jargon" in t.lower() for t in shown.all_inner_texts())
    page.fill("#filter-text", "")

    page.click("#rule-a1b2c3d4 [data-testid=discard]")
    expect(page.locator(".flash")).to_contain_text("Discarded")
    page.click('details[data-group="archived"] > summary')
    page.click('details[data-group="archived"] #rule-a1b2c3d4 [data-testid=restore]')
    expect(page.locator(".flash")).to_contain_text("Restored", timeout=WAIT_MS)
    assert "a1b2c3d4" in {r.id for r in store.load(store.locate(agent)).learnings}

    page.click("#rule-c3d4e5f6 [data-testid=edit]")
    page.fill("#edit-c3d4e5f6", "Give every tip the minutes it takes, in bold.")
    page.click("#rule-c3d4e5f6 [data-testid=save-edit]")
    expect(page.locator(".flash")).to_contain_text("Replaced", timeout=WAIT_MS)
    expect(page.locator(".flash")).to_contain_text("[Learning] ")  # the add path's own lines: reconciled, vetted
    fits(page)


# ------------------------------------------------------------------------------------------------ sessions


def test_review_a_session_approve_with_learn_and_follow_a_rule_link(page, server, agent, tmp_path):
    sid = awaiting_review(agent, recorded_replies(tmp_path / "rec", REVIEWED))
    visit(page, server + "/sessions")
    expect(page.locator(f'tr[data-session="{sid}"]')).to_contain_text("awaiting review")
    shot(page, "sessions")
    page.click(f"text={sid}")
    fits(page)
    output = page.locator('[data-testid="output"]')
    expect(output.locator("h1")).to_have_text("The Two-Minute Inbox Rule")
    expect(output.locator("table td").first).to_have_text("triage")
    expect(page.locator('[data-testid="history"] [data-kind="round"]')).to_contain_text("learned rule(s) in force")
    assert page.locator("form.review button").all_inner_texts() == ["Approve", "Request changes", "Reject"]
    page.fill("#comment", "Headings should be in sentence case.")
    page.check('[data-testid="learn"]')
    shot(page, "session-review")
    page.click('[data-testid="approve"]')
    expect(page.locator(".flash:not(.error)")).to_contain_text(f"Session {sid}: completed.", timeout=WAIT_MS)
    expect(page.locator(".flash")).to_contain_text('[Learning] Saved "Headings should be in sentence case')
    expect(page.locator("main > h1")).to_contain_text("completed")
    history = page.locator('[data-testid="history"]')
    expect(history.locator('[data-kind="decision"]')).to_contain_text("Approved")
    expect(history.locator('[data-testid="history-comment"]')).to_have_text("Headings should be in sentence case.")
    expect(history.locator('[data-kind="learned"]').first).to_contain_text("Learned: Saved")
    fits(page)
    link = history.locator("a.rule-link").first
    rule_id = link.inner_text()
    link.click()
    expect(page.locator(f"#rule-{rule_id}")).to_be_visible()
    assert page.url.endswith(f"#rule-{rule_id}")
    expect(page.locator('details[data-group="applied"]')).to_contain_text("Headings should be in sentence case")


def test_nothing_executable_in_the_output_runs(page, server, agent, tmp_path):
    sid = awaiting_review(agent, recorded_replies(tmp_path / "rec", HOSTILE))
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    visit(page, f"{server}/sessions/{sid}")
    output = page.locator('[data-testid="output"]')
    expect(output.locator("h1")).to_have_text("Plan")
    expect(output).to_contain_text("<script>window.pwned = 1</script>")  # shown as the text it is
    assert output.locator("script, img, a[href^='javascript']").count() == 0
    for link in output.get_by_text("raw").all() + output.get_by_text("a link").all():
        link.click()
    assert page.evaluate("window.pwned") is None and dialogs == []  # nothing in the output ran


def test_request_changes_on_a_replayed_run_warns_first_and_a_failure_is_an_error_banner_and_the_review_stays(page, server, agent):
    sid = awaiting_review(agent)  # the example recording: no reply left for a revision
    visit(page, f"{server}/sessions/{sid}")
    expect(page.locator('[data-testid="replay-warning"]')).to_contain_text("needs a live model")
    page.fill("#comment", "Shorter, please")
    page.click('[data-testid="revise"]')
    # The revision failed, not the review: the output shown still awaits a decision, and the form is still there.
    banner = page.locator(".flash.error")
    expect(banner).to_contain_text(f"Session {sid}: awaiting review.", timeout=WAIT_MS)
    expect(banner).to_contain_text("The revision failed")
    assert page.locator(".flash:not(.error)").count() == 0
    expect(page.locator('[data-testid="history"] [data-kind="withdrawn"]')).to_contain_text("Revision failed")
    expect(page.locator('[data-testid="approve"]')).to_be_visible()
    fits(page)


# ------------------------------------------------------------------------------------------------ tidy-up


def test_tidy_up_follow_progress_to_the_result_and_undo_it(page, server, agent):
    overcap_store(agent)
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    visit(page, server + LEARNINGS)
    expect(page.locator(".counts").first).to_contain_text("outside the cap")
    page.click('[data-testid="tidy-up"]')
    page.wait_for_url("**/tidy/*", timeout=WAIT_MS)
    expect(page.locator('[data-testid="tidy-result"]')).to_be_visible(timeout=WAIT_MS)
    fits(page)
    expect(page.locator('[data-testid="tidy-summary"]')).to_contain_text(" merged, ")
    expect(page.locator('[data-testid="tidy-summary"]')).to_contain_text("in force")
    expect(page.locator('[data-testid="permanent"]')).to_contain_text("Keep intros factual")
    diffs = page.locator('[data-testid="diff"]')
    expect(diffs).to_have_count(2)
    undo_top = page.locator('[data-testid="undo"]').bounding_box()["y"]
    assert undo_top < diffs.first.bounding_box()["y"] and undo_top < 900  # Undo is at the top, on screen
    old = diffs.first.locator("td.old.del").first.bounding_box()
    new = diffs.first.locator("td.new.add").first.bounding_box()
    if page.width_name == "desktop":  # side by side
        assert new["x"] > old["x"] + old["width"] - 1 and abs(new["y"] - old["y"]) < 2
    else:  # one column: the removed line above the added one
        assert new["y"] >= old["y"] + old["height"] - 1 and new["width"] > 300
    shot(page, "tidy-result", full_page=False)  # the diffs run long: the top says it all
    diffs.first.locator("summary").click()  # each diff folds away
    expect(diffs.first.locator("table")).to_be_hidden()
    assert location.store_path.read_bytes() != store_before  # the tidy-up wrote
    visit(page, server + LEARNINGS)
    expect(page.locator('[data-testid="last-tidy"]')).to_contain_text("see what changed or undo it")
    page.go_back()
    page.click('[data-testid="undo"]')
    expect(page.locator(".flash")).to_contain_text("Undid the tidy-up")
    assert agent.read_bytes() == agent_before
    assert location.store_path.read_bytes() == store_before
    expect(page.locator('[data-testid="last-tidy"]')).to_have_count(0)


def test_without_javascript_the_tidy_page_still_reaches_its_result(browser, server, agent):
    overcap_store(agent)
    context = signed_in(browser, server, java_script_enabled=False)
    try:
        page = context.new_page()
        console = Console(page)
        page.goto(f"{server}/agents/{AGENT_KEY}/learnings")
        page.click('[data-testid="tidy-up"]')  # 202 + meta refresh to the job, then its own refresh
        expect(page.locator('[data-testid="tidy-result"]')).to_be_visible(timeout=WAIT_MS)
        assert "/tidy/" in page.url
        expect(page.locator('[data-testid="undo"]')).to_be_visible()
        assert console.unexpected() == []
    finally:
        context.close()


# ------------------------------------------------------------------------------------------------ fit and finish


def test_unknown_pages_are_styled_404_pages_and_the_favicon_is_served(page, server):
    for path, words in (("/sessions/01NOSUCHSESSION", "There is no session"), ("/no/such/page", "no page at this address")):
        page.console.expect_404(server + path)  # type: ignore[attr-defined]
        visit(page, server + path)
        expect(page.locator('[data-testid="problem"]')).to_contain_text(words)
        expect(page.locator('[data-testid="problem"] h1')).to_have_text("Not found")
        assert page.evaluate("getComputedStyle(document.body).fontFamily").startswith("system-ui")
    shot(page, "not-found")
    assert page.request.get(server + "/favicon.ico").status == 200


def test_keyboard_focus_is_visible(page, server):
    visit(page, server + LEARNINGS)
    for _ in range(40):  # tab until a button has the focus
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "BUTTON":
            break
    outline = page.evaluate("(() => { const s = getComputedStyle(document.activeElement); "
                            "return [s.outlineStyle, parseFloat(s.outlineWidth)]; })()")
    assert outline[0] != "none" and outline[1] >= 2


def test_dark_mode_follows_the_system(browser, server, agent):
    counted_runs(agent)
    context = signed_in(browser, server, viewport=VIEWPORTS["desktop"], color_scheme="dark")
    try:
        page = context.new_page()
        console = Console(page)
        page.goto(server + LEARNINGS)
        rgb = page.evaluate("getComputedStyle(document.body).backgroundColor")
        channels = [int(c) for c in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
        assert max(channels) < 60, rgb  # a dark page, not the light one
        shot(page, "learnings-dark", full_page=False)
        assert console.unexpected() == []
    finally:
        context.close()


def test_nothing_a_model_or_a_person_wrote_runs_on_any_page(page, server, agent, tmp_path):
    """Markup in every text the pages show: an agent file's name (a folder may hold any byte but '/'), a
    rule's title, body, why and evidence, a quarantine reason, a session's prompt, a reviewer's comment, a
    tool call's input. Each is shown as the text it is, on every page, and none of it runs."""
    from agentuse.core.learning import State
    from serve_project import add_rules, rule

    hostile = agent.parent / 'x"><img src=1 onerror=window.pwned=1>.agentuse'
    hostile.write_bytes(agent.read_bytes())
    add_rules(hostile, [rule("b1b2b3b4", "</textarea><script>window.pwned=2</script> Use plain words",
                             body="<svg onload=window.pwned=3> Use plain words.", state=State.quarantined,
                             why='conflicts with "><img src=2 onerror=window.pwned=4>')])
    sid = awaiting_review(hostile, prompt="<script>window.pwned=5</script> Write the post")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    visit(page, server + "/")
    expect(page.locator("table.agents")).to_contain_text('x"><img src=1 onerror=window.pwned=1>.agentuse')
    page.get_by_role("link", name='x"><img').first.click()  # the href was built from the name, too
    expect(page.locator("h1")).to_contain_text('onerror=window.pwned=1>.agentuse')
    expect(page.locator("#rule-b1b2b3b4")).to_contain_text("</textarea><script>window.pwned=2</script>")
    expect(page.locator("#rule-b1b2b3b4 .why")).to_contain_text('"><img src=2 onerror=window.pwned=4>')
    visit(page, server + "/sessions")
    page.click(f'a[href="/sessions/{sid}"]')
    expect(page.locator("dd.prompt")).to_have_text("<script>window.pwned=5</script> Write the post")
    page.fill("#comment", '<img src=3 onerror="window.pwned=6"> tighten the intro')
    page.click('[data-testid="reject"]')
    expect(page.locator('[data-testid="history-comment"]')).to_contain_text('<img src=3 onerror="window.pwned=6">')
    assert page.locator("main img, main script, main svg[onload]").count() == 0
    assert page.evaluate("window.pwned") is None and dialogs == []


# ------------------------------------------------------------------------------------------------ other pages


@pytest.fixture
def decoy() -> Iterator[tuple[str, dict]]:
    """Another web server on 127.0.0.1, as any local dev server or another account's is: a different port
    is the same site, so the browser sends our SameSite=Strict cookies with what its pages ask of us.
    Its page puts `pages["/"]` in an iframe."""
    import http.server

    pages: dict[str, str] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            body = pages.get(self.path, "").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=other.serve_forever, name="decoy", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{other.server_address[1]}", pages
    finally:
        other.shutdown()
        other.server_close()
        thread.join(5)


def test_a_page_on_another_port_cannot_frame_the_learnings_tab_under_a_decoy(browser, server, agent, decoy):
    """Clickjacking: the decoy frames the Learnings tab (transparent, under its own 'Claim your prize'), so
    a click meant for the decoy would press Discard on a rule. The frame must never show our page."""
    origin, pages = decoy
    pages["/"] = (f'<!doctype html><p>Claim your prize</p><iframe id="f" src="{server}{LEARNINGS}" '
                  'width="1200" height="800"></iframe>')
    context = signed_in(browser, server)
    try:
        page = context.new_page()
        page.goto(origin + "/", wait_until="load")  # a page's load waits for its frames, refused or not
        live = [f for f in page.frames if f.locator('[data-testid="discard"]').count()]
        assert live == [], "the Learnings tab rendered inside another site's page"
        assert page.locator("iframe").count() == 1  # the frame was there to be refused
    finally:
        context.close()


def test_a_running_tidy_page_says_when_the_server_stops_and_what_a_restart_left(browser, agent):
    """The page of a running tidy-up, open while `agentuse serve` stops and starts again: it says the server
    is not answering, then (the job lived in the old process) shows this server's page for the address,
    which says the tidy-up is unknown here and where to look; it must not claim to be running for ever."""
    from agentuse.serve.app import create_app
    from agentuse.serve.jobs import TidyJobs

    release = threading.Event()

    def held(agent_path, progress, note):  # a tidy-up that runs until the test lets it go
        release.wait(30)

    port = free_port()
    first = create_app(agent.parent.parent, token=SERVE_TOKEN)
    first.state.jobs = TidyJobs(runner=held)
    context = None
    try:
        with serving(first, port) as url:
            context = signed_in(browser, url)
            page = context.new_page()
            page.goto(url + LEARNINGS)
            page.click('[data-testid="tidy-up"]')
            page.wait_for_url("**/tidy/*")
            expect(page.locator('[data-testid="tidy-progress"]')).to_be_visible()
        expect(page.locator('[data-testid="tidy-lost"]')).to_contain_text("not answering", timeout=WAIT_MS)
        with serving(create_app(agent.parent.parent, token=SERVE_TOKEN), port):
            expect(page.locator('[data-testid="problem"]')).to_contain_text("no such tidy-up on this server",
                                                                            timeout=WAIT_MS)
            assert page.locator('[data-testid="tidy-progress"]').count() == 0
    finally:
        release.set()
        if context is not None:
            context.close()


def test_a_cookie_another_local_app_wrote_does_not_lock_the_browser_out(browser, server, decoy):
    """A dev server on another port keeps its settings in a cookie (JSON, as many do). Cookies are per host,
    so the browser sends it to agentuse serve too; opening the printed address must still sign in, and a
    form must still pass the CSRF check."""
    origin, pages = decoy
    pages["/"] = '<!doctype html><script>document.cookie = \'prefs={"theme":"dark"}; path=/\';</script>'
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(origin + "/")
        assert any(c["name"] == "prefs" for c in context.cookies(server))  # it is sent to our port too
        page.goto(f"{server}/?token={SERVE_TOKEN}")
        expect(page.locator("h1")).to_have_text("Agents")
        page.goto(server + LEARNINGS)
        page.locator('[data-testid="discard"]').first.click()
        expect(page.locator(".flash")).to_contain_text("Discarded")
    finally:
        context.close()


def test_the_printed_address_signs_in_when_followed_from_another_site_s_page(browser, server, decoy):
    """The address `agentuse serve` printed, pasted into a web chat or a notes page and clicked there: the
    navigation starts on another site, and SameSite=Strict keeps the new cookie off the redirect that
    follows. The page it lands on must be the Agents page, not 'needs its token'."""
    origin, pages = decoy
    pages["/"] = f'<!doctype html><a id="go" href="{server}/?token={SERVE_TOKEN}">open agentuse serve</a>'
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(origin.replace("127.0.0.1", "localhost") + "/")  # another site: another host name
        page.click("#go")
        page.wait_for_load_state("load")
        expect(page.locator("h1")).to_have_text("Agents")
        assert page.url == f"{server}/"  # and the token is out of the address bar
    finally:
        context.close()


def test_a_link_from_another_site_opens_the_page_for_a_browser_already_signed_in(browser, server, decoy):
    """A bookmark or a link to a session on another site's page: the browser holds the token cookie, but
    SameSite=Strict keeps it off a navigation another site starts, which answered 'needs its token'. The
    page must open; a browser that never signed in still gets the refusal (no loop, no way in)."""
    origin, pages = decoy
    pages["/"] = f'<!doctype html><a id="go" href="{server}/sessions?agent=x">the sessions</a>'
    other_site = origin.replace("127.0.0.1", "localhost") + "/"
    context = signed_in(browser, server)
    stranger = browser.new_context()
    try:
        page = context.new_page()
        page.goto(other_site)
        page.click("#go")
        expect(page.locator("h1")).to_contain_text("Sessions")
        assert page.url == f"{server}/sessions?agent=x"
        outside = stranger.new_page()
        outside.goto(other_site)
        outside.click("#go")
        expect(outside.locator("body")).to_contain_text("needs its token")
    finally:
        context.close()
        stranger.close()
