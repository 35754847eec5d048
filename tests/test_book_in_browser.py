"""The built book, loaded page by page in headless Chromium, as a reader sees it (``make browser``).

Runs after the book build, on ``_build/html``. A missing browser is a failure that says how to install it, never a
skip. Every page gets a full-page screenshot under ``_build/screenshots/`` and its layout (the share of its height
that is figures, and that is code) is written to ``_build/screenshots/layout.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path

import pytest

from book_browser import BrowserMissing, book_pages, find_browser, inspect_book, layout_table, raw_markup

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"

pytestmark = pytest.mark.browser

# The paper's figures each chapter reproduces: each must be named in one of its captions.
CHAPTER_FIGURES = {
    "chapters/01_toy_model.html": [1],
    "chapters/02_repetition_toy.html": [2],
    "chapters/03_transformer.html": [3],
    "chapters/04_associative_recall.html": [4, 5],
    "chapters/A1_toy_theory.html": [6, 7, 8],
    "chapters/A2_toy_checks.html": [9, 10],
    "chapters/A3_transformer_dynamics.html": [11, 12],
    "chapters/A4_transformer_ablations.html": [13, 14, 15],
    "chapters/A5_recall_mechanism.html": [16, 17],
}


@pytest.fixture(scope="module")
def inspections():
    """Every page at a laptop's width (1280 × 900, with screenshots) and on a phone's screen (390 × 844), the two
    passes at once, each in its own Chromium: one waits on page loads while the other renders."""
    from concurrent.futures import ThreadPoolExecutor

    try:
        find_browser()
    except BrowserMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    if not (HTML / "index.html").exists():
        pytest.fail(f"no built book in {HTML}: run `make book` first", pytrace=False)
    with ThreadPoolExecutor(max_workers=2) as pool:
        laptop = pool.submit(inspect_book, HTML, SHOTS)
        phone = pool.submit(inspect_book, HTML, None, width=390, height=844)
        return laptop.result(), phone.result()


@pytest.fixture(scope="module")
def reports(inspections):
    found = inspections[0]
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "layout.json").write_text(json.dumps([{k: v for k, v in asdict(r).items() if k != "text"} for r in found], indent=1))
    print("\n" + layout_table(found))
    return {r.page: r for r in found}


CHAPTERS_WITH_RESULTS = [f"chapters/{c}.html" for c in (
    "01_toy_model", "02_repetition_toy", "03_transformer", "04_associative_recall", "A1_toy_theory", "A2_toy_checks",
    "A3_transformer_dynamics", "A4_transformer_ablations", "A5_recall_mechanism", "B1_steering", "B2_prediction",
    "B3_followup")]


@pytest.fixture(scope="module")
def phone_reports(inspections):
    """Every page on a phone's screen, 390 × 844 px (no screenshots)."""
    return {r.page: r for r in inspections[1]}


@pytest.mark.parametrize("screen", ["laptop", "phone"])
def test_the_verdict_counts_are_on_the_landing_pages_first_screen(reports, phone_reports, screen):
    r = (reports if screen == "laptop" else phone_reports)["intro.html"]
    assert r.verdict_top is not None and r.verdict_top < r.viewport_height, (r.verdict_top, r.viewport_height)


@pytest.mark.parametrize("screen, most", [("laptop", 3.0), ("phone", 8.0)])
def test_the_landing_page_is_a_few_screens(reports, phone_reports, screen, most):
    """Issue 52: the landing page was 38.7 screens at 1280 px and 82 at 390 px (one 148-row table)."""
    r = (reports if screen == "laptop" else phone_reports)["intro.html"]
    assert r.height / r.viewport_height <= most, f"{r.height / r.viewport_height:.1f} screens"


def test_the_landing_pages_rows_are_the_registrys_headline_claims(reports):
    from emergence_lib.headlines import headline_keys

    assert reports["intro.html"].headline_claims == headline_keys()


def test_on_a_phone_no_page_is_wider_than_the_screen(phone_reports):
    """A phone's layout viewport grows to the widest element (methods.html was 501 px wide at 390)."""
    assert not {p: r.page_width for p, r in phone_reports.items() if r.page_width > 391}


