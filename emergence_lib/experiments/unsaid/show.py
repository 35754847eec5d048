"""What chapter B4 shows: the screen's table and figure, its claims, and the sentence that answers it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from ... import claims
from ...metrics import NO_PLATEAU_SHARE
from ...paper import PAPER
from ...plotting import readings_plot
from ...report import glue_figure, glue_text, minus_signs
from ..context import Context
from . import read
from ..base import ScaledFigure
from .runs import READINGS, Unsaid, UnsaidGrid

PAPER_T = float(PAPER["figure3"]["T"])
# Shorter names for the landing page's sentences, where the chapter's full descriptions do not fit a table cell.
SHORT = {"positions_scaled": "Vaswani's × √256 token embedding", "relevance_loud": "a 16× louder relevance feature",
         "positions_none": "no positions", "positions_learned": "learned positions", "input_unit": "unit-scale tokens",
         "zero_kept": "training sequences without the query kept", "literal": "the text's rule in training and test"}


def _short(row: pd.Series) -> str:
    return SHORT.get(row["reading"], row["what"])


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
    claims judge), each with its registered "recovers" and "moves" verdicts and whether it removes the plateau; those
    that recover the paper's value; and the one closest to it (None when none is complete). A reading with runs still
    to come is never counted: two seeds of four once read as "recovers".

    "Recovers" needs two registered verdicts to agree (issue 60 item 2, the d = 16 screen's rule, `claims.bend`, applied
    here after this screen's data): its exponent against the paper's, and its change from its baseline by more than 0.2
    toward the paper's value; and a reading that removes the plateau (`metrics.NO_PLATEAU_SHARE`) recovers nothing:
    its exponent describes the descent, not a plateau law."""
    complete = [k for k in table["reading"] if k != "book" and k in grid.readings
                and all(read.complete(results, grid, x) for x in (k, read.baseline_of(k)))] if len(table) else []
    done = table[table["reading"].isin(complete) & table["exponent_ours"].notna()].copy() if len(table) else table
    if not len(done):
        return done, done, None
    base = table.set_index("reading")["exponent_ours"]
    done["verdict"] = [claims.claim(f"unsaid.{r['reading']}.recovers").status(
        r["exponent_ours"], (r["exponent_low"], r["exponent_high"])) for _, r in done.iterrows()]
    done["moved"] = [claims.claim(f"unsaid.{r['reading']}.moves").status(
        r["moves_ours"], (r["moves_low"], r["moves_high"])) for _, r in done.iterrows()]
    done["toward"] = [np.sign(r["moves_ours"]) == np.sign(PAPER_T - base[read.baseline_of(r["reading"])])
                      for _, r in done.iterrows()]
    col = f"descent_T{grid.T[-1]}"
    done["removes_plateau"] = (done[col] > NO_PLATEAU_SHARE) if col in done else False
    within = done[(done["verdict"] == "agrees") & (done["moved"] == "agrees") & done["toward"] & ~done["removes_plateau"]]
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
    judged = "the one other reading judged" if len(done) == 1 else f"the {len(done)} other readings judged"
    if len(inside):
        names = ", ".join(inside["what"])
        first = inside.iloc[0]
        how = (f": {first['exponent_ours']:.2f} [{first['exponent_low']:.2f}, {first['exponent_high']:.2f}], its change "
               f"from its baseline {first['moves_ours']:+.2f} [{first['moves_low']:+.2f}, {first['moves_high']:+.2f}]")
        return (head + f" Of {judged}, {names} recover{'s' if len(inside) == 1 else ''} it{how}."
                + _moves_most(done, table, grid) + rest)
    return head + f" {_no_recovery(done, judged)}" + _moves_most(done, table, grid) + rest


