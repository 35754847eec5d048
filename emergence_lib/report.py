"""What a chapter shows its reader: titled tables, glued figures and numbers.

    show_table(fit_table, "Figure 1c: our fit beside the paper's")     # titled, no index, — for missing
    glue_figure("fig1", fig)                                           # shown by {glue:figure} fig1 in the prose
    glue_number("fig1_d_exponent", fit.exponents["d"], ".2f")          # shown by {glue:text}`fig1_d_exponent`

In the book (myst-nb) glued values are pasted where the prose names them, so every number a caption or a
sentence states comes from the computation. Outside the book (plain Jupyter, papermill, nbval) the glue calls
still run, so a chapter behaves the same everywhere.
"""

from __future__ import annotations

import html
import math
import re
from typing import Any

import pandas as pd

MISSING = "—"  # where the paper (or a run) gives no value


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(v: float, digits: int = 3) -> str:
    """A small or large number as a reader writes it, "2.71 × 10⁻⁶" (no e-notation); a power of ten alone, "10⁻⁴"."""
    if v == 0 or not math.isfinite(v):
        return format_value(v)
    exponent = math.floor(math.log10(abs(v)))
    mantissa = v / 10**exponent
    if round(mantissa, digits - 1) in (10, -10):  # 9.996e-4 rounds up to 10 × 10⁻⁴: carry it
        exponent += 1
        mantissa /= 10
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    if round(abs(mantissa), digits - 1) == 1:
        return ("−" if v < 0 else "") + power
    return f"{mantissa:.{digits}g} × {power}".replace("-", "−")


def with_minus_signs(text: str) -> str:
    """Prose with each negative number's hyphen written as a minus sign ("−1.15 [−1.38, −0.92]"), as the registry's
    own cells write them: a hyphen before a digit at the start, or after a space, "[", "(" or "=". Any other hyphen
    stays: in a word, a range ("16-32", "5%-10%", "(256, 64)-3"), an exponent ("1e-4", "$10^{-3}$")."""
    return re.sub(r"(?<![^\s\[(=])-(?=\d)", "−", text)


def and_list(items: list[str]) -> str:
    """"a", "a and b", "a, b and c": a list in prose."""
    return " and ".join(filter(None, [", ".join(items[:-1]), items[-1]])) if items else ""


def format_number(v: float, fmt: str) -> str:
    """``format(v, fmt)`` for prose and claims, with e-notation written as a reader writes it: an ``e`` format always,
    a ``g`` format outside [10⁻³, 10⁶), become "2.7 × 10⁻⁶" at the precision asked for."""
    if fmt[-1] in "eg" and math.isfinite(v) and v != 0 and (fmt[-1] == "e" or not 1e-3 <= abs(v) < 1e6):
        precision = int(fmt.lstrip("+").split(".")[-1][:-1] or 2) + (1 if fmt[-1] == "e" else 0)
        return scientific(v, max(precision, 1))
    return format(int(round(v)) if fmt[-1] in "d," else v, fmt)


def format_value(x: Any) -> str:
    """Sensible rounding for a table cell: integers with separators, 3 significant digits otherwise, — for missing."""
    if x is None:
        return MISSING
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int) or (hasattr(x, "dtype") and x.dtype.kind in "iu"):
        return f"{int(x):,}"
    if isinstance(x, float) or hasattr(x, "__float__") and not isinstance(x, str):
        try:
            v = float(x)
        except (TypeError, ValueError):
            return str(x)
        if math.isnan(v):
            return MISSING
        if math.isinf(v):
            return "not reached" if v > 0 else "−∞"
        if v == int(v) and abs(v) < 1e6:
            return f"{int(v):,}"
        a = abs(v)
        if a >= 100:
            return f"{v:,.0f}"
        if a >= 10:
            return f"{v:.1f}"
        if a >= 0.01:
            return f"{v:.3g}" if a < 1 else f"{v:.2f}"
        return scientific(v)
    if isinstance(x, str) and x.lower() == "nan":
        return MISSING
    return str(x)


