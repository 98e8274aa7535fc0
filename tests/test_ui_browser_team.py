"""Issue 37 item 11 in headless Chromium at 1440x900 and 390x844: a team's page (`rag ui --auth-file`, operator
mode off by default) over a mistyped collection names no absolute path anywhere in the page, not in the header's
alert nor the library, and offers no "Index the sample papers here"; the page says the collection and its count.
Before: every logged-in visitor saw the server's data directory and could index into it. The operator's own page
(loopback, no login) still shows both: tests/test_ui_browser_index.py. Without a browser:
tests/test_ui_operator_mode.py.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui_browser import ARTIFACTS, PHONE, TIMEOUT_MS, VIEWPORTS
from tests.ui_server import UIServer, start_ui

pytestmark = [pytest.mark.browser, pytest.mark.slow]
USER, PASSWORD = "member", "team-secret-3141"


@pytest.fixture(scope="module")
def team_ui(browser: Any, tmp_path_factory: pytest.TempPathFactory, bundled_home: Path) -> Iterator[UIServer]:
    tmp = tmp_path_factory.mktemp("ui-team")
    shutil.copytree(bundled_home, tmp / "home")
    secret = tmp / "ui-auth"
    secret.write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
    secret.chmod(0o600)
    server = start_ui(tmp / "home", ARTIFACTS / "ui-team.log", args=["--collection", "pappers", "--auth-file",
                      str(secret)], env={"RAG_LLM": "extractive"})  # fmt: skip
    yield server
    server.stop()


@VIEWPORTS
def test_11_a_team_page_shows_no_path_and_no_index_button(browser: Any, team_ui: UIServer,
                                                           viewport: dict[str, int]) -> None:  # fmt: skip
    from playwright.sync_api import expect

    phone = {"is_mobile": True, "has_touch": True} if viewport is PHONE else {}
    ctx = browser.new_context(viewport=viewport, **phone)
    page = ctx.new_page()
    try:
        page.goto(team_ui.url)
        user = page.get_by_label("username", exact=False)
        expect(user).to_be_editable(timeout=TIMEOUT_MS)
        user.fill(USER)
        page.get_by_label("password", exact=False).fill(PASSWORD)
        page.get_by_role("button", name=re.compile(r"^\s*log\s*in\s*$", re.I)).click()
        # what would show a path or the button has run: the restore and the header's count (demo.load)
        expect(page.locator("body[data-restored='yes']")).to_have_count(1, timeout=TIMEOUT_MS)
        expect(page.locator("#header .index-line")).to_contain_text("Collection pappers · no papers")
        alert = page.locator("#header .missing-index")
        expect(alert).to_contain_text("there is no collection 'pappers' in the server's data directory")
        expect(alert).to_contain_text("This data directory also holds 'papers' (19 papers)")
        expect(page.get_by_role("tab", name=re.compile(r"Library"))).to_have_count(1)
        expect(page.get_by_role("button", name=re.compile("sample papers"))).to_have_count(0)
        home = str(team_ui.home)
        assert home not in page.content() and home not in page.locator("body").inner_text()
        assert str(team_ui.home.parent) not in page.content()
        page.screenshot(path=str(ARTIFACTS / f"ui-{viewport['width']}x{viewport['height']}-team.png"))
    finally:
        ctx.close()
    assert not (team_ui.home / "index" / "docs-pappers").exists()
    assert "operator mode off" in team_ui.log_text()
