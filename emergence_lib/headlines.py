"""The landing page's answer: one row per claim of the paper, each judged as the paper measured it (its estimator,
its threshold, its model where we ran it), with the readings that are not the verdict shown beside and marked.

`HEADLINES` names, for each of the paper's claims, the registered claim that answers it and the claims shown beside
it (an after-the-data reading, a diagnostic at another threshold). A row's cells paste what the chapters logged in
this build (`claims.CLAIMS_LOG_ENV`); its "why" is generated from those entries and the registry's own notes. The
browser tier checks that the landing page shows exactly these rows.
"""

from __future__ import annotations

import os
from html import escape
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .claims import CLAIMS, REGISTRY, Claim
from .claims.judging import CLAIMS_LOG_ENV
from .claims.rules import IntervalRule
from .report import minus_signs
from .scorecard import CHAPTER_LABELS, evidence_counts, logged_entry

if TYPE_CHECKING:
    import pandas as pd

EDGE = 0.02  # a verdict whose interval end lies this close to the paper's value (log units for ratios) says so


@dataclass(frozen=True)
class Headline:
    figure: str
    claim: str  # the paper's claim, in plain words
    key: str  # the registered claim that judges it as the paper measured it
    beside: tuple[tuple[str, str], ...] = ()  # (claim key, how a reader should take it): shown, never the verdict
    why: str = ""  # the reason, in words; "{key}" pastes that claim's logged value
    name: str = ""  # the claim named briefly, for the three-line verdict
    paper_says: str = ""  # the paper's value, briefly ("≈4×"), beside ours where the verdict is "differs"
    # Readings registered to test a cause of a difference: (claim keys that must all agree for the reading to be the
    # cause, what the reading is). All agree: the cause; any differs: ruled out; else not settled.
    causes: tuple[tuple[tuple[str, ...], str], ...] = ()
    where: str = ""  # where the verdict was measured, where that is not the paper's point


# Readings registered to test a cause of a difference (`Headline.causes`).
RECALL = ((("unsaid_recall.zero_kept.recovers",), "training sequences without the query kept"),
          (("unsaid_recall.literal.recovers",), "the text's Bernoulli rule in training and test"))
LN = ((("recall_t1.figure17.select_layer4_share_none",), "no LayerNorm (the paper's Table 1)"),)
SCREEN16 = tuple(((f"screen16.{k}.T_exponent", f"screen16.{k}.T_moves"), f"{what} (the d = 16 screen)") for k, what in (
    ("relevance_x4", "a relevance feature 4× louder"), ("relevance_x2", "a relevance feature 2× louder"),
    ("positions_quiet", "sinusoidal positions × ¼"), ("positions_none", "no positions"),
    ("positions_learned", "learned positions")))