def table_html(df: pd.DataFrame, title: str, index: bool = False) -> str:
    """A titled HTML table: no index column unless ``index`` (then the index is an ordinary first column)."""
    if not title:
        raise ValueError("every table needs a title")
    data = df.reset_index() if index else df.reset_index(drop=True)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in data.columns)
    labels = [html.escape(str(c), quote=True) for c in data.columns]  # each cell names its column (a phone stacks them)
    rows = "".join(
        "<tr>" + "".join(f'<td data-label="{lab}">{html.escape(format_value(v))}</td>' for lab, v in zip(labels, row))
        + "</tr>" for row in data.itertuples(index=False, name=None)
    )
    return (f'<table class="table book-table"><caption>{html.escape(title)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")


# A chapter shows at most this many tables open (its verdict tables included); the rest are one click away.
VISIBLE_TABLES_PER_CHAPTER = 3


def show_table(df: pd.DataFrame, title: str, index: bool = False, collapsed: bool | None = None,
               key: bool = False) -> None:
    """Display a titled table. Only a chapter's ``key`` tables are shown open (at most two a chapter, beside its
    verdict table: `VISIBLE_TABLES_PER_CHAPTER`); every other one sits in a dropdown whose summary is its title,
    so that tables do not push the figures apart. ``collapsed`` overrides either way."""
    from IPython.display import HTML, display

    body = table_html(df, title, index)
    csv = save_table_csv(df, title, index)
    link = f' <a class="book-table-csv" href="{csv}" download>CSV</a>' if csv else ""
    fold = (not key) if collapsed is None else collapsed
    if fold:
        body = (f'<details class="book-table-dropdown"><summary>{html.escape(title)} '
                f"({len(df)} rows){link}</summary>{body}</details>")
    elif link:
        body += f'<p class="book-table-download">{link.strip()}: the table as data</p>'
    display(HTML(body))


# Where `show_table` also writes each table as CSV, when set (the book build sets it: `make book`); the book's Sphinx
# extension copies the files into the HTML as _tables/ (`book_extension`), and each table links its file.
TABLES_DIR_ENV = "EMERGENCE_TABLES_DIR"


def table_slug(title: str) -> str:
    """A file name for a table: its title in lower-case words, and a short hash of the whole title (unique)."""
    import hashlib
    import re

    words = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].rstrip("-")
    return f"{words}-{hashlib.sha1(title.encode()).hexdigest()[:6]}"


def save_table_csv(df: pd.DataFrame, title: str, index: bool = False) -> str | None:
    """Write ``df`` as CSV under `TABLES_DIR_ENV` (the raw values, not the rounded cells); returns the link a chapter
    page uses, or None when the variable is not set."""
    import os

    folder = os.environ.get(TABLES_DIR_ENV)
    if not folder:
        return None
    import hashlib

    os.makedirs(folder, exist_ok=True)
    # Two tables of one title (a panel shown by two chapters) share a file only if they hold the same data.
    text = df.to_csv(index=index)
    name = f"{table_slug(title)}-{hashlib.sha1(text.encode()).hexdigest()[:6]}.csv"
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)
    return f"../_tables/{name}"


def _glue(key: str, value: Any, display: bool = False) -> None:
    try:
        from myst_nb import glue
    except ImportError:  # the library without the book's packages: nothing to paste into
        return
    glue(key, value, display=display)


def glue_figure(key: str, fig: Any) -> None:
    """Hand ``fig`` to the prose (``{glue:figure} key``, with its caption), then close it so it is shown once."""
    import matplotlib.pyplot as plt

    _glue(key, fig)
    plt.close(fig)


def glue_number(key: str, value: float, fmt: str = ".3g") -> None:
    """Glue a number already formatted, so the prose pastes it with ``{glue:text}`key```."""
    _glue(key, format_value(value) if fmt == "auto" else format_number(float(value), fmt))


def glue_text(key: str, text: str) -> None:
    _glue(key, str(text))


def minus_signs(text: str) -> str:
    """A number's sign as the tables print it (−0.88, not -0.88); hyphens in words (GPT-2) stay."""
    return re.sub(r"(?<![\w])-(?=\d)", "−", text)
