"""The built documentation site (`make docs`: docs/site/_build/html) in headless Chromium.

Three pages, served from localhost as a web server would serve the site: the home page, the API page of
``privest.gibu`` and the gallery page of examples/quickstart.py. Each must load with no JavaScript error (uncaught
errors, unhandled rejections, console.error calls, resources that fail to load: a probe script injected at the top of
every page served records them into the page), no request the server answers with 404, every internal link of the
rendered page (its DOM after the scripts ran) pointing to a page of the site and, with a #fragment, to an element with
that id, and a screenshot that is not blank (kept in docs/site/_build/screenshots/).

Two guide pages with maths and wide tables (the estimators and the performance page) are also laid out at a width
of 1280 px, and a script run after MathJax has typeset the page measures them: the formulas are typeset (MathJax's
elements, no raw ``$$`` or TeX left in the text), MathJax came from the site itself (no script or style sheet from
another host), the left navigation has links to the guide's pages, the page is no wider than the window, and every
table, code block and displayed formula either fits or scrolls sideways in its own box (none is cut).

A second test checks the internal links of every page of the site the same way, from the HTML files (no browser).

Inputs: PRIVEST_SITE (default docs/site/_build/html; relative to the repository root). Without Chromium
(tests/report/setup.sh installs it) the browser test skips, with the reason setup.sh wrote to the file named by
PRIVEST_REPORT_SETUP.
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache, partial
from html import unescape
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from chromium_support import BROWSERS, browser, unavailable
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / os.environ.get("PRIVEST_SITE", "docs/site/_build/html")
SCREENSHOTS = SITE.parent / "screenshots"
WINDOW = (1400, 1000)
VIRTUAL_TIME_MS = 5_000
TIMEOUT = 120
PAGES = {
    "home": "index.html",
    "gibu": "generated/privest.gibu.html",
    "example": "auto_examples/quickstart.html",
}
# Guide pages with maths, wide tables and code, laid out at the width of a laptop's window; the estimators page has
# displayed formulas (IBU's update), the performance page inline maths only.
GUIDE_PAGES = {
    "estimators": "guide/estimators.html",
    "performance": "guide/performance.html",
}
DISPLAYED_MATHS = {"estimators"}
# Pages with a code block wider than the text column at 1280 px: there, the check that it scrolls checks something.
WIDE_CODE = {"estimators"}
NARROW = (1280, 1000)

# Runs after the page has loaded and MathJax has typeset it: what the reader sees, measured, written where
# --dump-dom shows it (data-privest-layout on <html>, JSON).
MEASURE = rb"""<script>
const privestMeasure = () => {
  const article = document.querySelector(".bd-article") || document.body;
  const text = (node) => {
    const copy = node.cloneNode(true);
    copy.querySelectorAll("pre, code, script, style, mjx-container").forEach((n) => n.remove());
    return copy.textContent;
  };
  const scroller = (element) => {  // the element or its nearest ancestor that does not let it overflow
    for (let node = element; node && node !== document.documentElement; node = node.parentElement) {
      const overflow = getComputedStyle(node).overflowX;
      if (overflow !== "visible") return [node, overflow];
    }
    return [null, "visible"];
  };
  const boxes = [...article.querySelectorAll("table, pre, mjx-container[display='true']")].map((element) => {
    const [box, overflow] = scroller(element);
    const right = element.getBoundingClientRect().right;
    const fits = right <= document.documentElement.clientWidth + 1 && (!box || element.scrollWidth <= box.clientWidth
        + 1 || overflow === "auto" || overflow === "scroll");
    const scrolls = !!box && (overflow === "auto" || overflow === "scroll") && box.scrollWidth > box.clientWidth + 1;
    return {tag: element.tagName.toLowerCase(), overflow, fits: fits || scrolls, scrolls,
            width: Math.round(element.scrollWidth), box: box ? Math.round(box.clientWidth) : null};
  });
  const external = [...document.querySelectorAll("script[src], link[rel='stylesheet'][href]")]
      .map((n) => n.src || n.href).filter((url) => !url.startsWith(location.origin));
  const layout = {
    mathjax: document.querySelectorAll("mjx-container").length,
    mathjaxDisplay: article.querySelectorAll("mjx-container[display='true']").length,
    rawMaths: (text(article).match(/\$\$|\\(frac|theta|sum|partial|sqrt)\b/g) || []).length,
    external,
    navLinks: [...document.querySelectorAll(".bd-sidebar-primary nav.bd-docs-nav a[href]")]
        .map((a) => a.getAttribute("href")),
    scrollWidth: document.documentElement.scrollWidth,
    windowWidth: window.innerWidth,
    boxes,
  };
  document.documentElement.setAttribute("data-privest-layout", JSON.stringify(layout));
};
addEventListener("load", () => {
  const typeset = () => (window.MathJax && MathJax.startup && MathJax.startup.promise)
      ? MathJax.startup.promise.then(() => setTimeout(privestMeasure, 100)) : setTimeout(typeset, 50);
  typeset();
});
</script>"""

# Runs first in every page served: what goes wrong while the page loads and runs, written where --dump-dom shows it.
PROBE = b"""<script>
window.__privestErrors = [];
const privestRecord = (message) => {
  __privestErrors.push(message);
  document.documentElement.setAttribute("data-privest-errors", JSON.stringify(__privestErrors));
};
addEventListener("error", (event) => privestRecord(event.message
    || `failed to load <${event.target.tagName}> ${String(event.target.src || event.target.href)}`), true);