def _no_recovery(done: pd.DataFrame, judged: str) -> str:
    """Why none of the judged readings recovers the paper's exponent: for those whose own verdict agrees, the change
    from their baseline that does not (recovering needs both); for the rest, their own verdict alone."""
    half = done[done["verdict"] == "agrees"]
    none = ("The one other reading judged does not recover it" if len(done) == 1
            else f"None of {judged} is shown to recover it")
    if not len(half):
        r = done.iloc[0] if len(done) == 1 else None
        return none + (f": {r['what']}, at {r['exponent_ours']:.2f} [{r['exponent_low']:.2f}, "
                       f"{r['exponent_high']:.2f}] ({r['verdict']})." if r is not None else ".")
    each = "; ".join(f"{r['what']}: {r['exponent_ours']:.2f} [{r['exponent_low']:.2f}, {r['exponent_high']:.2f}] agrees, "
                     f"but its change from its baseline, {r['moves_ours']:+.2f} [{r['moves_low']:+.2f}, "
                     f"{r['moves_high']:+.2f}], is {r['moved']}" for _, r in half.iterrows())
    return none + f" (recovering needs its own verdict and its change toward {PAPER_T:.2f} to agree): {each}."


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
            for _, r in movers.iterrows()) + against + "." + plateau_left(movers, grid))
    top = moved.iloc[int(np.argmax(np.abs(moved["moves_ours"].to_numpy())))]
    verdict = claims.claim(f"unsaid.{top['reading']}.moves").status(top["moves_ours"], (top["moves_low"], top["moves_high"]))
    says = {"agrees": "by more than 0.2: it moves the law",
            "differs": "within ±0.2: it does not move the law"}.get(verdict, "inconclusive")
    who = "That reading" if len(moved) == 1 else f"The reading that moves it most, {top['what']},"
    return (f" {who} moves the exponent by {top['moves_ours']:+.2f} [{top['moves_low']:+.2f}, {top['moves_high']:+.2f}] "
            f"({says}){plateau(top)}.")


def plateau_left(movers: pd.DataFrame, grid) -> str:
    """How much plateau the readings that move the law leave: the median share of it spent in the descent, and which
    remove it by the measure registered with the d = 16 screen (`metrics.NO_PLATEAU_SHARE`; applied here after this
    screen's data). A reading within 0.02 of that share is said to be on its edge."""
    col = f"descent_T{grid.T[-1]}"
    if col not in movers or not movers[col].notna().any():
        return ""
    shares = ", ".join(f"{r[col]:.0%}" for _, r in movers.iterrows())
    gone = [r["what"] for _, r in movers.iterrows() if r[col] > NO_PLATEAU_SHARE]
    edge = [r["what"] for _, r in movers.iterrows() if abs(r[col] - NO_PLATEAU_SHARE) < 0.02]
    text = (f" The descent is {shares} of {'that' if len(movers) == 1 else 'those'} plateau{'s' if len(movers) > 1 else ''}"
            f" (over {NO_PLATEAU_SHARE:.0%} marks a reading that removes the plateau: a measure registered with the d = 16 "
            "screen, applied here after this screen's data)")
    if gone:
        text += f"; {' and '.join(gone)} remove{'s' if len(gone) == 1 else ''} it, so {'its' if len(gone) == 1 else 'their'} exponent describes the descent, not a plateau law"
    if edge:
        text += f"; {' and '.join(edge)} {'is' if len(edge) == 1 else 'are'} on the edge of that measure"
    return text + "."


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
    fig = readings_plot(table, "exponent", [read.complete(results, grid, k) for k in table["reading"]],
                         PAPER_T, f"the paper's {PAPER_T:.2f}", f"T exponent, T = {grid.T[0]} → {grid.T[1]} (d = {grid.d})")
    glue_figure("unsaid_fig", fig)
    return SimpleNamespace(table=table, results=results, grid=grid, shown=reader_table(table, grid))


def priced(fig_cfg: ScaledFigure) -> dict[str, str]:
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


