"""What chapter B4 shows: the screen's table and figure, its claims, and the sentence that answers it."""

from __future__ import annotations

import textwrap
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims
from ...claims.unsaid import MOVES_BY_RATIO
from ...paper import PAPER
from ...report import glue_figure, glue_text
from ..context import Context
from . import read
from .runs import READINGS, RECALL_READINGS, Unsaid, UnsaidGrid, UnsaidRecall, UnsaidRecallGrid

PAPER_T = float(PAPER["figure3"]["T"])
PAPER_SPEEDUP = float(PAPER["figure5_speedup"]["B"])


def judge(ctx: Context, results: dict, grid: UnsaidGrid) -> list[claims.ClaimResult]:
    """Every registered claim of the screen whose runs are all stored; the others say how many are."""
    checked = []
    scale = "smoke" if ctx.scale == "smoke" else "paper_cpu"
    for key, _, _ in READINGS:
        need = [key] if key == "book" else [key, read.baseline_of(key)]
        keys = [f"unsaid.{key}.T_exponent"] if key == "book" else [f"unsaid.{key}.moves", f"unsaid.{key}.recovers"]
        if key not in grid.readings:
            continue
        if not all(read.complete(results, grid, k) for k in need):
            for c in keys:
                claims.record_not_run(c, "not run yet")
            continue
        slope = read.exponent(results, grid, [key], [1])
        interval = (slope["low"], slope["high"])
        if key == "book":
            checked.append(claims.record(f"unsaid.{key}.T_exponent", slope["ours"], scale, interval=interval))
            continue
        moves = read.exponent(results, grid, need, [1, -1])
        checked.append(claims.record(f"unsaid.{key}.moves", moves["ours"], scale, interval=(moves["low"], moves["high"])))
        checked.append(claims.record(f"unsaid.{key}.recovers", slope["ours"], scale, interval=interval))
    return checked


def _judged_readings(table: pd.DataFrame, results: dict, grid) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series | None]:
    """The readings other than the book's whose runs, and their baseline's, are all stored (what the registered
    claims judge), each with its registered "recovers" verdict; those whose verdict is "agrees"; and the one closest
    to the paper's value (None when none is complete). A reading with runs still to come is never counted: two
    seeds of four once read as "recovers"."""
    complete = [k for k in table["reading"] if k != "book" and k in grid.readings
                and all(read.complete(results, grid, x) for x in (k, read.baseline_of(k)))] if len(table) else []
    done = table[table["reading"].isin(complete) & table["exponent_ours"].notna()].copy() if len(table) else table
    if not len(done):
        return done, done, None
    done["verdict"] = [claims.claim(f"unsaid.{r['reading']}.recovers").status(
        r["exponent_ours"], (r["exponent_low"], r["exponent_high"])) for _, r in done.iterrows()]
    within = done[done["verdict"] == "agrees"]
    return done, within, done.iloc[int(np.argmin(np.abs(done["exponent_ours"].to_numpy() - PAPER_T)))]


def answer(table: pd.DataFrame, grid, results: dict, prices: dict[str, str] | None = None) -> str:
    """The chapter's answer, generated from the registered verdicts of the readings whose runs are all stored;
    ``prices``: what each reading not run yet would cost (`priced`)."""
    if not len(table) or "book" not in set(table["reading"]) or not read.complete(results, grid, "book"):
        return "The book's own reading is not run yet: nothing is judged."
    book = table.set_index("reading").loc["book"]
    verdict = claims.claim("unsaid.book.T_exponent").status(book["exponent_ours"], (book["exponent_low"], book["exponent_high"]))
    done, inside, closest = _judged_readings(table, results, grid)
    waiting = [what + (prices or {}).get(k, "") for k, what, _ in READINGS
               if k in grid.readings and k != "book" and k not in set(done["reading"])]
    head = (f"The book's reading gives a T exponent of {book['exponent_ours']:.2f} [{book['exponent_low']:.2f}, "
            f"{book['exponent_high']:.2f}] from T = {grid.T[0]} to {grid.T[1]} at d = {grid.d}, against the paper's "
            f"{PAPER_T:.2f} ({verdict}).")
    rest = f" Not run yet: {'; '.join(waiting)}." if waiting else ""  # what is missing, never a count of runs
    if closest is None:
        return head + " No other reading has all its runs stored yet." + rest
    if len(inside):
        names = ", ".join(inside["what"])
        judged = "the one other reading judged" if len(done) == 1 else f"the {len(done)} other readings judged"
        first = inside.iloc[0]
        moved = claims.claim(f"unsaid.{first['reading']}.moves").status(
            first["moves_ours"], (first["moves_low"], first["moves_high"]))
        how = (f": {first['exponent_ours']:.2f} [{first['exponent_low']:.2f}, {first['exponent_high']:.2f}]"
               + ("" if moved == "agrees" else f", though its change from its baseline, {first['moves_ours']:+.2f} "
                  f"[{first['moves_low']:+.2f}, {first['moves_high']:+.2f}], is {moved}"))
        return (head + f" Of {judged}, {names} recover{'s' if len(inside) == 1 else ''} it{how}."
                + _moves_most(done, table, grid) + rest)
    near = (f"{closest['what']}, at {closest['exponent_ours']:.2f} [{closest['exponent_low']:.2f}, "
            f"{closest['exponent_high']:.2f}] ({closest['verdict']})")
    if len(done) == 1:
        return head + f" The one other reading judged does not recover it: {near}." + _moves_most(done, table, grid) + rest
    return head + f" None of the {len(done)} other readings judged recovers it; the closest is {near}." + \
        _moves_most(done, table, grid) + rest


