"""One number per quantity (issue 60 item 3): wherever a page's prose names a headline quantity and prints a number
of its kind, the number is the one the landing page prints, or the sentence names the other reading it shows (a
model, seeds, a threshold, a point, a diagnostic).

Read from the built HTML, not the browser: code cells, tables (each row names its claim) and the page's footer are
left out; every other block of text is split into sentences. `offending` is the check; the test that runs it over
the book, and the one that shows it fails on an unlabelled number, are in test_book_in_browser.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Headline claim → how prose names its quantity.
QUANTITIES: dict[str, str] = {
    "table1.joint.fresh.T_exponent": r"\bT exponent|exponent of \(?T\b",
    "table1.joint.fresh.d_exponent": r"\bd exponent|exponent of \(?d\b",
    "table1.joint.fresh.B_exponent": r"\bB exponent|exponent of \(?B\b",
    "recall_t1.figure4.pairs_exponent_5": r"N_?pairs exponent|exponent of \(?N_?\\?(?:text\{)?pairs",
    "recall_t1.figure4.tokens_exponent_5": r"N_?tokens exponent|exponent of \(?N_?\\?(?:text\{)?tokens",
    "recall_t1.figure5.in_context_speedup": r"in-context (?:recall )?speed-up|speeds recall up|speed-ups? of emergence",
    "recall_t1.figure5.cross_sample_speedup": r"cross-sample (?:recall )?speed-up|speed-ups? of emergence",
    "table1.ablations.figure13.heads_exponent": r"heads exponent|exponent of (?:the heads|\(?H\b)",
}
# Words that name a reading other than the headline's: another model, other seeds, another threshold, another point
# or range, a local slope, a screen's reading, a diagnostic. "The paper's" is not one: the paper's value is allowed
# as a number, never as a label for ours.
READINGS = (r"small model|laptop|first seeds|fresh seeds|original seeds|diagnostic|at 50\s?%|at 5\s?%|local|screen|"
            r"reading|toy|\bpin|SGD|1\s?×\s?1|bfloat16|cheap end|no LayerNorm|\b[dTBpH] = \d|N_?\\?(?:text\{)?"
            r"(?:pairs|tokens)\}?\s?= \d|T ≤|from T|→|per seed|seeds? \d|each seed|fit chosen after")
NUMBER = re.compile(r"(?<![\w.])[−-]?\d+\.\d+(?![\w.]*\d)")


@dataclass(frozen=True)
class Finding:
    page: str
    quantity: str
    number: str
    sentence: str


def prose_blocks(html: str) -> list[str]:
    """The page's prose: paragraphs, list items, captions and dropdown titles of its article, without code, tables,
    or the edition line."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    main = soup.find("main") or soup
    for tag in main.select("script, style, table, div.cell_input, pre, p.build-stamp, .headline-table, .MathJax"):
        tag.decompose()
    blocks = []
    for tag in main.find_all(["p", "li", "figcaption", "summary", "dd"]):
        if tag.find(["p", "li"]):  # an outer block: its inner ones are read on their own
            continue
        blocks.append(" ".join(tag.get_text(" ").split()))
    return blocks


def sentences(block: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;!?])\s+(?=[A-Z(*])", block) if s]


def allowed_numbers(entry: dict, paper_value: float | None, fmt: str) -> set[str]:
    """The headline's number as printed, its interval's ends and the paper's value, sign aside."""
    values = [entry["ours"], *(entry.get("interval") or [])] + ([paper_value] if paper_value is not None else [])
    return {format(abs(v), fmt) for v in values if v is not None} | {format(abs(v), ".2f") for v in values if v is not None}


def offending(page: str, html: str, logged: dict[str, tuple[dict, float | None, str]]) -> list[Finding]:
    """Each number a page prints for a headline quantity that is neither the landing page's (nor its interval's ends,
    nor the paper's value) in a sentence that names no other reading. ``logged``: headline key → (its logged entry,
    the paper's value, its format)."""
    out = []
    for block in prose_blocks(html):
        for s in sentences(block):
            if re.search(READINGS, s):
                continue
            for key, name in QUANTITIES.items():
                if key not in logged or not re.search(name, s):
                    continue
                entry, paper_value, fmt = logged[key]
                ok = allowed_numbers(entry, paper_value, fmt)
                for m in NUMBER.finditer(s):
                    if m.group().lstrip("−-") not in ok:
                        out.append(Finding(page, key, m.group(), s))
    return out


def book_pages(html_root: Path) -> dict[str, str]:
    skip = ("_static", "_sources", "reports", "genindex", "search.html", "_tables")
    return {str(p.relative_to(html_root)): p.read_text() for p in sorted(html_root.rglob("*.html"))
            if not any(part in str(p.relative_to(html_root)) for part in skip)}