HEADLINES: tuple[Headline, ...] = (
    Headline("1", "The toy model's plateau grows as √d (d^0.49)", "figure1.d_exponent",
             name="the toy plateau's √d", paper_says="d^0.49",
             why="the reduced flow, integrated exactly: the theory reproduces"),
    Headline("1", "… and linearly in T (T^0.99)", "figure1.T_exponent",
             name="its growth in T", paper_says="T^0.99",
             why="the same flows"),
    Headline("2", "In-context repetition shortens it as (T/B)^0.99", "figure2.in_context_exponent",
             name="in-context repetition in the toy model", paper_says="(T/B)^0.99",
             why="the same flows, with B copies of the relevant token"),
    Headline("2", "Cross-sample repetition: (√d·T/f(p, d))^1.02", "figure2.cross_sample_exponent",
             name="cross-sample repetition in the toy model", paper_says="exponent 1.02",
             why="the 3-D reduced flow of the paper's appendix"),
    Headline("2", "… with constant 2.15", "figure2.cross_sample_constant",
             name="the toy cross-sample constant", paper_says="2.15",
             why="ours is half the paper's, and the paper's own two Figure 2 laws disagree by that factor at p = 0"),
    Headline("3", "A Transformer's plateau grows as d^1.29", "table1.joint.fresh.d_exponent",
             (("table1.joint.first_seeds.d_exponent", "first seeds (estimator chosen after their data)"),
              ("table1.joint.fresh_short.d_exponent", "fresh seeds, T ≤ 128 and B = 1 only")),
             name="Figure 3's d exponent", paper_says="1.29",
             where="at 17 of the paper's points, d ≤ 64 and B ≤ 8 (the paper: d to 128, B to 16)",
             why="one joint fit, as the paper fitted it; {d_bend}"),
    Headline("3", "… as T^0.80", "table1.joint.fresh.T_exponent",
             (("table1.joint.first_seeds.T_exponent", "first seeds (estimator chosen after their data)"),
              ("table1.joint.fresh_short.T_exponent", "fresh seeds, T ≤ 128 and B = 1 only")),
             name="its T exponent", paper_says="0.80", causes=SCREEN16,
             where="at 17 of the paper's points, d ≤ 64 and B ≤ 8 (the paper: d to 128, B to 16)",
             why="{T_local} (the first seeds, a diagnostic: the bend is judged on fresh seeds). {unsaid}"),
    Headline("3", "… and in-context repetition shortens it as B^−0.80", "table1.joint.fresh.B_exponent",
             (("table1.joint.first_seeds.B_exponent", "first seeds (estimator chosen after their data)"),),
             name="its B exponent", paper_says="−0.80",
             where="at 17 of the paper's points, d ≤ 64 and B ≤ 8 (the paper: d to 128, B to 16)",
             why="the same joint fit; the B panel sits at T = 256"),
    Headline("3", "Cross-sample repetition shortens the plateau", "table1.figure3.cross_sample_speedup",
             name="cross-sample repetition on the Transformer", paper_says="shortens it", where="at T = 32 (the paper: T = 256)",
             why="p = 0 against 0.4 at the largest d, each at the better of the paper's two learning rates"),
    Headline("4", "Recall emerges after a time ∝ N_pairs^2.25", "recall_t1.figure4.pairs_exponent_5",
             name="recall's N_pairs exponent", paper_says="2.25", where="at 32–256 tokens and 4–16 pairs (the paper: 8–64 pairs)",
             why="at the paper's 5% threshold, near chance ({chance}): it partly measures guessing; chapter 4 shows the "
                 "50% reading as a diagnostic"),
    Headline("4", "… and ∝ N_tokens^0.79", "recall_t1.figure4.tokens_exponent_5",
             name="recall's N_tokens exponent", paper_says="0.79", where="at 32–256 tokens and 4–16 pairs (the paper: 8–64 pairs)",
             why="the same 5% crossings"),
    Headline("4", "LayerNorm makes recall harder", "recall_t1.figure4.layernorm",
             name="LayerNorm slowing recall", paper_says="harder", where="at 32–256 tokens and 4–8 pairs (the paper: 8–64 pairs)",
             why="pre-LN against no LN, where the paper's text and table disagree on which it used"),
    Headline("5", "In-context repetition speeds recall up about 4×", "recall_t1.figure5.in_context_speedup",
             name="the in-context recall speed-up", paper_says="≈4×", causes=RECALL, where="at 64 tokens and 8 pairs (the paper: 256 and 32)",
             why="read at 50% accuracy; the paper's ≈4× is read off its figure. {unsaid_recall}"),
    Headline("5", "Cross-sample repetition speeds recall up about 2×", "recall_t1.figure5.cross_sample_speedup",
             name="the cross-sample recall speed-up", paper_says="≈2×", where="at 64 tokens and 8 pairs (the paper: 256 and 32)",
             why="read at 50% accuracy; the paper's ≈2× is read off its figure"),
    Headline("5", "Heavy repetition overfits: training data is learned first", "recall_t1.figure5.overfitting",
             name="overfitting under heavy repetition", paper_says="a lag", where="at 64 tokens and 8 pairs (the paper: 256 and 32)",
             why="test accuracy lags the training distribution's, as the paper says"),
    Headline("9", "The reduced flow matches SGD (a relative gap of 0)", "figure9.flow_vs_sgd",
             name="the reduced flow against SGD", paper_says="0",
             why="from the theory's initialisation; from the paper's, the flow runs early (App. A2)"),
    Headline("13", "More heads lengthen the plateau: H^0.16", "table1.ablations.figure13.heads_exponent",
             name="the heads exponent", paper_says="H^0.16",
             why="one fit over heads and layers at the paper's width"),
    Headline("14", "A random position raises the T exponent by 0.29", "table1.ablations.figure14.position_cost",
             name="the cost of a random position", paper_says="0.29",
             why="the 1 × 1 model the paper's fits imply, at the paper's width"),
    Headline("15", "Adam reaches emergence much faster than SGD", "table1.ablations.figure15.adam_speedup",
             name="Adam against SGD", paper_says="much faster",
             why="SGD at the paper's learning rate, where it crosses within its budget"),
    Headline("17", "Recall's selecting pattern forms in layer 4 of 4", "recall_t1.figure17.select_layer4_share_pre",
             name="the share of recall runs selecting in layer 4", paper_says="most (over 0.5)", causes=LN, where="at 64 tokens and 8 and 12 pairs (the paper: 256 and 32)",
             why="the paper's text puts LayerNorm in; its table does not"),
)


