"""`make pdf`: the landing page and the chapters, as built, printed into one PDF by headless Chromium (issue 60 item 9).

Each page's article is taken from the built HTML (``_build/html``) in the table of contents' order, its links made
absolute, its dropdowns opened, and the whole printed once, so that figures, tables and typeset maths read as in the
book. The interactive explorers are left out (they need a live page). ``python -m emergence_lib.book_pdf HTML OUT``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = {"chapters/explore_toy", "chapters/explore_runs"}  # interactive: nothing to print
ARTICLE = re.compile(r'<article class="bd-article"[^>]*>(.*?)</article>', re.S)
URL = re.compile(r'\b(src|href)="(?!https?:|#|data:|mailto:|file:)([^"]+)"')


def pages(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """The book's documents in reading order: the root, then every chapter of every part."""
    t = yaml.safe_load(toc.read_text())
    docs = [t["root"]] + [c["file"] for part in t.get("parts", []) for c in part.get("chapters", [])]
    return [d for d in docs if d not in LEFT_OUT]


def article(page: Path) -> str:
    """One built page's article, with its relative links made absolute and its dropdowns open."""
    m = ARTICLE.search(page.read_text())
    if m is None:
        raise ValueError(f"{page}: no article in this page (is it a built book page?)")
    body = URL.sub(lambda u: f'{u.group(1)}="{(page.parent / u.group(2).split("#")[0]).resolve().as_uri()}"', m.group(1))
    return body.replace("<details", "<details open")


def combined(html: Path) -> str:
    """One HTML document holding every page's article, each starting a new sheet, with the book's styles and MathJax."""
    static = html / "_static"
    css = "".join(f'<link rel="stylesheet" href="{p.resolve().as_uri()}">' for p in sorted(static.glob("styles/*.css")))
    css += f'<link rel="stylesheet" href="{(static / "book.css").resolve().as_uri()}">'
    mathjax = static / "mathjax" / "tex-chtml.js"
    script = f'<script defer src="{mathjax.resolve().as_uri()}"></script>' if mathjax.exists() else ""
    parts = [f'<section style="break-before: page">{article(html / (doc + ".html"))}</section>' for doc in pages()]
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>The emergence of sparse attention, reproduced'
            f'</title>{css}<style>body {{ margin: 0 1.5em; }} details > summary {{ font-weight: 600; }}</style>'
            f'{script}</head><body>{"".join(parts)}</body></html>')


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    raise SystemExit("make pdf needs Chromium: apt-get install chromium (make test installs it), then run it again")


def write_pdf(html: Path, out: Path) -> Path:
    if not (html / "index.html").exists() and not (html / "intro.html").exists():
        raise SystemExit(f"no built book in {html}: run `make book` first")
    browser = chromium()
    with tempfile.TemporaryDirectory() as tmp:
        doc = Path(tmp) / "book.html"
        doc.write_text(combined(html))
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp}/profile",
                        "--no-pdf-header-footer", "--virtual-time-budget=60000", f"--print-to-pdf={out}", doc.as_uri()],
                       check=True, capture_output=True, timeout=600)
    if not out.exists() or out.stat().st_size < 10_000:
        raise SystemExit(f"Chromium wrote no PDF at {out}")
    return out


if __name__ == "__main__":
    html, out = (Path(a) for a in (sys.argv[1:] + ["_build/html", "_build/book.pdf"][len(sys.argv[1:]):])[:2])
    print(f"wrote {write_pdf(html, out)}")