@pytest.mark.parametrize("screen", ["laptop", "phone"])
def test_each_chapter_shows_its_result_box_and_a_figure_within_two_screens(reports, phone_reports, screen):
    found = reports if screen == "laptop" else phone_reports
    late = {}
    for page in CHAPTERS_WITH_RESULTS:
        r = found[page]
        limit = 2 * r.viewport_height
        if r.result_box_top is None or r.first_figure_top is None or max(r.result_box_top, r.first_figure_top) > limit:
            late[page] = (r.result_box_top, r.first_figure_top, limit)
    assert not late, late


def test_on_a_phone_no_table_overflows_and_no_console_error(phone_reports):
    assert not {p: r.wide_tables for p, r in phone_reports.items() if r.wide_tables}
    assert not {p: r.console_errors for p, r in phone_reports.items() if r.console_errors}


def test_no_word_is_broken_mid_word_in_a_table_at_a_laptops_width(reports):
    """Issue 52 item 7: narrow columns broke words ("re/pr/od/uc/ed", "inconclusiv/e"); a wide table scrolls instead."""
    assert not {p: r.broken_words for p, r in reports.items() if r.broken_words}


def test_every_figure_opens_at_full_size(reports):
    """On a phone a figure is shown at a third of its size; a tap opens it at full size (`_static/figure_zoom.js`)."""
    assert not {p: r.unzoomable for p, r in reports.items() if r.unzoomable}


def test_every_page_of_the_book_was_loaded(reports):
    assert set(reports) == {str(p) for p in book_pages(HTML)}
    assert set(CHAPTER_FIGURES) <= set(reports), "a chapter page is missing from the build"


def test_every_image_loaded(reports):
    broken = {page: r.broken_images for page, r in reports.items() if r.broken_images}
    assert not broken, broken


def test_maths_typeset_offline(reports):
    for page, r in reports.items():
        assert r.mathjax, f"{page}: MathJax did not start ({r.mathjax_settled})"
        assert r.mathjax_settled.startswith("done"), f"{page}: MathJax's typesetting did not finish ({r.mathjax_settled})"
        assert all(src.startswith("http://127.0.0.1") for src in r.mathjax_src), f"{page}: MathJax from {r.mathjax_src}"
        assert not r.raw_tex, f"{page}: raw TeX left after MathJax ran: {r.raw_tex}"


def test_no_error_or_traceback_in_any_output(reports):
    for page, r in reports.items():
        assert not r.error_outputs, f"{page}: {r.error_outputs[:2]}"
        assert "Traceback (most recent call last)" not in r.text, page


def test_at_most_three_tables_open_on_a_page(reports):
    """A chapter opens its verdict table and at most two key tables; the rest are collapsed (report.show_table)."""
    from emergence_lib.report import VISIBLE_TABLES_PER_CHAPTER

    crowded = {page: r.visible_tables for page, r in reports.items() if r.visible_tables > VISIBLE_TABLES_PER_CHAPTER}
    assert not crowded, f"pages with more than {VISIBLE_TABLES_PER_CHAPTER} tables open: {crowded}"


def test_every_figure_has_alt_text(reports):
    """A figure's alt text is its caption (emergence_lib.book_extension), not its file name."""
    missing = {page: r.missing_alt for page, r in reports.items() if r.missing_alt}
    assert not missing, missing


E_NOTATION = re.compile(r"\b\d+(?:\.\d+)?e[-+]?\d+\b")


def test_no_e_notation_in_prose_or_tables(reports):
    """Numbers read "2.7 × 10⁻⁶" (report.scientific), never "2.7e-06"; code keeps Python's notation."""
    found = {page: sorted(set(E_NOTATION.findall(r.prose)))[:6] for page, r in reports.items() if E_NOTATION.search(r.prose)}
    assert not found, found


def test_no_raw_markup_in_any_pages_prose(reports, phone_reports):
    """Issue 60 item 4: no visible backtick fence, directive, glue role, \\text{ or unrendered $…$ on any page."""
    found = {f"{page} @ {w}": raw_markup(r.prose) for w, rs in (("1280", reports), ("390", phone_reports))
             for page, r in rs.items() if raw_markup(r.prose)}
    assert not found, found