# Readings beside a headline that were registered before their runs on seeds never used there: their verdict is
# shown beside them, in words, but it is not the row's, since they cover a part of the paper's grid only.
BESIDE_JUDGED = frozenset({"table1.joint.fresh_short.d_exponent", "table1.joint.fresh_short.T_exponent"})


def _num(v: float) -> str:
    return f"{v:.2f}".replace("-", "−")


def cell(c: Claim, entry: dict | None) -> str:
    """'1.19 [1.02, 1.36]', or the value alone, or 'not run yet'."""
    if entry is None:
        return "not run yet"
    if entry.get("interval"):
        lo, hi = entry["interval"]
        return f"{_num(entry['ours'])} [{_num(lo)}, {_num(hi)}]"
    return format(entry["ours"], c.fmt).replace("-", "−")


def on_the_edge(c: Claim, entry: dict | None) -> bool:
    """Whether the paper's value lies within `EDGE` of an end of our interval (log units for a ratio): the verdict
    would flip with a slightly different interval."""
    if entry is None or not entry.get("interval") or not isinstance(c.tolerance, IntervalRule):
        return False
    lo, hi = entry["interval"]
    return c.tolerance.on_the_edge(lo, hi, c.paper_value, EDGE)


def verdict(c: Claim, entry: dict | None, folder: str | None) -> str:
    if entry is None:
        return "not run yet" if folder else "not judged in this build"
    word = {"reproduced": "reproduced", "agrees": "agrees", "differs": "differs", "inconclusive": "inconclusive"}
    text = f"<b>{word.get(entry['status'], entry['status'])}</b>"
    if on_the_edge(c, entry):
        text += " (on the edge: within 0.02 of the paper's value)"
    if c.amended and entry["status"] == "agrees" and entry.get("registered_status") != "agrees":
        text += " (only under a rule amended after the data)"
    return text


def why_text(h: Headline, facts: dict[str, str]) -> str:
    """The row's reason: its template with the computed ``facts`` pasted in, or the registry's note."""
    c = REGISTRY[h.key]
    text = h.why.format(**{k: facts.get(k, "") for k in ("d_bend", "T_local", "unsaid", "unsaid_recall", "chance")}) if h.why else (c.note or c.measure)
    text = " ".join(text.split()).replace(" :", ":").strip(" :;")
    return text[0].upper() + text[1:] if text else ""


def where_text(h: Headline, prices: dict[str, str] | None = None) -> str:
    """Where a row was measured, where that is not the paper's point, with what the paper's points would cost here
    (``prices``: `paper_point.prices`, which the landing page passes): "Measured at 64 tokens and 8 pairs (the
    paper: 256 and 32; 12 more runs, about 2,200 CPU-hours here)."."""
    if not h.where:
        return ""
    price = (prices or {}).get(h.key, "")
    where = h.where[:-1] + f"; {price})" if price and h.where.endswith(")") else h.where + (f" ({price})" if price else "")
    return f"Measured {where}."


