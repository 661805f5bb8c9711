"""What the console's browser tests share: Debian's Chromium at /usr/bin/chromium driven by Playwright
(one browser for the test session, conftest.py's `browser`), and a page signed in with a key."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# The network here is closed: without these Chromium stalls on its own background fetches.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def installed() -> None:
    """Debian's Chromium, installed with apt-get on a machine that lacks it (as root; one test process at
    a time), so the README's test command needs nothing else; else the tests fail saying what is missing."""
    if CHROMIUM.exists():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        with open(Path(tempfile.gettempdir()) / "lighthouse-tests-chromium.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not CHROMIUM.exists():
                quiet = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                subprocess.run(["apt-get", "update", "-qq"], env=quiet, check=False, timeout=600)
                subprocess.run(
                    ["apt-get", "install", "-y", "-qq", "chromium"], env=quiet, check=False, timeout=900
                )
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the console's browser tests need Debian's chromium (apt-get install chromium)"
        )


def launched_browser():
    """Debian's Chromium through Playwright, for the whole session (conftest.py's `browser`)."""
    installed()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        yield launched
        launched.close()


def signed_in_page(browser, lighthouse, key: str):
    """A page of a new browser context signed in with the key, and the list its script errors go to."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # Every violation of the page's CSP is counted, in the page (the event) and in its console.
    context.add_init_script(
        "window.__violations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console", lambda message: "Content Security Policy" in message.text and errors.append(message.text)
    )
    page.goto(f"{lighthouse.url}/console/")
    assert page.url.endswith("/console/sign-in")
    page.fill("input[name=key]", key)
    page.click("button[type=submit]")
    page.wait_for_url(f"{lighthouse.url}/console/")
    cookie = next(c for c in context.cookies() if c["name"] == "lh_console")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/console"
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads it
    return page, errors


def violations(page) -> list[str]:
    """The CSP violations the page now shown has seen."""
    return page.evaluate("window.__violations")
