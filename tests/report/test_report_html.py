"""The Snakemake HTML report (`snakemake --report results/report.html`) in headless Chromium.

The report is a React single-page app: its results (path -> mime type, caption, data URI) and categories (category ->
subcategory -> paths) are JavaScript objects, and the app's navigation bar lists a subcategory's results in a table
whose eye button shows a result. Two tests:

- the report opened as a file, as a person would: the app replaces the "Loading Snakemake Report..." screen, no
  uncaught JavaScript error reaches the console, and a screenshot (kept as <results>/report_screenshot.png) is not
  blank;
- the figure count: a harness page and the report, served from localhost (same origin, so the harness can reach into
  the report's iframe), walk every category and subcategory with the app's own functions, press the eye button of
  every row (each toggle value too) and wait for the shown image to decode. Every PNG under <results>/*/figures/ must
  be shown this way, and every result must have a caption. The report served to the harness gets one extra script
  at the top of <head> that records JavaScript errors, unhandled rejections, console.error calls and resources that
  fail to load; the first test checks that list as well.

Inputs: PRIVEST_REPORT (default results/report.html) and PRIVEST_RESULTS (default: the report's directory); relative
paths are taken from the repository root. Without Chromium (tests/report/setup.sh installs it) the tests skip, with
the reason setup.sh wrote to the file named by PRIVEST_REPORT_SETUP.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from queue import Empty, Queue

import pytest
from chromium_support import BROWSERS, browser, unavailable
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
WINDOW = (1400, 1000)
VIRTUAL_TIME_MS = 10_000  # page time the opened report gets before Chromium dumps its DOM (idle time passes at once)
TIMEOUT = 240  # seconds per Chromium run: about 10 s on an idle 2-core machine, 50 s were too few under load

# Runs first in the report served to the harness: collects what goes wrong while the report loads and runs.
PROBE = b"""<script>
window.__privestErrors = [];
addEventListener("error", (event) => __privestErrors.push(event.message
    || `failed to load <${event.target.tagName}> ${String(event.target.src || event.target.href).slice(0, 80)}`), true);
