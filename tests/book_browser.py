"""Look at the built book as a reader does: headless Chromium over a local HTTP server.

Used by ``tests/test_book_in_browser.py`` (the ``browser`` tier of ``make test``) and runnable on its own to
measure a build's layout::

    .venv/bin/python tests/book_browser.py _build/html [SHOTS_DIR] [--expand-code]
    # prints the figure / code share of each page's height (--expand-code: with every code input opened)

The browser and its driver are Debian's ``chromium`` and ``chromium-driver`` packages (``make browser-deps``
installs them). Everything is served from ``127.0.0.1``: a page that asks for anything outside the book (a CDN)
fails the console check, which is how the offline-maths requirement is tested.
"""

from __future__ import annotations

import re

import functools
import http.server
import json
import shutil
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterator

BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
DRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = "install Debian's packages: apt-get install chromium chromium-driver (make browser-deps does it)"

# Pages of the book a reader visits (Sphinx's generated index and search pages are left out).
SKIP_PAGES = {"genindex.html", "search.html"}

# Console messages that are not faults of the book, each with the reason it is allowed.
CONSOLE_ALLOW = {
    # Chromium asks every site for /favicon.ico; the book has none and needs none.
    "favicon.ico": "the browser's own favicon request",
}


class BrowserMissing(RuntimeError):
    pass


def find_browser() -> tuple[str, str]:
    """Paths of the Chromium binary and its driver, or a `BrowserMissing` that says how to install them."""
    browser = next((p for n in BROWSER_NAMES if (p := shutil.which(n))), None)
    driver = next((p for n in DRIVER_NAMES if (p := shutil.which(n))), None)
    missing = [name for name, path in (("chromium", browser), ("chromedriver", driver)) if path is None]
    if missing:
        raise BrowserMissing(f"{' and '.join(missing)} not found on PATH: {INSTALL_HINT}")
    return browser, driver  # type: ignore[return-value]


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) serving ``folder``; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def chromium(width: int = 1280, height: int = 900) -> Iterator["object"]:
    """A headless Chromium driven by Selenium, with the console log captured."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = find_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    # Headless Chromium keeps a window at least 500 px wide whatever --window-size asks: a phone's 390 px is set by
    # emulating the device's metrics (the layout, media queries and innerWidth then follow it).
    driver.reader_metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}  # type: ignore[attr-defined]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", driver.reader_metrics)  # type: ignore[attr-defined]
    try:
        yield driver
    finally:
        driver.quit()


def is_redirect(page: Path) -> bool:
    """Jupyter Book's index.html is a one-line meta refresh to the root page. Loading it navigates away while a
    script inspects it, which loses the script's callback (a "script timeout") or inspects the empty stub: the
    page it points to is inspected in its own right instead."""
    head = page.read_text(errors="replace")[:300].lower()
    return 'http-equiv="refresh"' in head and "<body" not in head


def book_pages(html: Path) -> list[Path]:
    """Every page of the built book, relative to ``html``, in a stable order (redirect stubs left out)."""
    pages = [p.relative_to(html) for p in sorted(html.rglob("*.html"))]
    return [p for p in pages if p.name not in SKIP_PAGES and p.parts[0] not in {"_static", "_sources", "reports"}
            and not is_redirect(html / p)]


# One script collects everything a check needs from a loaded page, after MathJax has typeset it.
_INSPECT = r"""
const done = arguments[arguments.length - 1];
if (arguments[0]) { document.querySelectorAll('details.above-input').forEach((d) => { d.open = true; }); }
// MathJax loads asynchronously: a page can report before its script has run, which read as "MathJax did not start"
// on a loaded machine (issue 62). Where the page loads MathJax, wait (up to 20 s) for it to define its start-up
// promise before waiting on that promise; say which of the two it waited for and why it stopped.
const wantsMathJax = Array.from(document.scripts).some((s) => /mathjax/i.test(s.src));
const mathjaxDefined = new Promise((resolve) => {
  const t0 = Date.now();
  const poll = () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { resolve('defined'); return; }
    if (!wantsMathJax) { resolve('not loaded by this page'); return; }
    if (Date.now() - t0 > 20000) { resolve('not defined after 20 s'); return; }
    setTimeout(poll, 50);
  };
  poll();
});
let mathjaxWait = 'pending';
const typeset = mathjaxDefined.then((why) => { mathjaxWait = why;
  return (window.MathJax && MathJax.startup && MathJax.startup.promise) ? MathJax.startup.promise : Promise.resolve(); });