def test_the_raw_markup_check_catches_chapter_04s_old_dropdown_title():
    old = "Figure: Paper's Figure 5, N_tokens = glue:text`fig5_V`, N_\\text{pairs = {glue:text}`fig5_N`"
    assert raw_markup(old) and raw_markup("````{dropdown} a title") and raw_markup("the law $d^{1.29}$ here")
    assert not raw_markup("The plateau grows as d^1.29 (95% interval [1.1, 1.5]); it costs 3 CPU-hours.")


def test_glued_text_takes_the_weight_of_the_prose_around_it(reports):
    """A generated sentence glued into a paragraph reads as prose, not in bold (myst-nb's default bolds every glued
    text: chapter 04's paragraph on Figure 4 was a block of bold). Result boxes and tables keep bold verdicts."""
    found = {page: r.bold_glued[:3] for page, r in reports.items() if r.bold_glued}
    assert not found, found


def test_no_open_table_is_wider_than_its_column(reports):
    wide = {page: r.wide_tables for page, r in reports.items() if r.wide_tables}
    assert not wide, f"tables wider than their column at 1280 px: {wide}"


def test_one_search_box_per_page(reports):
    counts = {page: r.search_boxes for page, r in reports.items() if r.search_boxes != 1}
    assert not counts, f"pages with other than one visible search field: {counts}"


def test_no_console_error_outside_the_allow_list(reports):
    errors = {page: r.console_errors for page, r in reports.items() if r.console_errors}
    assert not errors, errors


def test_each_chapter_names_its_paper_figures_in_captions(reports):
    for page, numbers in CHAPTER_FIGURES.items():
        captions = " ".join(reports[page].captions)
        for n in numbers:
            assert re.search(rf"paper.s Figure {n}(?!\d)", captions, re.I), f"{page}: no caption names the paper's Figure {n}"


def test_the_landing_table_is_filled_from_the_chapters(reports):
    """Each row of the landing page's table shows a verdict that a chapter logged in this build (the scoreboard's full
    table keeps the marks of every claim)."""
    text = reports["intro.html"].text
    for word in ("reproduced", "agrees", "differs"):
        assert word in text, f"the landing table shows no '{word}'"
    assert "not judged in this build" not in text, "the landing page read no logged verdicts"
    board = (HTML / "chapters" / "scoreboard.html").read_text()  # its table is folded: read the page, not the screen
    for mark in ("✓ reproduced", "△ differs", "○ not run"):
        assert mark in board, f"the scoreboard shows no '{mark}'"
    assert board.count("✓ reproduced") >= 20


@pytest.mark.parametrize("screen, most", [("laptop", 6.0), ("phone", 15.0)])
def test_the_scoreboard_opens_with_its_summary_and_is_a_few_screens(reports, phone_reports, screen, most):
    """Issue 60 item 8: it was 43.5 screens at 1280 px and 107.6 at 390, its 186-row table first."""
    r = (reports if screen == "laptop" else phone_reports)["chapters/scoreboard.html"]
    assert r.height / r.viewport_height <= most, f"{r.height / r.viewport_height:.1f} screens"
    assert r.text.index("At a glance") < 300, "the summary first"


def test_the_landing_verdict_comes_first_and_each_headline_number_is_the_chapters(reports):
    """Issue 60 items 1 and 3: the three-line verdict (reproduces, does not, why) precedes the table, and each headline
    claim's logged number, printed on the landing page, is the number its chapter's page prints."""
    import json

    from emergence_lib.claims import REGISTRY
    from emergence_lib.headlines import HEADLINES

    text = reports["intro.html"].text
    marks = [text.index(w) for w in ("Reproduces", "Does not", "Why:", "The paper's claim")]
    assert marks == sorted(marks), "reproduces, does not, why, then the table"
    from emergence_lib.headlines import cell

    logs = ROOT / "_build" / "claims"
    for h in HEADLINES:
        c = REGISTRY[h.key]
        found = [p for p in logs.glob(f"{c.key}@*.json")]
        if not found or c.chapter is None:
            continue
        entry = json.loads(found[0].read_text())
        landing = cell(c, entry).split(" [")[0]  # the landing cell's number, as it prints it
        chapter_number = format(entry["ours"], c.fmt).replace("-", "−")  # the chapter's result box prints this one
        chapter = reports[f"chapters/{c.chapter}.html"].text + (HTML / "chapters" / f"{c.chapter}.html").read_text()
        assert landing in text, f"{h.key}: {landing} is not on the landing page"
        assert chapter_number in chapter, f"{h.key}: the landing page prints {landing}, its chapter not {chapter_number}"
        assert abs(float(landing.replace("−", "-")) - float(chapter_number.replace("−", "-"))) <= 0.005 + 1e-12, h.key