addEventListener("unhandledrejection", (event) => __privestErrors.push(`unhandled rejection: ${event.reason}`));
const privestConsoleError = console.error;
console.error = (...args) => {
    __privestErrors.push(`console.error: ${args.join(" ")}`);
    privestConsoleError(...args);
};
</script>"""

HARNESS = b"""<!doctype html>
<meta charset="utf-8">
<title>privest report harness</title>
<iframe id="report" src="/report.html" style="width: 1400px; height: 1000px"></iframe>
<script>
"use strict";
const frame = document.getElementById("report");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, condition) {
  for (let waited = 0; waited < 30000; waited += 50) {
    const value = condition();
    if (value) return value;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function plainText(markup) {
  return new DOMParser().parseFromString(markup || "", "text/html").body.textContent.trim();
}

async function inspect() {
  const w = frame.contentWindow;
  const doc = await until("the report app", () => w.document.querySelector("#app nav") && w.document);
  const app = w.eval("app");  // a global `let` of the report's scripts, not a window property
  const render = (action) => w.ReactDOM.flushSync(action);
  const results = {};
  for (const [path, result] of Object.entries(w.results)) {
    results[path] = {mime: result.mime_type, caption: plainText(result.caption)};
  }
  const views = [];  // what the eye buttons ask the app to show
  const setView = app.setView;
  app.setView = (view) => { views.push(view); setView(view); };
  const categories = {};
  const shown = {};
  for (const [category, subcategories] of Object.entries(w.categories)) {
    categories[category] = {};
    for (const subcategory of Object.keys(subcategories)) {
      // Through the menu, as a person clicks: the results table is built when it appears.
      render(() => app.setView({navbarMode: "menu"}));
      render(() => app.showCategory(category));
      if (app.state.navbarMode === "category") {
        render(() => app.setView({navbarMode: "subcategory", category, subcategory}));
      }
      const paths = new Set();
      const toggles = [...doc.querySelectorAll("nav fieldset input[type=radio]")];
      for (const toggle of toggles.length > 0 ? toggles : [null]) {
        if (toggle) render(() => toggle.click());
        for (const button of doc.querySelectorAll("nav tbody td:last-child [role=group] > a:first-child")) {
          if (button.hasAttribute("download")) continue;  // a download link: the app cannot show this result
          views.length = 0;
          render(() => button.click());
          const view = views.find((requested) => requested.resultPath !== undefined);
          if (!view) continue;
          paths.add(view.resultPath);
          const entry = {content: view.content, width: 0, height: 0};
          if (view.content === "img") {
            const img = await until(`the image of ${view.resultPath}`,
              () => [...doc.querySelectorAll("#app img")].find((i) => i.getAttribute("src") === view.contentPath));
            try {
              await img.decode();
              entry.width = img.naturalWidth;
              entry.height = img.naturalHeight;
            } catch (error) {
              entry.error = String(error);
            }
          }
          shown[view.resultPath] = entry;
        }
      }
      categories[category][subcategory] = [...paths];
    }
  }
  return {results, categories, shown, errors: w.__privestErrors || ["the error probe did not run"]};
}

const post = (found) => fetch("/walked", {method: "POST", body: JSON.stringify(found)});
inspect().then(post, (error) => post({failure: String(error.stack || error)}));
</script>
"""


pytestmark = pytest.mark.skipif(browser() is None, reason=unavailable())


@pytest.fixture(scope="module")
def report() -> Path:
    """The report file; missing is a failure, not a skip."""
    path = ROOT / os.environ.get("PRIVEST_REPORT", "results/report.html")
    if not path.is_file():
        pytest.fail(f"no report at {path}: run `make reproduce` first")
    return path


@pytest.fixture(scope="module")
def results(report: Path) -> Path:
    """The pipeline's results directory."""
    return ROOT / os.environ.get("PRIVEST_RESULTS", report.parent)


@contextmanager
def launched(url: str, *flags: str) -> Iterator[tuple[subprocess.Popen[bytes], Path, Path]]:
    """Headless Chromium on url with a fresh profile; yields the process and the files of its stdout and stderr.

    On exit the process and everything it started (its own session) are killed.
    """
    with tempfile.TemporaryDirectory(prefix="privest-chromium-") as scratch:
        stdout, stderr = Path(scratch) / "stdout.txt", Path(scratch) / "stderr.txt"
        command = [
            browser() or BROWSERS[0],
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={Path(scratch) / 'profile'}",
            "--window-size={},{}".format(*WINDOW),
            "--enable-logging=stderr",
            "--v=0",
            *flags,
            url,
        ]
        with stdout.open("wb") as out, stderr.open("wb") as err:
            process = subprocess.Popen(command, stdout=out, stderr=err, start_new_session=True)
        try:
            yield process, stdout, stderr
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def serve(pages: dict[str, bytes], posted: Queue[bytes]) -> Iterator[str]:
    """Serve pages (URL path -> HTML) on a free localhost port, putting the body of each POST into posted.

    Yields the base URL.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            posted.put(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def walked(report: Path) -> dict:
    """What the harness found walking the report in Chromium: results, categories, shown results, errors."""
    served = report.read_bytes().replace(b"<head>", b"<head>" + PROBE, 1)
    posted: Queue[bytes] = Queue()
    deadline = time.monotonic() + TIMEOUT
    with serve({"/harness.html": HARNESS, "/report.html": served}, posted) as base:
        with launched(f"{base}/harness.html") as (process, _, log):
            while process.poll() is None and time.monotonic() < deadline:
                with suppress(Empty):
                    found = json.loads(posted.get(timeout=0.2))
                    break
            else:
                ended = f"exited with {process.returncode}" if process.poll() is not None else f"ran {TIMEOUT} s"
                pytest.fail(f"Chromium {ended} without the harness's findings; it said:\n"
                            + log.read_text(errors="replace")[-3000:])
    assert "failure" not in found, f"the harness failed: {found.get('failure')}"
    return found


def figure_key(path: str | Path) -> str:
    """<experiment>/figures/<file>: how the report's paths and the results directory's files are matched."""
    return "/".join(PurePosixPath(Path(path).as_posix()).parts[-3:])


def test_report_renders_without_errors(report: Path, results: Path, walked: dict, tmp_path: Path) -> None:
    """Opened as a file the app renders, no JavaScript error occurs, and the screenshot is not blank."""
    screenshot = tmp_path / "report.png"
    flags = (f"--virtual-time-budget={VIRTUAL_TIME_MS}", "--dump-dom", f"--screenshot={screenshot}")
    with launched(report.resolve().as_uri(), *flags) as (process, out, err):
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"Chromium did not finish {report} within {TIMEOUT} s")
        dom, log = out.read_text(errors="replace"), err.read_text(errors="replace")
    assert process.returncode == 0, f"Chromium failed on {report} (exit {process.returncode}):\n{log[-3000:]}"
    assert re.search(r'<div id="loading-screen"[^>]*display: none', dom), "the loading screen is still shown"
    app = re.search(r'<div id="app">(.*?)</div>', dom, re.DOTALL)
    assert app and app.group(1) and "<nav" in dom, "the report app rendered nothing into #app"
    uncaught = [line for line in log.splitlines() if ":CONSOLE" in line and "Uncaught" in line]
    assert not uncaught, "uncaught JavaScript errors:\n" + "\n".join(uncaught)
    assert not walked["errors"], "JavaScript errors while the report ran:\n" + "\n".join(walked["errors"])

    assert screenshot.is_file(), "Chromium wrote no screenshot"
    shutil.copyfile(screenshot, results / "report_screenshot.png")
    with Image.open(screenshot) as image:
        assert image.size == WINDOW, f"screenshot is {image.size}, not {WINDOW}"
        colours = image.convert("RGB").getcolors(maxcolors=WINDOW[0] * WINDOW[1])
    assert len(colours) > 16, f"the screenshot is blank ({len(colours)} colours)"


def test_report_shows_every_figure(results: Path, walked: dict) -> None:
    """Every PNG under <results>/*/figures/ is shown as a decoded image by the report; every result has a caption."""
    expected = {figure_key(path.relative_to(results)) for path in results.glob("*/figures/*.png")}
    assert expected, f"no figures under {results}/*/figures/*.png"
    shown = walked["shown"]
    pngs = {path: shown.get(path) for path, result in walked["results"].items() if result["mime"] == "image/png"}
    displayed = {figure_key(path) for path, view in pngs.items() if view and view["content"] == "img" and view["width"]}
    broken = sorted(path for path, view in pngs.items() if view and figure_key(path) not in displayed)
    unreachable = sorted(path for path, view in pngs.items() if not view)

    print(f"{len(walked['results'])} results, {len(pngs)} image/png, {len(displayed)} shown and decoded; "
          f"{len(expected)} PNGs under {results}/*/figures/")
    for category, subcategories in sorted(walked["categories"].items()):
        print(f"  category {category!r}: {sum(map(len, subcategories.values()))} results in "
              f"{len(subcategories)} subcategories ({', '.join(sorted(subcategories))})")

    missing, extra = sorted(expected - displayed), sorted(displayed - expected)
    assert not missing and not extra, (
        f"the report shows {len(displayed)} of the {len(expected)} PNG figures; missing: {missing}; "
        f"not in {results}: {extra}; in the report but not decoded: {broken}; "
        f"in the report but not reachable from its menus: {unreachable}"
    )
    uncaptioned = sorted(path for path, result in walked["results"].items() if not result["caption"])
    assert not uncaptioned, f"results without a caption: {uncaptioned}"