// MathJax's promise can stay pending (or reject) on a loaded machine: wait at most 20 s, then report what the page
// shows, with whether typesetting settled, instead of letting the driver's script timeout fail every page.
let settled = 'pending';
const ready = Promise.race([
  typeset.then(() => { settled = 'done'; }, (e) => { settled = 'rejected: ' + e; }),
  new Promise((resolve) => setTimeout(resolve, 40000)),
]);
ready.then(() => { try {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0 ? r.height : 0; };
  const sum = (sel) => Array.from(article.querySelectorAll(sel)).reduce((s, el) => s + visible(el), 0);
  const imgs = Array.from(document.images).map((im) => ({src: im.currentSrc || im.src, ok: im.complete && im.naturalWidth > 0,
    alt: im.getAttribute('alt') || '',
    scale: im.naturalWidth > 0 && im.getBoundingClientRect().width > 0 ? im.getBoundingClientRect().width / im.naturalWidth : null}));
  const captions = Array.from(article.querySelectorAll('figcaption, caption, .caption')).map((c) => c.innerText);
  const errors = Array.from(article.querySelectorAll('.output.traceback, .output.error, .output.stderr, div.error, .system-message')).map((e) => e.innerText.slice(0, 300));
  const text = article.innerText;
  // Display maths wider than its column (cut off, or scrolled, at the reader's width).
  const main = (document.querySelector('main') || article).getBoundingClientRect();
  const wide_math = Array.from(article.querySelectorAll('mjx-container[display="true"]'))
    .filter((m) => m.scrollWidth > m.clientWidth + 2 || m.getBoundingClientRect().right > main.right + 2)
    .map((m) => (m.getAttribute('aria-label') || m.textContent || '').slice(0, 80));
  done({
    title: document.title,
    mathjax: !!(window.MathJax && MathJax.version),
    mathjax_src: Array.from(document.scripts).map((s) => s.src).filter((s) => /mathjax/i.test(s)),
    images: imgs,
    captions: captions,
    errors: errors,
    text: text,
    wide_math: wide_math,
    height: article.getBoundingClientRect().height,
    figure_height: sum('img'),
    // Code: a collapsed input's toggle bar (or the expanded input inside it), or an input shown outright.
    code_height: sum('details.above-input') + Array.from(article.querySelectorAll('div.cell_input'))
      .filter((el) => !el.closest('details')).reduce((s, el) => s + visible(el), 0),
    mathjax_settled: settled + ' (' + mathjaxWait + ')',
    // What a reader reads as prose and tables: no code, nothing inside a closed dropdown, no typeset maths.
    prose: (() => {
      const clone = article.cloneNode(true);
      clone.querySelectorAll('pre, code, script, style, mjx-container, .cell_input, details:not([open]) > :not(summary)')
        .forEach((el) => el.remove());
      return clone.textContent;
    })(),
    // Tables cut off at the reader's width: wider than the column, or holding more than they show without a
    // scroll bar of their own (a table with many columns scrolls sideways inside itself rather than break words).
    wide_tables: Array.from(article.querySelectorAll('table'))
      .filter((t) => visible(t) > 0 && !t.closest('details:not([open])'))
      .filter((t) => t.getBoundingClientRect().right > main.right + 2 || (t.scrollWidth > (t.parentElement.clientWidth + 2)
        && !['auto', 'scroll'].includes(getComputedStyle(t).overflowX)))
      .map((t) => ((t.querySelector('caption') || {}).innerText || (t.querySelector('th') || {}).innerText || '').slice(0, 60)),
    // Words broken across two lines inside a visible table's cells (a word of 4+ letters whose box spans two lines).
    broken_words: (() => {
      const out = [];
      const tables = Array.from(article.querySelectorAll('table')).filter((t) => visible(t) > 0 && !t.closest('details:not([open])'));
      for (const cell of tables.flatMap((t) => Array.from(t.querySelectorAll('td, th'))).slice(0, 3000)) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node && out.length < 20; node = walker.nextNode()) {
          for (const m of node.data.matchAll(/[A-Za-z]{4,}/g)) {
            const range = document.createRange();
            range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
            const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
            if (tops.size > 1) out.push(m[0]);
          }
        }
      }
      return out;
    })(),
    // Tables a reader sees without opening anything.
    // (A closed <details> still lays its content out in Chromium, so its tables are excluded by name.)
    visible_tables: Array.from(article.querySelectorAll('table'))
      .filter((t) => visible(t) > 0 && !t.closest('details:not([open])')).length,
    // Where a reader meets the verdicts and the first figure (px from the top of the page).
    result_box_top: (() => { const b = article.querySelector('.admonition.tip');
      return b ? b.getBoundingClientRect().top + window.scrollY : null; })(),
    first_figure_top: (() => { const im = Array.from(article.querySelectorAll("img")).find((i) => /_images\//.test(i.src) && visible(i) > 0);
      return im ? im.getBoundingClientRect().top + window.scrollY : null; })(),
    // The landing page's verdict: its answer in words ("Our answer. …").
    verdict_top: (() => { const w = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
      while (w.nextNode()) { if (/Our answer/.test(w.currentNode.textContent)) {
        const r = document.createRange(); r.selectNodeContents(w.currentNode);
        return r.getBoundingClientRect().top + window.scrollY; } } return null; })(),
    // Figure images a reader cannot open at full size (the zoom link of _static/figure_zoom.js).
    unzoomable: Array.from(article.querySelectorAll("img")).filter((i) => /_images\//.test(i.src) && !i.closest('a[href]')).length,
    viewport_height: window.innerHeight,
    // The page's own width (wider than the viewport: the reader scrolls the whole page sideways).
    page_width: document.documentElement.scrollWidth, viewport_width: window.innerWidth,
    // The landing page's table of the paper's claims: the registered claim of each row, in order.
    headline_claims: Array.from(article.querySelectorAll('table.headline-table tr[data-claim]')).map((tr) => tr.dataset.claim),
    // Glued (pasted) text in prose set heavier than the text around it (myst-nb's default bolds it all; a result
    // box's verdicts and table cells keep it, for scanning).
    bold_glued: Array.from(article.querySelectorAll('span.pasted-text'))
      .filter((el) => el.parentElement && !el.closest('.admonition, table'))
      .filter((el) => parseInt(getComputedStyle(el).fontWeight) > parseInt(getComputedStyle(el.parentElement).fontWeight))
      .map((el) => el.textContent.slice(0, 60)),
    // Search fields a reader sees (the sidebar's form, the header's button): one is enough.
    search_boxes: Array.from(document.querySelectorAll('form.bd-search, button.search-button-field'))
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
  });
} catch (e) { done({script_error: String(e && e.stack || e)}); } });
"""


@dataclass
class PageReport:
    page: str
    title: str
    mathjax: bool
    mathjax_src: list[str]
    mathjax_settled: str
    search_boxes: int
    missing_alt: list[str]  # figures whose alt text is empty or a file name
    visible_tables: int
    wide_tables: list[str]
    broken_words: list[str]
    broken_images: list[str]
    captions: list[str]
    error_outputs: list[str]
    raw_tex: list[str]
    console_errors: list[str]
    height: float
    figure_share: float
    code_share: float
    image_scales: list[float] = field(default_factory=list)  # displayed width / native width of each figure
    result_box_top: float | None = None  # px from the page's top: the chapter's result box
    first_figure_top: float | None = None  # … its first figure
    verdict_top: float | None = None  # … the landing page's verdict counts
    unzoomable: int = 0  # figure images not linked to their full-size file
    viewport_height: float = 0.0
    page_width: float = 0.0
    viewport_width: float = 0.0
    headline_claims: list[str] = field(default_factory=list)
    wide_math: list[str] = field(default_factory=list)  # display equations wider than their column
    bold_glued: list[str] = field(default_factory=list)  # glued text heavier than the text around it
    screenshot: str | None = None
    text: str = field(default="", repr=False)
    prose: str = field(default="", repr=False)


# MyST or Markdown syntax that a rendered page must never show as text (issue 60 item 4: chapter 04 once printed
# "````{dropdown} Figure: …, N_tokens = glue:text`fig5_V`, N_\\text{pairs …" as its dropdown's title).
RAW_MARKUP = re.compile(r"`{3,}|:{3,}\{|\{(?:dropdown|glue|admonition|note|tip|figure)[^}]*\}|\bglue:(?:text|figure|any)\b|"
                        r"\\text\{|\\math\w+\{|\$[^$\s][^$]{0,80}\$")


def raw_markup(prose: str) -> list[str]:
    """The pieces of raw MyST/Markdown syntax in a page's rendered prose (code and typeset maths excluded)."""
    return sorted({m.group(0)[:40] for m in RAW_MARKUP.finditer(prose)})