def test_a_screenshot_of_every_page(reports):
    for page, r in reports.items():
        assert r.screenshot and Path(r.screenshot).stat().st_size > 10_000, page


def test_figures_are_legible_at_the_column_width(reports):
    """Every figure's tick labels render at 10 px or more at 1280 px (before the book style was sized for the column
    they rendered at about 6–7 px): the displayed/native width of each image times the style's tick size."""
    import matplotlib

    from emergence_lib import plotting

    plotting.use_book_style()
    tick_px_native = float(matplotlib.rcParams["xtick.labelsize"]) * float(matplotlib.rcParams["figure.dpi"]) / 72
    small = {page: [round(s * tick_px_native, 1) for s in r.image_scales if s * tick_px_native < 10]
             for page, r in reports.items()}
    assert not any(small.values()), {p: v for p, v in small.items() if v}


def test_no_display_equation_is_wider_than_its_column(reports):
    wide = {page: r.wide_math for page, r in reports.items() if r.wide_math}
    assert not wide, wide


def test_every_table_offers_its_data_as_csv_and_the_link_resolves():
    """`make book` writes each shown table as CSV (report.save_table_csv) and links it; a link must reach its file."""
    pages = [HTML / p for p in book_pages(HTML) if str(p).startswith("chapters/")]
    linked = 0
    for page in pages:
        text = page.read_text()
        for href in re.findall(r'class="book-table-csv" href="([^"]+)"', text):
            assert (page.parent / href).resolve().exists(), f"{page.name}: CSV link {href} does not resolve"
            linked += 1
        if "book-table" in text:
            assert "book-table-csv" in text, f"{page.name} shows tables but offers none as CSV"
    assert linked > 0


def test_each_chapters_download_is_the_executed_notebook_with_its_figures():
    """The page's .ipynb download (``_sources/``) has outputs, its glued figures among them, not the bare source."""
    import json

    sources = sorted((HTML / "_sources" / "chapters").glob("*.ipynb"))
    assert sources, "no notebook downloads in the build"
    for path in sources:
        nb = json.loads(path.read_text())
        outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        assert images or path.stem == "scoreboard", f"{path.name}: the download has no figure"
        assert not any(k.startswith("application/papermill") for o in outputs for k in o.get("data", {})), path.name


def test_search_snippets_read_formulas_as_text_not_raw_tex():
    """Sphinx cuts search snippets from the pages' text, where MathJax has not run; the book's script turns each
    formula into plain text first (`_static/search_snippets.js`)."""
    import time

    from book_browser import chromium, serve

    with serve(HTML) as base, chromium() as driver:
        assert driver.execute_script("return 1") == 1  # type: ignore[attr-defined]
        driver.get(base + "search.html?q=plateau")  # type: ignore[attr-defined]
        deadline, snippets = time.time() + 60, []
        while time.time() < deadline and not snippets:
            time.sleep(0.5)
            snippets = driver.execute_script(  # type: ignore[attr-defined]
                "return [...document.querySelectorAll('#search-results p.context')].map(p => p.textContent)")
        assert snippets, "the search found nothing for 'plateau'"
        assert not [s for s in snippets if "\\(" in s or "\\)" in s or "\\frac" in s], snippets[:3]
        # The conversion itself, on a formula the book prints.
        assert driver.execute_script("return window.emergenceUntex('as \\\\(d^{0.49}\\\\) and \\\\(\\\\sqrt{d}\\\\,T\\\\)')") \
            == "as d^0.49 and √(d) T"  # type: ignore[attr-defined]


# ---- the explorers (chapters/explore_toy, chapters/explore_runs): driven through their own controls

# Six settings of the toy explorer, with B > 1 and p > 0 among them.
TOY_POINTS = [(256, 32, 1, 0.0), (64, 4, 1, 0.0), (1024, 16, 4, 0.0), (256, 64, 8, 0.0), (256, 32, 1, 0.2),
              (512, 16, 1, 0.5)]