def headline_rows(folder: str | None = None, facts: dict[str, str] | None = None,
                  prices: dict[str, str] | None = None) -> list[dict[str, str]]:
    """One row a headline, as HTML cell contents. ``facts``: the computed phrases the reasons paste (the landing page
    computes them from the stored runs: `experiments.table1_joint.show.facts`); ``prices``: what each row's paper
    points would cost here (`where_text`)."""
    facts = facts or {}
    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    rows = []
    said = ""  # the last row's point, said once for the rows in a run that share it
    for h in HEADLINES:
        c = REGISTRY[h.key]
        entry = logged_entry(c, folder)
        ours = escape(cell(c, entry))
        for key, how in h.beside:
            entry_beside = logged_entry(REGISTRY[key], folder)
            judged = f" ({entry_beside['status']})" if key in BESIDE_JUDGED and entry_beside else ""
            ours += f"<br><i>{escape(how)}:</i> {escape(cell(REGISTRY[key], entry_beside))}{judged}"
        where = f' (<a href="chapters/{c.chapter}.html">{escape(CHAPTER_LABELS[c.chapter])}</a>)' if c.chapter else ""
        t = c.tolerance
        bound = f" (judged: ours above {t.above:g})" if isinstance(t, IntervalRule) and t.above is not None else ""
        point = where_text(h, prices)
        measured = "" if not point else ". Measured as above." if point == said else f". {escape(point)}"
        said = point
        rows.append({"key": h.key, "Fig.": escape(h.figure), "The paper's claim": escape(h.claim + bound), "Ours [95%]": ours,
                     "Verdict, and why": f"{verdict(c, entry, folder)}: {escape(why_text(h, facts))}{where}{measured}"})
    return rows


def headline_table(folder: str | None = None, facts: dict[str, str] | None = None,
                   prices: dict[str, str] | None = None) -> str:
    """The landing page's table of the paper's claims, as HTML (one row per `HEADLINES` entry). Each cell carries its
    column's name (``data-label``), so that a phone, which stacks the cells, still labels each one."""
    rows = headline_rows(folder, facts, prices)
    head = [k for k in rows[0] if k != "key"]
    out = ['<table class="headline-table">', "<thead><tr>" + "".join(f"<th>{k}</th>" for k in head) + "</tr></thead>",
           "<tbody>"]
    for r in rows:
        cells = "".join(f'<td data-label="{escape(k)}" class="col-{i}">{r[k]}</td>' for i, k in enumerate(head))
        out.append(f'<tr data-claim="{escape(r["key"])}">{cells}</tr>')
    return "\n".join(out + ["</tbody></table>"])


def counts_line(folder: str | None = None, registration: "pd.DataFrame | None" = None) -> str:
    """One line of counts by kind of evidence, over every claim of the book (the scoreboard lists them). The claims
    registered before their runs are split by `registration.registration_table` (git): strictly before their data,
    and partly after it (some runs they read existed before them); without git they are counted together."""
    t = evidence_counts(folder)

    def counted(rows) -> str:
        s = rows["status"].value_counts()
        parts = [f"{s.get(k, 0)} {w}" for k, w in (("agrees", "agree"), ("reproduced", "reproduce"),
                                                    ("differs", "differ"), ("inconclusive", "inconclusive"),
                                                    ("not run yet", "not run yet")) if s.get(k, 0)]
        return ", ".join(parts)

    reg, exact, pins = (t[t["kind"] == k] for k in ("registered", "exact", "pinned"))
    if registration is None:
        from .registration import registration_table

        registration = registration_table()
    partly_keys = set(registration.loc[registration["registration"] == "partly after its data", "claim"]) \
        if registration is not None and len(registration) else set()
    partly, before = reg[reg["claim"].isin(partly_keys)], reg[~reg["claim"].isin(partly_keys)]
    split = (f"{len(before)} claims registered before their data ({counted(before)}); {len(partly)} registered partly "
             f"after their data, some of their runs stored before them ({counted(partly)})" if len(partly)
             else f"{len(reg)} claims registered before their data ({counted(reg)})")
    return (f"Over the whole book: {split}; {len(exact)} exact computations of the toy model, judged by tolerances "
            f"set after their data ({counted(exact)}); {len(pins)} pins set after their data, which guard the code "
            "and are not evidence.")


def headline_keys() -> list[str]:
    return [h.key for h in HEADLINES]