# Delimiters MathJax consumes: any left in the rendered text is maths that did not typeset.
RAW_TEX_MARKERS = ("\\(", "\\)", "\\[", "\\]", "$$", "\\frac", "\\mathrm", "\\sqrt")


def inspect_page(driver: "object", url: str, page: str, screenshot_dir: Path | None = None,
                 expand_code: bool = False) -> PageReport:
    """Load ``page`` and report on it; ``expand_code`` opens every collapsed code input first (the layout a
    reader gets who clicks them all, or a book whose inputs are not collapsed)."""
    driver.get(url + page)  # type: ignore[attr-defined]
    driver.set_script_timeout(60)  # type: ignore[attr-defined]
    info = driver.execute_async_script(_INSPECT, expand_code)  # type: ignore[attr-defined]
    if "script_error" in info:
        raise RuntimeError(f"the inspection script failed on {page}: {info['script_error']}")
    console = console_errors(driver)
    text = info["text"]
    raw = sorted({m for m in RAW_TEX_MARKERS if m in text})
    shot = None
    if screenshot_dir is not None:
        shot = str(full_page_screenshot(driver, screenshot_dir / (page.replace("/", "__").removesuffix(".html") + ".png")))
    height = max(info["height"], 1.0)
    return PageReport(
        page=page, title=info["title"], mathjax=info["mathjax"], mathjax_src=info["mathjax_src"],
        mathjax_settled=info["mathjax_settled"], search_boxes=info["search_boxes"],
        visible_tables=info["visible_tables"], wide_tables=info["wide_tables"], broken_words=info["broken_words"],
        missing_alt=[im["src"] for im in info["images"] if "_images/" in im["src"]
                     and (not im["alt"].strip() or im["alt"].endswith((".png", ".svg")) or "_images/" in im["alt"])],
        broken_images=[im["src"] for im in info["images"] if not im["ok"]], captions=info["captions"],
        error_outputs=info["errors"], raw_tex=raw, console_errors=console, height=height,
        figure_share=info["figure_height"] / height, code_share=info["code_height"] / height, screenshot=shot,
        image_scales=[im["scale"] for im in info["images"] if im.get("scale") and "_images/" in im["src"]],
        wide_math=info["wide_math"], result_box_top=info["result_box_top"], first_figure_top=info["first_figure_top"],
        verdict_top=info["verdict_top"], unzoomable=info["unzoomable"], viewport_height=info["viewport_height"],
        page_width=info["page_width"], viewport_width=info["viewport_width"], headline_claims=info["headline_claims"],
        text=text, prose=info["prose"], bold_glued=info["bold_glued"],
    )