def _set_controls(driver, values: dict) -> None:
    for name, value in values.items():
        box = driver.find_element("id", f"toy-{name}")
        box.clear()
        box.send_keys(str(value))
        driver.execute_script("arguments[0].dispatchEvent(new Event('change'))", box)


@pytest.fixture(scope="module")
def toy_plateaus() -> list[float]:
    """emergence_lib's reduced flow at TOY_POINTS, computed once for both widths (about 25 s on a 2-core host)."""
    from emergence_lib.configs import ToyFlowConfig
    from emergence_lib.runs import run_toy_flow

    return [r.summary["plateau_length"] for r in run_toy_flow([ToyFlowConfig(T=T, d=d, B=B, p=p) for T, d, B, p in TOY_POINTS])]


@pytest.mark.parametrize("width", [1280, 390])
def test_the_toy_explorer_agrees_with_the_library(width, toy_plateaus):
    """Set through the page's own number inputs, the plateau the page shows is emergence_lib's reduced flow's within
    1%; the settings land in the address; the page raises no console error and fits a phone's width."""
    from book_browser import chromium, console_errors, serve

    expected = toy_plateaus
    shown = []
    with serve(HTML) as base, chromium(width=width, height=900) as driver:
        driver.get(base + "chapters/explore_toy.html")
        for T, d, B, p in TOY_POINTS:
            _set_controls(driver, {"B": 1, "p": 0})  # one kind of repetition at a time: reset both first
            _set_controls(driver, {"d": d, "T": T, "B": B, "p": p})
            root = driver.find_element("css selector", ".toy-explorer")
            assert root.get_attribute("data-state") == "ready", driver.find_element("css selector", ".toy-message").text
            shown.append(float(driver.find_element("css selector", ".toy-plateau").get_attribute("data-value")))
            assert f"d={d}&T={T}&B={B}&p={p:g}" in driver.current_url
        width_ok = driver.execute_script("return document.querySelector('.toy-explorer').scrollWidth <= "
                                         "document.querySelector('article').clientWidth + 2")
        errors = console_errors(driver)
    for (T, d, B, p), ours, lib in zip(TOY_POINTS, shown, expected):
        print(f"explorer (T, d, B, p) = ({T}, {d}, {B}, {p}): page {ours:.6g}, library {lib:.6g}, {ours / lib - 1:+.2e}")
        assert ours == pytest.approx(lib, rel=0.01), (T, d, B, p)
    assert width_ok, "the explorer fits the column"
    assert not errors, errors


def test_the_toy_explorer_opens_a_shared_link_and_refuses_bad_values():
    from book_browser import chromium, serve

    with serve(HTML) as base, chromium() as driver:
        driver.get(base + "chapters/explore_toy.html?d=16&T=128&B=2&p=0")
        assert driver.find_element("id", "toy-T").get_attribute("value") == "128"
        assert driver.find_element("css selector", ".toy-explorer").get_attribute("data-state") == "ready"
        _set_controls(driver, {"p": 0.3})  # p > 0 with B = 2: refused, with what is allowed
        assert driver.find_element("css selector", ".toy-explorer").get_attribute("data-state") == "invalid"
        assert "B = 1" in driver.find_element("css selector", ".toy-message").text


def _slide(driver, name: str, position: int) -> None:
    slider = driver.find_element("css selector", f".toy-control input[aria-label='{name} (slider)']")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, position)