assert all(h.key in REGISTRY and all(k in REGISTRY for k, _ in h.beside) for h in HEADLINES), "a headline names no claim"
assert len(CLAIMS) > len(HEADLINES)


def _ours_briefly(h: Headline, entry: dict) -> str:
    c = REGISTRY[h.key]
    unit = "×" if "×" in h.paper_says else ""
    return format(entry["ours"], c.fmt).replace("-", "−") + unit


def cause_line(h: Headline, folder: str | None) -> str:
    """Why a row differs, from the registered verdicts of the readings that test a cause (`Headline.causes`): the
    cause where all of a reading's verdicts agree, else "cause not identified", with what was ruled out (a verdict
    that differs) and what is not settled (inconclusive or not run yet)."""
    named: list[str] = []
    out: list[str] = []
    open_: list[str] = []
    for keys, what in h.causes:
        entries = [logged_entry(REGISTRY[k], folder) or {} for k in keys]
        statuses = [e.get("status", "not run yet") for e in entries]
        # A change toward the paper's T exponent is downward: "moves" alone says by how much, not which way.
        statuses = ["inconclusive" if k.endswith(".T_moves") and s == "agrees" and not e.get("ours", 0) < 0 else s
                    for k, e, s in zip(keys, entries, statuses)]
        (named if all(s == "agrees" for s in statuses) else out if "differs" in statuses else open_).append(what)
    text = f"cause: {' and '.join(named)}" if named else "cause not identified"
    if out:
        text += f"; ruled out: {', '.join(out)}"
    if open_:
        text += f"; not settled: {', '.join(open_)}"
    return text


def verdict_lines(folder: str | None = None) -> str:
    """The landing page's verdict in the ML Reproducibility Challenge's summary form (issue 60 item 1), generated from
    the headline rows' registered verdicts in this build: what reproduces, named; what does not, each with ours beside
    the paper's; why, from the readings registered to test a cause. Then what is still open, in one line."""
    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    judged = [(h, logged_entry(REGISTRY[h.key], folder)) for h in HEADLINES]
    status = [(h, e, e["status"] if e else "not run yet") for h, e in judged]
    holds = [h.name for h, _, s in status if s in ("agrees", "reproduced")]
    differs = [(h, e) for h, e, s in status if s == "differs" and e]
    unsure = [h.name for h, _, s in status if s == "inconclusive"]
    waiting = [h.name for h, _, s in status if s == "not run yet"]
    lines = [f"**Reproduces** ({len(holds)} of {len(HEADLINES)}): " + ("; ".join(holds) if holds else "none yet") + "."]
    lines.append(f"**Does not** ({len(differs)}): " + ("; ".join(
        f"{h.name}, {_ours_briefly(h, e)} against the paper's {h.paper_says}"
        for h, e in differs) if differs else "none") + ".")
    lines.append("**Why:** " + ("; ".join(f"{h.name}: {cause_line(h, folder)}" for h, _ in differs)
                                if differs else "nothing differs") + ".")
    rest = ([f"inconclusive: {', '.join(unsure)}"] if unsure else []) + ([f"not run yet: {', '.join(waiting)}"]
                                                                          if waiting else [])
    if rest:
        lines.append("*Open* — " + "; ".join(rest) + ".")
    return minus_signs("\n\n".join(lines))


def in_words(whose: str = "", kind: str = "") -> str:
    """The landing page's answer in words, below its verdict: Figure 3's law in words from a fit registered before its
    data on fresh seeds (``kind``, `table1_joint.show.in_kind`; empty until one is judged) and whose the differences
    are, from the screens' registered verdicts (``whose``, `unsaid.show.whose` and its recall twin). The engine
    imports no experiment: the page passes both."""
    parts = [kind] if kind else []
    if whose:
        parts.append(f"Whose are the differences? {whose[0].upper() + whose[1:].rstrip('.')} (Beyond 4).")
    return " ".join(parts) or "Why each claim differs is in its row's reason; what the paper leaves unsaid, in Beyond 4."


assert BESIDE_JUDGED <= {k for h in HEADLINES for k, _ in h.beside}, "a judged reading is beside no headline"
