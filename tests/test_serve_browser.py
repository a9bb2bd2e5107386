"""`agentuse serve` end to end in headless Chromium: Debian's /usr/bin/chromium driven by Playwright, against
uvicorn on a free loopback port. Set AGENTUSE_SCREENSHOTS=1 to save the pages to docs/screenshots/.

Skipped (with the reason) only where Chromium is absent and this is not CI; in CI (`CI=true`) a missing
browser is a failure, because .ci/run installs it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentuse.core import store
from serve_project import AGENT_KEY, SERVE_TOKEN, awaiting_review, free_port, make_project, overcap_store

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IN_CI = os.environ.get("CI", "").lower() == "true"
SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WAIT_MS = 90_000  # a tidy-up imports Prefect and runs the offline evaluator: seconds, not minutes

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


@pytest.fixture
def server(agent) -> Iterator[str]:
    """uvicorn in a thread, on 127.0.0.1 and a free port; stopped (and joined) after the test."""
    import uvicorn

    from agentuse.serve.app import create_app

    port = free_port()
    config = uvicorn.Config(create_app(agent.parent.parent, token=SERVE_TOKEN), host="127.0.0.1", port=port,
                            log_level="warning", lifespan="off")
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


def signed_in(browser: Browser, server: str, **options) -> BrowserContext:
    """A browser context that opened the address `agentuse serve` prints: the token is its cookie now."""
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(f"{server}/?token={SERVE_TOKEN}")
    assert page.url == f"{server}/"  # traded for the cookie and gone from the address bar
    page.close()
    return context


@pytest.fixture
def page(browser, server) -> Iterator[Page]:
    context = signed_in(browser, server, viewport={"width": 1200, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


def shot(page: Page, name: str, *, full_page: bool = True) -> None:
    """The README's screenshots, refreshed by `AGENTUSE_SCREENSHOTS=1 pytest tests/test_serve_browser.py`."""
    if os.environ.get("AGENTUSE_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def test_add_a_correction_and_see_it_listed(page, server, agent):
    page.goto(server + "/")
    expect(page.locator(f'tr[data-agent="{AGENT_KEY}"]')).to_contain_text("apply per run")
    shot(page, "agents")
    page.click(f"text={AGENT_KEY}")
    expect(page.locator("h1")).to_contain_text(f"Learnings for {AGENT_KEY}")
    page.fill("#add-text", "Link the primary study itself, never a news article about it.")
    page.click('[data-testid="add-learning"]')
    expect(page.locator(".flash")).to_contain_text('[Learning] Saved "Link the primary study itself', timeout=WAIT_MS)
    expect(page.locator('section[data-group="applied"]')).to_contain_text("Link the primary study itself")
    shot(page, "learnings")
    saved = [r for r in store.load(store.locate(agent)).learnings if r.title.startswith("Link the primary study")]
    assert len(saved) == 1 and saved[0].src.value == "manual"


def test_approve_with_learn_checked_and_see_the_rule_appear(page, server, agent):
    sid = awaiting_review(agent)
    page.goto(server + "/sessions")
    expect(page.locator(f'tr[data-session="{sid}"]')).to_contain_text("awaiting review")
    shot(page, "sessions")
    page.click(f"text={sid}")
    expect(page.locator('[data-testid="output"]')).to_contain_text("Two-Minute Inbox Rule")
    page.fill("#comment", "Headings should be in sentence case.")
    page.check('[data-testid="learn"]')
    shot(page, "session-review")
    page.click('[data-testid="approve"]')
    expect(page.locator(".flash")).to_contain_text(f"Session {sid}: completed.", timeout=WAIT_MS)
    expect(page.locator(".flash")).to_contain_text('[Learning] Saved "Headings should be in sentence case')
    expect(page.locator("main > h1")).to_contain_text("completed")
    page.click(f"text={AGENT_KEY}")
    expect(page.locator('section[data-group="applied"]')).to_contain_text("Headings should be in sentence case")


def test_tidy_up_follow_progress_to_the_result_and_undo_it(page, server, agent):
    overcap_store(agent)
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    page.goto(f"{server}/agents/{AGENT_KEY}/learnings")
    expect(page.locator(".counts").first).to_contain_text("outside the cap")
    page.click('[data-testid="tidy-up"]')
    page.wait_for_url("**/tidy/*", timeout=WAIT_MS)
    expect(page.locator('[data-testid="tidy-result"]')).to_be_visible(timeout=WAIT_MS)
    expect(page.locator('[data-testid="tidy-summary"]')).to_contain_text(" merged, ")
    expect(page.locator('[data-testid="tidy-summary"]')).to_contain_text("in force")
    expect(page.locator('[data-testid="permanent"]')).to_contain_text("Keep intros factual")
    expect(page.locator('[data-testid="diff"]').first).to_contain_text("@@")
    shot(page, "tidy-result", full_page=False)  # the diffs run long: the top says it all
    assert location.store_path.read_bytes() != store_before  # the tidy-up wrote
    page.goto(f"{server}/agents/{AGENT_KEY}/learnings")
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
        page.goto(f"{server}/agents/{AGENT_KEY}/learnings")
        page.click('[data-testid="tidy-up"]')  # 202 + meta refresh to the job, then its own refresh
        expect(page.locator('[data-testid="tidy-result"]')).to_be_visible(timeout=WAIT_MS)
        assert "/tidy/" in page.url
        expect(page.locator('[data-testid="undo"]')).to_be_visible()
    finally:
        context.close()
