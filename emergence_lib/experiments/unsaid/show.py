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
from ...report import glue_figure, glue_text, minus_signs
from ..context import Context
from . import read
from .runs import READINGS, RECALL_READINGS, Unsaid, UnsaidGrid, UnsaidRecall, UnsaidRecallGrid

PAPER_T = float(PAPER["figure3"]["T"])
# Shorter names for the landing page's sentences, where the chapter's full descriptions do not fit a table cell.
SHORT = {"positions_scaled": "Vaswani's × √256 token embedding", "relevance_loud": "a 16× louder relevance feature",
         "positions_none": "no positions", "positions_learned": "learned positions", "input_unit": "unit-scale tokens",
         "zero_kept": "training sequences without the query kept", "literal": "the text's rule in training and test"}


def _short(row: pd.Series) -> str:
    return SHORT.get(row["reading"], row["what"])
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


def _spoken(n: int) -> str:  # a small count in words, as prose says it
    return "zero one two three four five six seven eight nine ten eleven twelve".split()[n] if n <= 12 else str(n)


def _movers(done: pd.DataFrame) -> pd.DataFrame:
    """The judged readings whose registered 'moves' claim agrees: each moves the exponent by more than 0.2."""
    if "moves_ours" not in done or not len(done):
        return done.iloc[:0]
    moved = done[done["moves_ours"].notna()]
    keep = [claims.claim(f"unsaid.{r['reading']}.moves").status(r["moves_ours"], (r["moves_low"], r["moves_high"]))
            == "agrees" for _, r in moved.iterrows()]
    return moved[keep]


def _moves_most(done: pd.DataFrame, table: pd.DataFrame, grid) -> str:
    """Which judged readings move the exponent (registered 'moves' verdict), each with its plateau at the longest T;
    where none does, the one that moves it most, with its verdict."""
    moved = done[done["moves_ours"].notna()] if "moves_ours" in done else done.iloc[:0]
    if not len(moved):
        return ""
    col = f"plateau_T{grid.T[1]}"

    def plateau(row: pd.Series) -> str:
        base = table[table["reading"] == read.baseline_of(row["reading"])]
        if not (len(base) and col in table and np.isfinite(row[col]) and np.isfinite(base.iloc[0][col])):
            return ""
        return (f"; its plateau at T = {grid.T[1]} is {row[col]:,.0f} steps, against {base.iloc[0][col]:,.0f} "
                f"for {base.iloc[0]['what']}")

    movers = _movers(done)
    if len(movers) > 1:  # several readings move it: name each, never just the first of a tie
        bases = {read.baseline_of(k) for k in movers["reading"]}
        base = table[table["reading"] == bases.pop()] if len(bases) == 1 else table.iloc[:0]
        against = (f", against {base.iloc[0][col]:,.0f} for {base.iloc[0]['what']}"
                   if len(base) and col in table and np.isfinite(base.iloc[0][col]) else "")
        return (f" {_spoken(len(movers)).capitalize()} readings move the exponent by more than 0.2: " + "; ".join(
            f"{r['what']}, by {r['moves_ours']:+.2f} [{r['moves_low']:+.2f}, {r['moves_high']:+.2f}] to "
            f"{r['exponent_ours']:.2f}" + (f" (its plateau at T = {grid.T[1]}: {r[col]:,.0f} steps)"
                                           if col in r and np.isfinite(r[col]) else "")
            for _, r in movers.iterrows()) + against + ".")
    top = moved.iloc[int(np.argmax(np.abs(moved["moves_ours"].to_numpy())))]
    verdict = claims.claim(f"unsaid.{top['reading']}.moves").status(top["moves_ours"], (top["moves_low"], top["moves_high"]))
    says = {"agrees": "by more than 0.2: it moves the law",
            "differs": "within ±0.2: it does not move the law"}.get(verdict, "inconclusive")
    who = "That reading" if len(moved) == 1 else f"The reading that moves it most, {top['what']},"
    return (f" {who} moves the exponent by {top['moves_ours']:+.2f} [{top['moves_low']:+.2f}, {top['moves_high']:+.2f}] "
            f"({says}){plateau(top)}.")