def _moves_most(done: pd.DataFrame, table: pd.DataFrame, grid) -> str:
    """Which judged reading moves the exponent most from its baseline, with its registered 'moves' verdict."""
    moved = done[done["moves_ours"].notna()] if "moves_ours" in done else done.iloc[:0]
    if not len(moved):
        return ""
    top = moved.iloc[int(np.argmax(np.abs(moved["moves_ours"].to_numpy())))]
    verdict = claims.claim(f"unsaid.{top['reading']}.moves").status(top["moves_ours"], (top["moves_low"], top["moves_high"]))
    says = {"agrees": "by more than 0.2: it moves the law",
            "differs": "within ±0.2: it does not move the law"}.get(verdict, "inconclusive")
    who = "That reading" if len(moved) == 1 else f"The reading that moves it most, {top['what']},"
    text = (f" {who} moves the exponent by {top['moves_ours']:+.2f} [{top['moves_low']:+.2f}, {top['moves_high']:+.2f}] "
            f"({says})")
    col, base = f"plateau_T{grid.T[1]}", table[table["reading"] == read.baseline_of(top["reading"])]
    if len(base) and col in table and np.isfinite(top[col]) and np.isfinite(base.iloc[0][col]):
        text += (f"; its plateau at T = {grid.T[1]} is {top[col]:,.0f} steps, against {base.iloc[0][col]:,.0f} "
                 f"for {base.iloc[0]['what']}")
    return text + "."


def screen(ctx: Context) -> SimpleNamespace:
    fig_cfg = Unsaid(scale="smoke" if ctx.scale == "smoke" else "paper_cpu")  # the screen runs on Table 1's model
    results, have, need = (ctx.run(fig_cfg), 0, 0) if ctx.scale == "smoke" else fig_cfg.cached()
    glue_text("unsaid_runs", f"{have} of {need}")
    grid = fig_cfg.grid
    table = read.screen(results, grid)
    glue_text("unsaid_answer", answer(table, grid, results, None if ctx.scale == "smoke" else priced(fig_cfg)))
    fig, ax = plt.subplots(figsize=(8, 0.55 * max(len(table), 2) + 1.4))
    if len(table):
        y = np.arange(len(table))[::-1]
        # A reading is drawn once all its runs are stored: two seeds of four are not its estimate.
        full = np.array([read.complete(results, grid, k) for k in table["reading"]])
        ok = table["exponent_ours"].notna().to_numpy() & full
        err = np.vstack([table["exponent_ours"] - table["exponent_low"], table["exponent_high"] - table["exponent_ours"]])
        ax.errorbar(table["exponent_ours"][ok], y[ok], xerr=err[:, ok], fmt="o", color="C0", capsize=3,
                    label="ours, 95% interval")
        ax.set_yticks(y, [textwrap.fill(w, 34) + ("" if f else " (not run yet)") for w, f in zip(table["what"], full)],
                      fontsize=9)
    ax.axvline(PAPER_T, color="k", ls="--", label=f"the paper's {PAPER_T:.2f}")
    ax.set_xlabel(f"T exponent, T = {grid.T[0]} → {grid.T[1]} (d = {grid.d})")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)  # above: never on a point
    fig.tight_layout()
    glue_figure("unsaid_fig", fig)
    return SimpleNamespace(table=table, results=results, grid=grid, shown=reader_table(table, grid))


def priced(fig_cfg: Unsaid | UnsaidRecall) -> dict[str, str]:
    """What each reading's runs not stored yet would cost, priced from the stored runs alone (`Figure.price`):
    the price of what is left out, never a count of runs."""
    out = {}
    for key, runs in fig_cfg.sweeps().items():
        est = fig_cfg.price(runs)
        if est is not None:
            out[key] = f" ({est.price()})"
    return out