def test_the_toy_explorer_shows_nothing_stale_and_names_what_it_refuses():
    """Issue 53 item 4: the old plateau and plots stayed beside an error; a typed word blanked its box silently;
    ?d=abc fell back to the defaults without a word; the d slider started at 1 (refused) and p's stopped at 0.9."""
    from book_browser import chromium, console_errors, serve

    with serve(HTML) as base, chromium() as driver:
        driver.get(base + "chapters/explore_toy.html?d=abc&T=128")
        root = driver.find_element("css selector", ".toy-explorer")
        assert root.get_attribute("data-state") == "ready"
        assert "d=abc in the address is not a number" in driver.find_element("css selector", ".toy-message").text
        assert "d=32&T=128" in driver.current_url, "the address keeps nothing invalid"
        _set_controls(driver, {"T": "abc"})
        assert root.get_attribute("data-state") == "invalid"
        assert '"abc" is not a number' in driver.find_element("css selector", ".toy-message").text
        assert driver.find_element("id", "toy-T").get_attribute("value") == "abc", "the typed text stays to be fixed"
        assert driver.find_element("css selector", ".toy-readout").text == "", "no stale plateau"
        assert not driver.find_elements("css selector", ".toy-plots svg *"), "no stale plots"
        assert "?" not in driver.current_url
        _set_controls(driver, {"T": 256})
        for name, position, value in (("d", 0, "2"), ("d", 1000, "1024"), ("p", 1000, "0.99"), ("p", 0, "0"),
                                      ("B", 1000, "64"), ("T", 0, "2")):
            _set_controls(driver, {"T": 256, "B": 1, "p": 0})  # each slider alone from a valid setting
            _slide(driver, name, position)
            assert driver.find_element("id", f"toy-{name}").get_attribute("value") == value
            assert root.get_attribute("data-state") == "ready", (name, value, driver.find_element("css selector", ".toy-message").text)
        _set_controls(driver, {"d": 32, "T": 256, "B": 1, "p": 0})
        ratio = driver.find_element("css selector", ".toy-escape-ratio").text
        assert float(ratio) > 1, "Eq. 6's escape time, with the factor it stands from the plateau"
        assert not console_errors(driver)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_runs_browser_is_what_it_says(width):
    """Issue 53 item 3: every stored Transformer run of every figure, no ratio against a law at another threshold, a
    threshold line and a legend, labelled cells, and within a phone's width with legible plot text."""
    from book_browser import chromium, console_errors, serve

    from emergence_lib import run_index

    data = run_index.index()
    with serve(HTML) as base, chromium(width=width, height=900) as driver:
        driver.get(base + "chapters/explore_runs.html")
        root = driver.find_element("css selector", ".runs-browser")
        assert root.get_attribute("data-state") == "ready"
        assert driver.execute_script("return window.STORED_RUNS.runs.length") == len(data["runs"])
        first = driver.execute_script("return document.querySelector('.runs-browser select[name=figure]').value")
        members = [r for r in data["runs"] if data["figures"].index(first) in r["figures"]]
        rows = driver.find_elements("css selector", ".runs-browser tbody tr")
        assert len(rows) == len(members)
        cells = rows[0].find_elements("css selector", "td")
        assert [c.get_attribute("data-label") for c in cells] == ["point", "seed", "width", "lr", "measured", "law", "ours / law"]
        page = driver.find_element("tag name", "body").text
        assert "not_reached" not in page and "(not reached)" not in page
        assert driver.find_elements("css selector", ".runs-browser svg .runs-threshold"), "the threshold line"
        legend = " ".join(t.text for t in driver.find_elements("css selector", ".runs-browser svg .runs-legend text"))
        assert "threshold" in legend and "curve" in legend
        font_px = driver.execute_script(
            "const s = document.querySelector('.runs-browser svg'); const t = s.querySelector('.runs-legend text');"
            "return t.getBoundingClientRect().height;")
        assert font_px >= 10, f"plot text {font_px:.1f} px tall"
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width + 1, f"{wide} px wide at {width}"
        # Sorted by the ratio, a run without a law at its setting never reads as faster or slower than it.
        figure = next(f for f in data["figures"] if any(r["law"] is None for r in data["runs"] if data["figures"].index(f) in r["figures"]))
        driver.execute_script("const s = document.querySelector('.runs-browser select[name=figure]'); s.value = arguments[0];"
                              "s.dispatchEvent(new Event('change'))", figure)
        lawless = [r.find_elements("css selector", "td")[5].text for r in driver.find_elements("css selector", ".runs-browser tbody tr")]
        assert "none here" in lawless
        assert not console_errors(driver)


@pytest.mark.parametrize("page", ["chapters/03_transformer.html", "chapters/04_associative_recall.html"])
def test_chapters_3_and_4_take_at_most_twelve_screens(reports, page):
    """Issue 52: answer first, details folded; each was over 15 screens at 1280 px."""
    r = reports[page]
    assert r.height / r.viewport_height <= 12, f"{r.height / r.viewport_height:.1f} screens"