addEventListener("unhandledrejection", (event) => privestRecord(`unhandled rejection: ${event.reason}`));
const privestConsoleError = console.error;
console.error = (...args) => { privestRecord(`console.error: ${args.join(" ")}`); privestConsoleError(...args); };
document.documentElement.setAttribute("data-privest-errors", "[]");
</script>"""


@pytest.fixture(scope="module")
def site() -> Path:
    """The built site; missing is a failure, not a skip."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run `make docs` first")
    return SITE


class Links(HTMLParser):
    """The href of every <a>, the src of every <img>, and every id, of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.hrefs.append(attributes["href"])
        if tag == "img" and attributes.get("src"):
            self.images.append(attributes["src"])


def parsed(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


@cache
def ids_of(page: str) -> frozenset[str]:
    return frozenset(parsed(Path(page).read_text(errors="replace")).ids)


@cache
def is_file(path: str) -> bool:
    return os.path.isfile(path)


def broken_links(site: Path, page: Path, html: str) -> list[str]:
    """The internal links and images of a page (html, the page at page) whose target file, or #fragment in it, does
    not exist."""
    root, here = os.path.realpath(site), os.path.dirname(os.path.realpath(page))
    broken = []
    links = parsed(html)
    for href in links.hrefs + links.images:
        parts = urlsplit(unescape(href))
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
            continue  # external
        target = os.path.normpath(os.path.join(here, unquote(parts.path))) if parts.path else os.path.realpath(page)
        if not is_file(target) and is_file(os.path.join(target, "index.html")):
            target = os.path.join(target, "index.html")
        if not is_file(target) or not target.startswith(root + os.sep):
            broken.append(f"{href} (no file {target})")
            continue
        if parts.fragment and target.endswith(".html") and unquote(parts.fragment) not in ids_of(target):
            broken.append(f"{href} (no id {parts.fragment!r} in {os.path.relpath(target, root)})")
    return broken


@contextmanager
def serve(site: Path, probe: bytes = PROBE) -> Iterator[tuple[str, list[str]]]:
    """Serve the site on a free localhost port, the probe injected into every HTML page; yields the base URL and the
    list of paths answered with 404."""
    missing: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def send_head(self):
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            if path.suffix == ".html" and path.is_file():
                body = path.read_bytes().replace(b"<head>", b"<head>" + probe, 1)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return None
            return super().send_head()

        def send_error(self, code: int, *args: object, **kwargs: object) -> None:
            if code == 404 and self.path != "/favicon.ico":  # the browser asks for it of any site by itself
                missing.append(self.path)
            super().send_error(code, *args, **kwargs)

        def log_message(self, *args: object) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", missing
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def render(url: str, screenshot: Path, window: tuple[int, int] = WINDOW) -> tuple[str, str]:
    """Headless Chromium on url (fresh profile, its own session, killed afterwards) in a window of `window` pixels:
    the DOM after the page's scripts ran, and Chromium's log."""
    with tempfile.TemporaryDirectory(prefix="privest-chromium-") as scratch:
        out, err = Path(scratch) / "stdout.txt", Path(scratch) / "stderr.txt"
        command = [browser() or BROWSERS[0], "--headless=new", "--no-sandbox", "--disable-gpu",
                   f"--user-data-dir={Path(scratch) / 'profile'}", "--window-size={},{}".format(*window),
                   "--enable-logging=stderr", "--v=0", f"--virtual-time-budget={VIRTUAL_TIME_MS}", "--dump-dom",
                   f"--screenshot={screenshot}", url]
        with out.open("wb") as stdout, err.open("wb") as stderr:
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, start_new_session=True)
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"Chromium did not finish {url} within {TIMEOUT} s")
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        dom, log = out.read_text(errors="replace"), err.read_text(errors="replace")
    assert process.returncode == 0, f"Chromium failed on {url} (exit {process.returncode}):\n{log[-3000:]}"
    return dom, log


@pytest.mark.skipif(browser() is None, reason=unavailable())
@pytest.mark.parametrize("name", PAGES)
def test_page_renders_without_errors_or_broken_links(site: Path, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    screenshot = SCREENSHOTS / f"{name}.png"
    screenshot.unlink(missing_ok=True)
    with serve(site) as (base, missing):
        dom, log = render(f"{base}/{PAGES[name]}", screenshot)
    errors = re.search(r'data-privest-errors="([^"]*)"', dom)
    assert errors, f"the probe did not run in {PAGES[name]} (no data-privest-errors in the DOM)"
    errors = json.loads(unescape(errors.group(1)))
    uncaught = [line for line in log.splitlines() if ":CONSOLE" in line and ("Uncaught" in line or "ERROR" in line)]
    assert not errors and not uncaught, f"JavaScript errors in {PAGES[name]}:\n" + "\n".join(errors + uncaught)
    assert not missing, f"{PAGES[name]} requested files the site does not have: {missing}"
    broken = broken_links(site, site / PAGES[name], dom)
    assert not broken, f"broken internal links in {PAGES[name]} (rendered):\n" + "\n".join(broken)

    assert screenshot.is_file(), "Chromium wrote no screenshot"
    with Image.open(screenshot) as image:
        assert image.size == WINDOW, f"screenshot is {image.size}, not {WINDOW}"
        colours = image.convert("RGB").getcolors(maxcolors=WINDOW[0] * WINDOW[1])
    assert len(colours) > 16, f"the screenshot of {PAGES[name]} is blank ({len(colours)} colours)"


def layout_problems(layout: dict, displayed: bool = True) -> list[str]:
    """What a reader of a guide page would find wrong in the measured layout (MEASURE's JSON): maths not typeset, or
    typeset from another host; no left navigation; a page wider than the window; a table, code block or formula cut
    at the edge rather than scrolling in its box. displayed: the page has displayed formulas."""
    problems = []
    if layout["mathjax"] == 0 or (displayed and layout["mathjaxDisplay"] == 0):
        problems.append(f"maths not typeset: {layout['mathjax']} MathJax elements, "
                        f"{layout['mathjaxDisplay']} displayed")
    if layout["rawMaths"]:
        problems.append(f"{layout['rawMaths']} pieces of raw TeX ($$, \\frac, ...) left in the page's text")
    if layout["external"]:
        problems.append(f"scripts or style sheets from another host: {layout['external']}")
    guide = [href for href in layout["navLinks"] if href.endswith(".html") and "/" not in href]
    if len(guide) < 5:
        problems.append(f"the left navigation links {len(guide)} guide pages: {layout['navLinks']}")
    if layout["scrollWidth"] > layout["windowWidth"]:
        problems.append(f"the page is {layout['scrollWidth']} px wide in a window of {layout['windowWidth']} px")
    problems += [f"a <{box['tag']}> {box['width']} px wide is cut (its box: {box['box']} px, overflow-x "
                 f"{box['overflow']})" for box in layout["boxes"] if not box["fits"]]
    return problems


def test_layout_problems_are_found() -> None:
    """layout_problems can fail: each fault alone, in an otherwise good measurement, is named."""
    good = {"mathjax": 12, "mathjaxDisplay": 3, "rawMaths": 0, "external": [], "scrollWidth": 1280,
            "windowWidth": 1280, "navLinks": ["index.html", "reproducing.html", "own-study.html", "protocols.html",
                                              "performance.html", "cluster.html"],
            "boxes": [{"tag": "table", "overflow": "auto", "fits": True, "scrolls": True, "width": 1900, "box": 800}]}
    assert layout_problems(good) == []
    assert len(layout_problems(good | {"mathjaxDisplay": 0})) == 1
    assert layout_problems(good | {"mathjaxDisplay": 0}, displayed=False) == []
    faults = {"mathjax": 0, "rawMaths": 2, "external": ["https://cdn.example/tex-chtml.js"], "scrollWidth": 1500,
              "navLinks": [], "boxes": [{"tag": "pre", "overflow": "hidden", "fits": False, "scrolls": False,
                                         "width": 1500, "box": 800}]}
    for key, value in faults.items():
        assert len(layout_problems(good | {key: value})) == 1, key


@pytest.mark.skipif(browser() is None, reason=unavailable())
@pytest.mark.parametrize("name", GUIDE_PAGES)
def test_guide_page_has_typeset_maths_navigation_and_nothing_cut_at_1280_px(site: Path, name: str) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    screenshot = SCREENSHOTS / f"guide-{name}-1280.png"
    screenshot.unlink(missing_ok=True)
    with serve(site, PROBE + MEASURE) as (base, missing):
        dom, _ = render(f"{base}/{GUIDE_PAGES[name]}", screenshot, NARROW)
    assert not missing, f"{GUIDE_PAGES[name]} requested files the site does not have: {missing}"
    errors = json.loads(unescape(re.search(r'data-privest-errors="([^"]*)"', dom).group(1)))
    assert not errors, f"JavaScript errors in {GUIDE_PAGES[name]}:\n" + "\n".join(errors)
    measured = re.search(r'data-privest-layout="([^"]*)"', dom)
    assert measured, f"the layout of {GUIDE_PAGES[name]} was not measured (MathJax never finished typesetting?)"
    layout = json.loads(unescape(measured.group(1)))
    problems = layout_problems(layout, displayed=name in DISPLAYED_MATHS)
    assert not problems, f"{GUIDE_PAGES[name]} at {NARROW[0]} px:\n" + "\n".join(problems)
    assert layout["boxes"] and (name not in WIDE_CODE or any(box["scrolls"] for box in layout["boxes"])), (
        f"no table or code block of {GUIDE_PAGES[name]} is wider than its box at {NARROW[0]} px: the check of the "
        f"scrolling boxes checked nothing")


def test_no_page_of_the_site_links_to_a_missing_page_anchor_or_image(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 50, f"only {len(pages)} pages under {site}"
    broken = {str(page.relative_to(site)): found for page in pages
              if (found := broken_links(site, page, page.read_text(errors="replace")))}
    assert not broken, f"broken internal links in {len(broken)} pages:\n" + "\n".join(
        f"{page}: {links[:5]}" for page, links in sorted(broken.items())[:20])
