"""What chapter B4 shows of the recall screen: its table and figure, its claims, and the sentences that answer it
(in the chapter and on the landing page)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from ... import claims
from ...claims.unsaid import MOVES_BY_RATIO
from ...paper import PAPER
from ...plotting import readings_plot
from ...report import glue_figure, glue_text
from ..context import Context
from ..unsaid.show import _spoken, priced
from . import read
from .runs import RECALL_READINGS, UNSAID_RECALL_GRIDS, UnsaidRecall, UnsaidRecallGrid

PAPER_SPEEDUP = float(PAPER["figure5_speedup"]["B"])
# Shorter names for the landing page's sentences, where the chapter's full descriptions do not fit a table cell.
SHORT = {"zero_kept": "training sequences without the query kept", "literal": "the text's rule in training and test"}


def _short(row: pd.Series) -> str:
    return SHORT.get(row["reading"], row["what"])


def _recall_claims(key: str) -> list[str]:
    return ["unsaid_recall.book.speedup"] if key == "book" else [f"unsaid_recall.{key}.moves",
                                                                 f"unsaid_recall.{key}.recovers"]


def _recall_verdicts(row: pd.Series) -> dict[str, str]:
    """The registered verdicts of one recall reading's row, by claim key."""
    out: dict[str, str] = {}
    for c in _recall_claims(row["reading"]):
        part = "moves" if c.endswith(".moves") else "speedup"
        ours, low, high = (row.get(f"{part}_{k}", np.nan) for k in ("ours", "low", "high"))
        out[c] = claims.claim(c).status(ours, (low, high))
    return out


def judge_recall(ctx: Context, results: dict, grid: UnsaidRecallGrid) -> list[claims.ClaimResult]:
    """Every registered claim of the recall screen whose runs, and the book's, are all stored."""
    checked, scale = [], "smoke" if ctx.scale == "smoke" else "paper_cpu"
    table = read.recall_screen(results, grid).set_index("reading")
    for key in grid.readings:
        need = [key] if key == "book" else [key, "book"]
        if not all(read.recall_complete(results, grid, k) for k in need):
            for c in _recall_claims(key):
                claims.record_not_run(c, "not run yet")
            continue
        row = table.loc[key]
        speedup, moves = ([float(row.get(f"{part}_{k}", np.nan)) for k in ("ours", "low", "high")]
                          for part in ("speedup", "moves"))
        if key == "book":
            checked.append(claims.record("unsaid_recall.book.speedup", speedup[0], scale, interval=(speedup[1], speedup[2])))
            continue
        checked.append(claims.record(f"unsaid_recall.{key}.moves", moves[0], scale, interval=(moves[1], moves[2])))
        checked.append(claims.record(f"unsaid_recall.{key}.recovers", speedup[0], scale, interval=(speedup[1], speedup[2])))
    return checked


def _ratio(row: pd.Series, part: str) -> str:
    """A ratio with its interval; undefined where a seed did not cross at both B (or its runs are still to come)."""
    v = [row.get(f"{part}_{k}", np.nan) for k in ("ours", "low", "high")]
    if not np.isfinite(v[0]):
        return "undefined (a seed has not crossed at both B)" if any(
            row[k] for k in row.index if str(k).startswith("stored_B")) else "—"
    return f"{v[0]:.2f}×" + (f" [{v[1]:.2f}, {v[2]:.2f}]" if np.isfinite(v[1]) else "")


def answer_recall(table: pd.DataFrame, grid: UnsaidRecallGrid, results: dict,
                  prices: dict[str, str] | None = None) -> str:
    """The recall screen's answer, from the registered verdicts of the readings whose runs (and the book's) are
    stored; ``prices``: what each reading not run yet would cost (`priced`)."""
    if not len(table) or not read.recall_complete(results, grid, "book"):
        return "The book's reading of recall is not run yet" + (prices or {}).get("book", "") + ": nothing is judged."
    rows = table.set_index("reading", drop=False)
    book = rows.loc["book"]
    lo, hi = grid.B
    text = (f"On fresh seeds, the book's reading speeds recall up {_ratio(book, 'speedup')} from B = {lo} to {hi}, "
            f"against the paper's ≈{PAPER_SPEEDUP:g}× ({_recall_verdicts(book)['unsaid_recall.book.speedup']}).")
    done = [k for k in grid.readings if k != "book" and k in rows.index and read.recall_complete(results, grid, k)]
    for k in done:
        r, v = rows.loc[k], _recall_verdicts(rows.loc[k])
        # An interval end within 0.02 (in log) of the 1.5x band says so: one verdict there turns on the third decimal.
        edge = any(abs(np.log(r[f"moves_{e}"]) - np.log(b)) < 0.02 for e in ("low", "high")
                   for b in (1 / MOVES_BY_RATIO, MOVES_BY_RATIO))
        text += (f" With {r['what']}: {_ratio(r, 'speedup')} ({v[f'unsaid_recall.{k}.recovers']} against ≈"
                 f"{PAPER_SPEEDUP:g}×), {_ratio(r, 'moves')} the book's ({v[f'unsaid_recall.{k}.moves']} on moving it "
                 f"by more than {MOVES_BY_RATIO:g}×" + (", on the edge: its interval ends within 0.02 of that band, in log"
                                                        if edge else "") + ").")
    waiting = [what + (prices or {}).get(k, "") for k, what, _ in RECALL_READINGS
               if k in grid.readings and k != "book" and k not in done]
    return text + (f" Not run yet: {'; '.join(waiting)}." if waiting else "")