def marker(table: pd.DataFrame, results: dict, grid) -> str:
    """What the louder relevance feature says of the hypothesis that the marker's size against the positions, not the
    token's, moves the law under the Vaswani scaling: from both readings' registered 'moves' verdicts."""
    keys = ("positions_scaled", "relevance_loud")
    if not len(table) or not all(k in set(table["reading"]) and read.complete(results, grid, k)
                                 and read.complete(results, grid, read.baseline_of(k)) for k in keys):
        return "Not run yet."
    rows = table.set_index("reading")
    said = {k: (f"{rows.loc[k, 'moves_ours']:+.2f} [{rows.loc[k, 'moves_low']:+.2f}, {rows.loc[k, 'moves_high']:+.2f}] "
                f"to {rows.loc[k, 'exponent_ours']:.2f}") for k in keys}
    verdict = {k: claims.claim(f"unsaid.{k}.moves").status(
        rows.loc[k, "moves_ours"], (rows.loc[k, "moves_low"], rows.loc[k, "moves_high"])) for k in keys}
    head = minus_signs(f"The relevance feature alone, 16× louder, moves the T exponent by {said['relevance_loud']}; "
                       f"the Vaswani scaling, by {said['positions_scaled']}.")
    if verdict["relevance_loud"] == "agrees" and verdict["positions_scaled"] == "agrees":
        return head + (" A louder marker, with the tokens as in the book, is enough to move the law: the token's own size"
                       " is not needed. Whether through the marker's size at initialisation or its faster learning "
                       "under Adam is not separated.")
    if verdict["relevance_loud"] == "differs":
        return head + " A louder marker alone does not move the law: the hypothesis fails."
    return head + " Whether a louder marker alone moves the law cannot be told from these seeds."


def screen(ctx: Context) -> SimpleNamespace:
    fig_cfg = Unsaid(scale="smoke" if ctx.scale == "smoke" else "paper_cpu")  # the screen runs on the paper's model
    results, have, need = (ctx.run(fig_cfg), 0, 0) if ctx.scale == "smoke" else fig_cfg.cached()
    glue_text("unsaid_runs", f"{have} of {need}")
    grid = fig_cfg.grid
    table = read.screen(results, grid)
    glue_text("unsaid_answer", minus_signs(answer(table, grid, results, None if ctx.scale == "smoke" else priced(fig_cfg))))
    glue_text("unsaid_marker", marker(table, results, grid))
    # A reading is drawn once all its runs are stored: two seeds of four are not its estimate.
    fig = _readings_plot(table, "exponent", [read.complete(results, grid, k) for k in table["reading"]],
                         PAPER_T, f"the paper's {PAPER_T:.2f}", f"T exponent, T = {grid.T[0]} → {grid.T[1]} (d = {grid.d})")
    glue_figure("unsaid_fig", fig)
    return SimpleNamespace(table=table, results=results, grid=grid, shown=reader_table(table, grid))


def priced(fig_cfg: Unsaid | UnsaidRecall) -> dict[str, str]:
    """What each reading's runs not stored yet would cost, priced from the stored runs alone (`Figure.price`):
    the price of what is left out, never a count of runs."""
    return {key: f" ({est.price()})" for key, runs in fig_cfg.sweeps().items()
            if (est := fig_cfg.price(runs)) is not None}


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


def _stored_screen() -> tuple:  # the stored regression screen: its table, grid and `_judged_readings` of it
    fig_cfg = Unsaid(scale="paper_cpu")
    table = read.screen(results := fig_cfg.cached()[0], fig_cfg.grid)
    return (table, fig_cfg.grid) + _judged_readings(table, results, fig_cfg.grid)


def why_line() -> str:
    """One sentence for the landing page's Figure 3 reason, from the registered verdicts of the readings whose runs
    are all stored: the readings that move the T exponent, and those that bring it within the paper's."""
    _, grid, done, within, closest = _stored_screen()
    if closest is None:
        return "No unstated choice screened yet (Beyond 4)."
    movers = _movers(done)
    moved = ("" if not len(movers) else
             f"{_spoken(len(movers)).capitalize()} unstated choice{'s' if len(movers) > 1 else ''} move{'' if len(movers) > 1 else 's'} "
             "it by more than 0.2 (to " + " and ".join(f"{r['exponent_ours']:.2f}" for _, r in movers.iterrows()) + "). ")
    if len(within):
        first = within.iloc[0]
        verdict = claims.claim(f"unsaid.{first['reading']}.moves").status(
            first["moves_ours"], (first["moves_low"], first["moves_high"]))
        caveat = "" if verdict == "agrees" else ", though not shown to differ from the book's"
        return (moved + f"With {', '.join(_short(r) for _, r in within.iterrows())} it is "
                f"{first['exponent_ours']:.2f} [{first['exponent_low']:.2f}, {first['exponent_high']:.2f}]{caveat} "
                f"(Beyond 4).")
    if len(done) == 1:
        return moved + (f"The one unstated choice screened, {_short(closest)}, does not bring it back "
                        f"({closest['exponent_ours']:.2f}; Beyond 4).")
    return moved + (f"None of {len(done)} unstated choices screened brings it back; closest: {_short(closest)}, "
                    f"{closest['exponent_ours']:.2f} (Beyond 4).")