def full_page_screenshot(driver: "object", path: Path) -> Path:
    """The whole page (not just the window) as a PNG, through the DevTools protocol."""
    import base64

    path.parent.mkdir(parents=True, exist_ok=True)
    # Make the window as tall as the page at the reader's width, then take a plain screenshot: capturing "beyond the
    # viewport" lets Chromium lay the page out again at another width.
    width = driver.execute_script("return document.documentElement.clientWidth")  # type: ignore[attr-defined]
    height = driver.execute_script("return document.documentElement.scrollHeight")  # type: ignore[attr-defined]
    height = min(int(height), 16000)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {  # type: ignore[attr-defined]
        "width": int(width), "height": height, "deviceScaleFactor": 1, "mobile": False})
    try:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})  # type: ignore[attr-defined]
    finally:  # back to the reader's screen (a phone's is emulated: `chromium`)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", driver.reader_metrics)  # type: ignore[attr-defined]
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def console_errors(driver: "object") -> list[str]:
    """The page's console errors so far, less the allowed ones (`CONSOLE_ALLOW`)."""
    logs = driver.get_log("browser")  # type: ignore[attr-defined]
    return [e["message"] for e in logs if e.get("level") == "SEVERE" and not any(a in e["message"] for a in CONSOLE_ALLOW)]


def inspect_book(html: Path, screenshot_dir: Path | None = None, expand_code: bool = False, width: int = 1280,
                 height: int = 900, pages: list[str] | None = None) -> list[PageReport]:
    """Load every page of the built book (or only ``pages``) in headless Chromium, ``width`` × ``height`` px (a
    laptop; 390 × 844: a phone), and report what a reader would see."""
    if not (html / "index.html").exists():
        raise FileNotFoundError(f"{html} holds no built book (run make book first)")
    reports = []
    with serve(html) as url, chromium(width, height) as driver:
        for page in book_pages(html):
            if pages is not None and str(page) not in pages:
                continue
            reports.append(inspect_page(driver, url, str(page), screenshot_dir, expand_code))
            time.sleep(0.05)
    return reports


def layout_table(reports: list[PageReport]) -> str:
    rows = [f"{'page':45s} {'height px':>9s} {'figures':>8s} {'code':>6s} {'figure scale (min)':>19s}"]
    for r in reports:
        scale = f"{min(r.image_scales):.2f}" if r.image_scales else "—"
        rows.append(f"{r.page:45s} {r.height:9.0f} {r.figure_share:8.1%} {r.code_share:6.1%} {scale:>19s}")
    total = sum(r.height for r in reports)
    fig = sum(r.figure_share * r.height for r in reports) / total
    code = sum(r.code_share * r.height for r in reports) / total
    rows.append(f"{'all pages (height-weighted)':45s} {total:9.0f} {fig:8.1%} {code:6.1%}")
    return "\n".join(rows)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--expand-code"]
    html = Path(args[0] if args else "_build/html")
    shots = Path(args[1]) if len(args) > 1 else None
    reports = inspect_book(html, shots, expand_code="--expand-code" in sys.argv)
    print(layout_table(reports))
    out = html.parent / "layout.json"
    out.write_text(json.dumps([{k: v for k, v in asdict(r).items() if k != "text"} for r in reports], indent=1))