def _interval(row: pd.Series, prefix: str) -> str:
    if prefix + "_ours" not in row or not np.isfinite(row[prefix + "_ours"]):
        return "—"
    return f"{row[prefix + '_ours']:+.2f} [{row[prefix + '_low']:+.2f}, {row[prefix + '_high']:+.2f}]"


def reader_table(table: pd.DataFrame, grid) -> pd.DataFrame:
    """The screen as a reader reads it: plateaus in steps, exponents with their intervals, seeds crossed."""
    lo, hi = grid.T
    rows = []
    for _, r in table.iterrows():
        rows.append({"reading": r["what"],
                     f"plateau at T = {lo} (steps)": f"{r[f'plateau_T{lo}']:,.0f}" if np.isfinite(r[f"plateau_T{lo}"]) else "—",
                     f"plateau at T = {hi} (steps)": f"{r[f'plateau_T{hi}']:,.0f}" if np.isfinite(r[f"plateau_T{hi}"]) else "—",
                     "seeds crossed": f"{r[f'crossed_T{lo}']}/{r[f'stored_T{lo}']}, {r[f'crossed_T{hi}']}/{r[f'stored_T{hi}']}",
                     "T exponent [95%]": _interval(r, "exponent").replace("+", ""),
                     "change from its baseline [95%]": _interval(r, "moves")})
    return pd.DataFrame(rows)


def why_line() -> str:
    """One sentence for the landing page's Figure 3 reason, from the registered verdicts of the readings whose runs
    are all stored."""
    fig_cfg = Unsaid(scale="paper_cpu")
    results = fig_cfg.cached()[0]
    done, within, closest = _judged_readings(read.screen(results, fig_cfg.grid), results, fig_cfg.grid)
    if closest is None:
        return "No unstated choice screened yet (Beyond 4)."
    if len(within):
        first = within.iloc[0]
        moved = claims.claim(f"unsaid.{first['reading']}.moves").status(
            first["moves_ours"], (first["moves_low"], first["moves_high"]))
        caveat = "" if moved == "agrees" else ", though not shown to differ from the book's reading"
        return (f"Read with {', '.join(within['what'])}, the T exponent comes within the paper's: "
                f"{first['exponent_ours']:.2f} [{first['exponent_low']:.2f}, {first['exponent_high']:.2f}]{caveat} "
                f"(Beyond 4).")
    if len(done) == 1:
        return (f"The one unstated choice screened, {closest['what']}, does not bring it back "
                f"({closest['exponent_ours']:.2f}; Beyond 4).")
    return (f"None of {len(done)} unstated choices screened brings it back; closest: {closest['what']}, "
            f"{closest['exponent_ours']:.2f} (Beyond 4).")


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
        text += (f" With {r['what']}: {_ratio(r, 'speedup')} ({v[f'unsaid_recall.{k}.recovers']} against ≈"
                 f"{PAPER_SPEEDUP:g}×), {_ratio(r, 'moves')} the book's ({v[f'unsaid_recall.{k}.moves']} on moving it "
                 f"by more than {MOVES_BY_RATIO:g}×).")
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


def why_line_recall() -> str:
    """The landing page's Figure 5 reason, from the recall readings whose runs, and the book's, are all stored."""
    fig_cfg = UnsaidRecall(scale="paper_cpu")
    results, grid = fig_cfg.cached()[0], fig_cfg.grid
    if not read.recall_complete(results, grid, "book"):
        return "No unstated choice of recall judged yet (Beyond 4)."
    rows = read.recall_screen(results, grid).set_index("reading", drop=False)
    done = [k for k in grid.readings if k != "book" and k in rows.index and read.recall_complete(results, grid, k)]
    if not done:
        return "No unstated choice of recall judged yet (Beyond 4)."
    hits = [k for k in done if _recall_verdicts(rows.loc[k])[f"unsaid_recall.{k}.recovers"] == "agrees"]
    if hits:
        return f"Read with {rows.loc[hits[0], 'what']}, the speed-up comes within the paper's: {_ratio(rows.loc[hits[0]], 'speedup')} (Beyond 4)."
    best = max(done, key=lambda k: rows.loc[k, "speedup_ours"] if np.isfinite(rows.loc[k, "speedup_ours"]) else -1)
    return (f"No unstated choice of recall screened brings it to ≈{PAPER_SPEEDUP:g}×; the largest, with "
            f"{rows.loc[best, 'what']}: {_ratio(rows.loc[best], 'speedup')} (Beyond 4).")
