"""What the headless-Chromium tests (tests/report: the HTML report; tests/docs: the documentation site) share: which
browser runs them, and why they skip where there is none."""

import os
import shutil
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def browser() -> str | None:
    """The first Chromium on PATH, or None."""
    return next(filter(None, map(shutil.which, BROWSERS)), None)


def unavailable() -> str:
    """Why the tests skip: no Chromium, and what tests/report/setup.sh said about it."""
    status = Path(os.environ.get("PRIVEST_REPORT_SETUP", "/nonexistent"))
    said = status.read_text().strip() if status.is_file() else "tests/report/setup.sh was not run"
    return f"no Chromium on PATH ({', '.join(BROWSERS)}); tests/report/setup.sh: {said}"