def whose() -> str:
    """The landing page's 'whose are the differences' sentence for Figure 3's T exponent, from the screen's
    registered verdicts: empty until the book's reading and at least one other are judged."""
    table, grid, done, within, _ = _stored_screen()
    if not len(done) or "book" not in set(table["reading"]):
        return ""
    book = table.set_index("reading").loc["book"]
    movers = _movers(done)
    verdict = claims.claim("unsaid.book.T_exponent").status(book["exponent_ours"], (book["exponent_low"], book["exponent_high"]))
    head = (f"on the paper's model at d = {grid.d} (T = {grid.T[0]} → {grid.T[1]}), our reading gives a T exponent "
            f"of {book['exponent_ours']:.2f} [{book['exponent_low']:.2f}, {book['exponent_high']:.2f}] ({verdict})")
    if not len(movers):
        return head + (f"; none of {_spoken(len(done))} other readings of what the paper leaves unsaid is shown to "
                       "move it by more than 0.2.")
    return (head + f"; {_spoken(len(movers))} of {_spoken(len(done))} other readings of what the paper leaves unsaid "
            "move it by more than 0.2 (" + "; ".join(f"{_short(r)}: {r['exponent_ours']:.2f}" for _, r in movers.iterrows())
            + ")" + (f", and with {' and '.join(_short(r) for _, r in within.iterrows())} it comes within the paper's "
                     f"{PAPER_T:.2f}" if len(within) else "")
            + ": the T exponent depends on choices its text does not fix.")


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


def _readings_plot(table: pd.DataFrame, part: str, full: list[bool], paper: float, paper_label: str, xlabel: str,
                   log: bool = False) -> plt.Figure:
    """One row a reading: its ``part`` (exponent or speed-up) with its 95% interval where all its runs are stored
    (``full``) and the value is defined, else the label says 'not run yet'; the paper's value dashed."""
    fig, ax = plt.subplots(figsize=(8, 0.55 * max(len(table), 2) + 1.4))
    if len(table):
        y = np.arange(len(table))[::-1]
        mid, low, high = (table[f"{part}_{k}"].to_numpy(dtype=float) for k in ("ours", "low", "high"))
        ok = np.array(full, dtype=bool) & np.isfinite(mid) & np.isfinite(low)
        ax.errorbar(mid[ok], y[ok], xerr=np.vstack([mid - low, high - mid])[:, ok], fmt="o", color="C0", capsize=3,
                    label="ours, 95% interval")
        ax.set_yticks(y, [textwrap.fill(w, 38) + ("" if f else " (not run yet)") for w, f in zip(table["what"], full)],
                      fontsize=9)
    ax.axvline(paper, color="k", ls="--", label=paper_label)
    if log:
        ax.axvline(1.0, color="0.7", lw=1)
        ax.set_xscale("log")
        lim = ax.get_xlim()  # ratios read as ratios, and the axis keeps the span the points and the paper's value need
        ax.set_xticks([0.5, 1, 2, 4, 8], ["0.5×", "1×", "2×", "4×", "8×"], minor=False)
        ax.minorticks_off()
        ax.set_xlim(lim[0] / 1.15, lim[1] * 1.15)
    ax.set_xlabel(xlabel)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)  # above: never on a point
    fig.tight_layout()
    return fig


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
    glue_figure("unsaid_recall_fig", _readings_plot(
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
    if all(rows.loc[k, "moves_high"] < 1.0 for k in done):  # each interval over the book's lies below 1
        return "Neither unstated reading of recall screened brings it nearer ≈4×: each lowers it (Beyond 4)." \
            if len(done) == 2 else "No unstated reading of recall screened brings it nearer ≈4×: each lowers it (Beyond 4)."
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
    text = (f"For recall, in-context repetition speeds learning up {_ratio(rows.loc['book'], 'speedup')} against the "
            f"paper's ≈{PAPER_SPEEDUP:g}×, and ")
    if all(rows.loc[k, "moves_high"] < 1.0 for k in done):  # each interval over the book's lies below 1
        return text + (f"{'both' if len(done) == 2 else 'the' if len(done) == 1 else 'all'} other reading"
                       f"{'s' if len(done) > 1 else ''} of a query with no occurrence lower{'' if len(done) > 1 else 's'} "
                       f"it ({each}).")
    if hits:
        return text + f"read another way ({each}), {' and '.join(_short(rows.loc[k]) for k in hits)} comes within it."
    if movers:
        return text + (f"of {_spoken(len(done))} other readings of how a query with no occurrence is handled ({each}), "
                       f"{_spoken(len(movers))} move{'s' if len(movers) == 1 else ''} it by more than "
                       f"{MOVES_BY_RATIO:g}×, none to the paper's.")
    who = ("the one other reading of a query with no occurrence is not" if len(done) == 1 else
           f"{'neither' if len(done) == 2 else 'none'} of {_spoken(len(done))} other readings of a query with no occurrence is")
    return text + f"{who} shown to move it by more than {MOVES_BY_RATIO:g}× ({each})."