def test_no_chapter_shows_a_run_in_progress(reports):
    """A chapter describes stored results; a run's progress ('seed 2 at step 7,072', 'not run yet (14 of 34 runs)',
    'the runs stored so far') is for `status`, not readers. A claim that waits names what it needs instead."""
    progress = (r"at step [\d,]+ of|seeds? training now|runs? (?:is|are) training|\(\d[\d,]* of \d[\d,]* (?:runs|seeds|points)\)"
                r"|(?:runs|seeds) stored so far|stored so far:")
    shown = {p: m.group(0) for p, r in reports.items() if p.startswith("chapters/")
             for m in [re.search(progress, r.prose, re.I)] if m}
    assert not shown, shown


@pytest.mark.parametrize("width", [1280, 390])
def test_the_scoreboards_filters_show_only_the_rows_they_name(width):
    """Issue 60 item 8: a summary and filters first. Each verdict button shows exactly the rows of the full table whose
    status cells print that verdict (counted here from the page's own table), opens the table, says how many rows it
    shows, and "All" restores them; the chapter menu and the text box narrow the same way."""
    from book_browser import chromium, console_errors, serve

    with serve(HTML) as base, chromium(width=width, height=900) as driver:
        driver.get(base + "chapters/scoreboard.html")
        text = driver.find_element("tag name", "body").text
        assert text.index("At a glance") < text.index("Show the claims that"), "the summary, then the filters"
        rows = driver.execute_script(
            "const d = Array.from(document.querySelectorAll('details')).find(d => d.querySelector('summary')"
            ".textContent.trim().startsWith('Every claim the book judges'));"
            "const h = Array.from(d.querySelectorAll('thead th')).map(t => t.textContent.trim());"
            "return Array.from(d.querySelectorAll('tbody tr')).map(r => [r.cells[h.indexOf('Status')].textContent + ' ' +"
            " r.cells[h.indexOf('Ours, paper scale')].textContent, r.cells[h.indexOf('Chapter')].textContent.trim()]);")
        assert len(rows) > 100
        shown = lambda: driver.execute_script(  # noqa: E731
            "const d = Array.from(document.querySelectorAll('details')).find(d => d.querySelector('summary')"
            ".textContent.trim().startsWith('Every claim the book judges'));"
            "return [d.open, Array.from(d.querySelectorAll('tbody tr')).filter(r => r.style.display !== 'none').length];")
        for verdict in ("differs", "reproduced"):
            driver.find_element("css selector", f'.scoreboard-filter button[data-verdict="{verdict}"]').click()
            expected = sum(verdict in status.lower() for status, _ in rows)
            assert expected > 0 and shown() == [True, expected], (verdict, shown(), expected)
            assert f"{expected} of {len(rows)} claims shown" in driver.find_element("css selector", ".scoreboard-filter-count").text
        driver.find_element("css selector", '.scoreboard-filter button[data-verdict="all"]').click()
        assert shown()[1] == len(rows)
        chapter = rows[0][1]
        driver.execute_script("const s = document.querySelector('.scoreboard-filter select'); s.value = arguments[0];"
                              "s.dispatchEvent(new Event('change'))", chapter)
        assert shown()[1] == sum(c == chapter for _, c in rows)
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= width + 1, f"{wide} px wide at {width}"
        assert not console_errors(driver)


def test_each_headline_number_is_the_landing_pages_or_names_its_reading():
    """Issue 60 item 3: every page that prints a headline quantity prints the landing page's number (or its interval's
    ends, or the paper's value), or names the other reading it shows (`headline_numbers`, read from the built HTML)."""
    import json

    from headline_numbers import QUANTITIES, book_pages, offending

    from emergence_lib.claims import REGISTRY

    logged = {}
    for key in QUANTITIES:
        found = sorted((ROOT / "_build" / "claims").glob(f"{key}@*.json"))
        c = REGISTRY[key]
        if found:
            paper = c.paper_value if isinstance(c.paper_value, (int, float)) else None
            logged[key] = (json.loads(found[0].read_text()), paper, c.fmt)
    assert logged, "no headline quantity was logged in this build"
    findings = [f for page, html in book_pages(HTML).items() for f in offending(page, html, logged)]
    assert not findings, "\n".join(f"{f.page}: {f.quantity} printed as {f.number}, unlabelled: {f.sentence[:200]}"
                                   for f in findings)
