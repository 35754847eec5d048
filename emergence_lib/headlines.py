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


HEADLINES: tuple[Headline, ...] = (
    Headline("1", "The toy model's plateau grows as √d (d^0.49)", "figure1.d_exponent",
             why="the reduced flow, integrated exactly: the theory reproduces"),
    Headline("1", "… and linearly in T (T^0.99)", "figure1.T_exponent",
             why="the same flows"),
    Headline("2", "In-context repetition shortens it as (T/B)^0.99", "figure2.in_context_exponent",
             why="the same flows, with B copies of the relevant token"),
    Headline("2", "Cross-sample repetition: (√d·T/f(p, d))^1.02", "figure2.cross_sample_exponent",
             why="the 3-D reduced flow of the paper's appendix"),
    Headline("2", "… with constant 2.15", "figure2.cross_sample_constant",
             why="ours is half the paper's, and the paper's own two Figure 2 laws disagree by that factor at p = 0"),
    Headline("3", "A Transformer's plateau grows as d^1.29", "table1.joint.fresh.d_exponent",
             (("table1.joint.first_seeds.d_exponent", "first seeds (estimator chosen after their data)"),
              ("table1.joint.fresh_short.d_exponent", "fresh seeds, T ≤ 128 and B = 1 only")),
             why="one joint fit over the paper's grid, as the paper fitted it; {d_bend}"),
    Headline("3", "… as T^0.80", "table1.joint.fresh.T_exponent",
             (("table1.joint.first_seeds.T_exponent", "first seeds (estimator chosen after their data)"),
              ("table1.joint.fresh_short.T_exponent", "fresh seeds, T ≤ 128 and B = 1 only")),
             why="{T_local}: no single power of T fits these points. {unsaid}"),
    Headline("3", "… and in-context repetition shortens it as B^−0.80", "table1.joint.fresh.B_exponent",
             (("table1.joint.first_seeds.B_exponent", "first seeds (estimator chosen after their data)"),),
             why="the same joint fit; the B panel sits at T = 256"),
    Headline("3", "Cross-sample repetition shortens the plateau", "table1.figure3.cross_sample_speedup",
             why="measured at the cheap end of the paper's grid (T = 32) only"),
    Headline("4", "Recall emerges after a time ∝ N_pairs^2.25", "recall_t1.figure4.pairs_exponent_5",
             why="at the paper's 5% threshold, near chance ({chance}): it partly measures guessing; chapter 4 shows the "
                 "50% reading as a diagnostic"),
    Headline("4", "… and ∝ N_tokens^0.79", "recall_t1.figure4.tokens_exponent_5",
             why="the same 5% crossings"),
    Headline("4", "LayerNorm makes recall harder", "recall_t1.figure4.layernorm",
             why="pre-LN against no LN, where the paper's text and table disagree on which it used"),
    Headline("5", "In-context repetition speeds recall up about 4×", "recall_t1.figure5.in_context_speedup",
             why="read at 50% accuracy; the paper's ≈4× is read off its figure. {unsaid_recall}"),
    Headline("5", "Cross-sample repetition speeds recall up about 2×", "recall_t1.figure5.cross_sample_speedup",
             why="read at 50% accuracy; the paper's ≈2× is read off its figure"),
    Headline("5", "Heavy repetition overfits: training data is learned first", "recall_t1.figure5.overfitting",
             why="test accuracy lags the training distribution's, as the paper says"),
    Headline("9", "The reduced flow matches SGD (a relative gap of 0)", "figure9.flow_vs_sgd",
             why="from the theory's initialisation; from the paper's, the flow runs early (App. A2)"),
    Headline("13", "More heads lengthen the plateau: H^0.16", "table1.ablations.figure13.heads_exponent",
             why="one fit over heads and layers at the paper's width"),
    Headline("14", "A random position raises the T exponent by 0.29", "table1.ablations.figure14.position_cost",
             why="the 1 × 1 model the paper's fits imply, at the paper's width"),
    Headline("15", "Adam reaches emergence much faster than SGD", "table1.ablations.figure15.adam_speedup",
             why="SGD at the paper's learning rate, where it crosses within its budget"),
    Headline("17", "Recall's selecting pattern forms in layer 4 of 4", "recall_t1.figure17.select_layer4_share_pre",
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


def headline_rows(folder: str | None = None, facts: dict[str, str] | None = None) -> list[dict[str, str]]:
    """One row a headline, as HTML cell contents. ``facts``: the computed phrases the reasons paste (the landing page
    computes them from the stored runs: `experiments.table1_joint.show.facts`)."""
    facts = facts or {}
    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    rows = []
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
        rows.append({"key": h.key, "Fig.": escape(h.figure), "The paper's claim": escape(h.claim + bound), "Ours [95%]": ours,
                     "Verdict, and why": f"{verdict(c, entry, folder)}: {escape(why_text(h, facts))}{where}"})
    return rows


def headline_table(folder: str | None = None, facts: dict[str, str] | None = None) -> str:
    """The landing page's table of the paper's claims, as HTML (one row per `HEADLINES` entry). Each cell carries its
    column's name (``data-label``), so that a phone, which stacks the cells, still labels each one."""
    rows = headline_rows(folder, facts)
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


TOY_FIGURES = ("1", "2", "9")  # the toy model's claims; the rest are the Transformers'


def answer(folder: str | None = None, whose: str = "", kind: str = "") -> str:
    """The landing page's answer in plain words, generated from the headline rows' verdicts in this build;
    ``whose``: the unstated-choices screen's sentence on whose the differences are (`unsaid.show.whose`); ``kind``:
    Figure 3's law in words (`table1_joint.show.in_kind`). The engine imports no experiment: the page passes both."""
    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    judged = []
    for h in HEADLINES:
        entry = logged_entry(REGISTRY[h.key], folder)
        judged.append((h, entry["status"] if entry else "not run yet"))
    toy = [s for h, s in judged if h.figure in TOY_FIGURES]
    tf = [(h, s) for h, s in judged if h.figure not in TOY_FIGURES]
    holds = sum(s in ("reproduced", "agrees") for s in toy)
    toy_text = (f"The toy theory reproduces: {holds} of its {len(toy)} claims hold as the paper states them"
                + ("." if holds == len(toy) else " (the other one: see the table)." if len(toy) - holds == 1
                   else f" (the other {len(toy) - holds}: see the table)."))

    def count(word: str) -> int:
        return sum(s == word for _, s in tf)

    parts = [f"{count(w)} {name}" for w, name in (("agrees", "agree"), ("differs", "differ"),
                                                  ("inconclusive", "are inconclusive"),
                                                  ("not run yet", "wait for their runs")) if count(w)]
    fig3 = [h for h, s in tf if h.figure == "3" and s == "differs"]
    fig3_text = (" Figure 3's law differs where the paper measured it: " + "; ".join(h.claim.lstrip("… ") for h in fig3) + "."
                 if fig3 else "")
    return (f"{toy_text} For the Transformers, of the paper's {len(tf)} claims judged on its own model, "
            f"{', '.join(parts)}.{fig3_text} " + (f"{kind} " if kind else "")
            + (f"Whose are the differences? {whose[0].upper() + whose[1:].rstrip('.')} (Beyond 4)." if whose
               else "Why each differs is in its row's reason; what the paper leaves unsaid, in Beyond 4."))
assert BESIDE_JUDGED <= {k for h in HEADLINES for k, _ in h.beside}, "a judged reading is beside no headline"