def recall_screen(ctx: Context) -> SimpleNamespace:
    """The recall screen: its table, its answer (glued), and the results its claims read."""
    fig_cfg = UnsaidRecall(scale="smoke" if ctx.scale == "smoke" else "paper_cpu")
    results, have, need = (ctx.run(fig_cfg), 0, 0) if ctx.scale == "smoke" else fig_cfg.cached()
    glue_text("unsaid_recall_runs", f"{have} of {need}")
    grid = fig_cfg.grid
    table = read.recall_screen(results, grid)
    glue_text("unsaid_recall_answer",
              answer_recall(table, grid, results, None if ctx.scale == "smoke" else priced(fig_cfg)))
    # A speed-up is drawn once the reading's runs are all stored and every seed crossed at both B (else undefined).
    glue_figure("unsaid_recall_fig", readings_plot(
        table, "speedup", [read.recall_complete(results, grid, k) for k in table["reading"]], PAPER_SPEEDUP,
        f"the paper's ≈{PAPER_SPEEDUP:g}× (read off its figure)",
        f"in-context speed-up: steps to {grid.threshold:.0%} test accuracy at B = {grid.B[0]} over B = {grid.B[1]}", log=True))
    lo, hi = grid.B
    shown = pd.DataFrame([{"reading": r["what"],
                           f"steps to {grid.threshold:.0%} at B = {lo}": f"{r[f'steps_B{lo}']:,.0f}" if np.isfinite(r[f"steps_B{lo}"]) else "—",
                           f"steps at B = {hi}": f"{r[f'steps_B{hi}']:,.0f}" if np.isfinite(r[f"steps_B{hi}"]) else "—",
                           "seeds crossed": f"{r[f'crossed_B{lo}']}/{r[f'stored_B{lo}']}, {r[f'crossed_B{hi}']}/{r[f'stored_B{hi}']}"
                           if r[f"stored_B{lo}"] or r[f"stored_B{hi}"] else "not run yet",
                           "in-context speed-up [95%]": _ratio(r, "speedup"),
                           "over the book's [95%]": _ratio(r, "moves") if r["reading"] != "book" else "—"}
                          for _, r in table.iterrows()])
    return SimpleNamespace(table=table, results=results, grid=grid, shown=shown)


def _recall_judged() -> tuple[pd.DataFrame, list[str]] | None:
    """The stored recall screen's rows and the readings judged beside the book's; None until it and one other are."""
    fig_cfg = UnsaidRecall(scale="paper_cpu")
    results, grid = fig_cfg.cached()[0], fig_cfg.grid
    rows = read.recall_screen(results, grid).set_index("reading", drop=False)
    done = [k for k in grid.readings if k != "book" and k in rows.index and read.recall_complete(results, grid, k)]
    return (rows, done) if read.recall_complete(results, grid, "book") and done else None


def why_line_recall() -> str:
    """The landing page's Figure 5 reason, from the recall readings whose runs, and the book's, are all stored."""
    judged = _recall_judged()
    if judged is None:
        return "No unstated choice of recall judged yet (Beyond 4)."
    rows, done = judged
    hits = [k for k in done if _recall_verdicts(rows.loc[k])[f"unsaid_recall.{k}.recovers"] == "agrees"]
    if hits:
        return f"Read with {_short(rows.loc[hits[0]])}, the speed-up comes within the paper's: {_ratio(rows.loc[hits[0]], 'speedup')} (Beyond 4)."
    best = max(done, key=lambda k: rows.loc[k, "speedup_ours"] if np.isfinite(rows.loc[k, "speedup_ours"]) else -1)
    return (f"No unstated choice of recall screened brings it to ≈{PAPER_SPEEDUP:g}×; the largest, with "
            f"{_short(rows.loc[best])}: {_ratio(rows.loc[best], 'speedup')} (Beyond 4).")


def whose_recall() -> str:
    """The landing page's sentence on whose Figure 5's difference is, from the recall readings whose runs, and the
    book's, are all stored: empty until one other reading is judged."""
    judged = _recall_judged()
    if judged is None:
        return ""
    rows, done = judged
    verdicts = {k: _recall_verdicts(rows.loc[k]) for k in done}
    hits = [k for k in done if verdicts[k][f"unsaid_recall.{k}.recovers"] == "agrees"]
    movers = [k for k in done if verdicts[k][f"unsaid_recall.{k}.moves"] == "agrees"]
    each = "; ".join(f"{_short(rows.loc[k])}: {rows.loc[k, 'speedup_ours']:.2f}×" for k in done)
    seeds = f"{min(UNSAID_RECALL_GRIDS['paper_cpu'].seeds)}–{max(UNSAID_RECALL_GRIDS['paper_cpu'].seeds)}"
    text = (f"For recall, on the screen's own seeds ({seeds}), in-context repetition speeds learning up "
            f"{_ratio(rows.loc['book'], 'speedup')} against the paper's ≈{PAPER_SPEEDUP:g}×, and ")
    if hits:
        return text + f"read another way ({each}), {' and '.join(_short(rows.loc[k]) for k in hits)} comes within it."
    if movers:
        return text + (f"of {_spoken(len(done))} other readings of how a query with no occurrence is handled ({each}), "
                       f"{_spoken(len(movers))} move{'s' if len(movers) == 1 else ''} it by more than "
                       f"{MOVES_BY_RATIO:g}×, none to the paper's.")
    who = ("the one other reading of a query with no occurrence is not" if len(done) == 1 else
           f"{'neither' if len(done) == 2 else 'none'} of {_spoken(len(done))} other readings of a query with no occurrence is")
    return text + f"{who} shown to move it by more than {MOVES_BY_RATIO:g}× ({each})."