def _left(movers: pd.DataFrame, grid) -> str:
    """Which movers leave no plateau, briefly, for the landing page (`plateau_left` says it in full, with the shares)."""
    col = f"descent_T{grid.T[-1]}"
    gone = [_short(r) for _, r in movers.iterrows() if col in movers and r[col] > NO_PLATEAU_SHARE]
    return (f"; {' and '.join(gone)} {'leaves' if len(gone) == 1 else 'leave'} no plateau by the measure registered "
            "with the d = 16 screen, applied after this screen's data" if gone else "")


def why_line() -> str:
    """One sentence for the landing page's Figure 3 reason, from the registered verdicts of the readings whose runs
    are all stored: the readings that move the T exponent (and how much plateau they leave), and whether any
    recovers the paper's (both its verdicts agreeing)."""
    _, grid, done, within, closest = _stored_screen()
    if closest is None:
        return "No unstated choice screened yet (Beyond 4)."
    movers = _movers(done)
    moved = ("" if not len(movers) else
             f"At d = {grid.d}, {_spoken(len(movers))} unstated choice{'s' if len(movers) > 1 else ''} move{'' if len(movers) > 1 else 's'} "
             "it by more than 0.2 (to " + " and ".join(f"{r['exponent_ours']:.2f}" for _, r in movers.iterrows())
             + _left(movers, grid) + "). ")
    if len(within):
        first = within.iloc[0]
        return (moved + f"With {', '.join(_short(r) for _, r in within.iterrows())} it is "
                f"{first['exponent_ours']:.2f} [{first['exponent_low']:.2f}, {first['exponent_high']:.2f}], moved toward "
                f"the paper's by {first['moves_ours']:+.2f} [{first['moves_low']:+.2f}, {first['moves_high']:+.2f}] "
                f"(Beyond 4).")
    n = "The one unstated choice screened does not" if len(done) == 1 else f"None of {len(done)} unstated choices screened is shown to"
    return moved + f"{n} recover {PAPER_T:.2f} (its own verdict and its change from the book's must both agree; Beyond 4)."


def whose() -> str:
    """The landing page's 'whose are the differences' sentence for Figure 3's T exponent, from the screen's
    registered verdicts: empty until the book's reading and at least one other are judged. It says the exponent
    depends on unstated choices only where a reading moves it and keeps a plateau."""
    table, grid, done, within, _ = _stored_screen()
    if not len(done) or "book" not in set(table["reading"]):
        return ""
    book = table.set_index("reading").loc["book"]
    movers = _movers(done)
    verdict = claims.claim("unsaid.book.T_exponent").status(book["exponent_ours"], (book["exponent_low"], book["exponent_high"]))
    head = (f"on the paper's model at d = {grid.d} (T = {grid.T[0]} → {grid.T[1]}), our reading gives a T exponent "
            f"of {book['exponent_ours']:.2f} [{book['exponent_low']:.2f}, {book['exponent_high']:.2f}] ({verdict})")
    recovered = (f"; with {' and '.join(_short(r) for _, r in within.iterrows())} it recovers the paper's {PAPER_T:.2f}"
                 if len(within) else f"; none is shown to recover {PAPER_T:.2f}")
    if not len(movers):
        return head + (f"; none of {_spoken(len(done))} other readings of what the paper leaves unsaid is shown to "
                       "move it by more than 0.2" + recovered + ".")
    keeps = movers[~movers["removes_plateau"]] if "removes_plateau" in movers else movers
    return (head + f"; {_spoken(len(movers))} of {_spoken(len(done))} other readings of what the paper leaves unsaid "
            "move it by more than 0.2 (" + "; ".join(f"{_short(r)}: {r['exponent_ours']:.2f}" for _, r in movers.iterrows())
            + ")" + _left(movers, grid) + recovered
            + (": the T exponent depends on choices its text does not fix." if len(keeps) else
               ": those readings remove the plateau rather than set another law."))
