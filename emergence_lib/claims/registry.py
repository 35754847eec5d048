"""The registry: every claim of the paper this book checks (`CLAIMS`), by key (`REGISTRY`), why a claim is
judged by a band (`BAND_WHY`), and the figures each chapter reads (`CHAPTER_FIGURES`)."""

from __future__ import annotations

from ..paper import PAPER
from .measured import (ABLATIONS_MEASURED_CLAIMS, CONFIRM_CLAIMS, MEASURED_CLAIMS, RECALL_MEASURED_CLAIMS,
                       TABLE1_CLAIMS)
from .bend import SCREEN_CLAIMS, SHAPE_CLAIMS
from .unsaid import JOINT_CLAIMS, UNSAID_CLAIMS, UNSAID_RECALL_CLAIMS
from .rules import (A, EXPONENT_WIDTH, LOG_RATIO_WIDTH, TWO_COMPUTATIONS_WIDTH, Claim, IntervalRule, Target,
                    Tolerance, _c)

CLAIMS: tuple[Claim, ...] = (
    # ---- Figure 1: the toy model
    _c("figure1.d_exponent", "1c", "01_toy_model", "Toy model: the plateau grows as $d^{0.49}$ ($\\sqrt d$)", "0.49", "figure1.d",
       "exponent of d in a power law fitted to every (T, d) reduced-flow run", A(absolute=0.03)),
    _c("figure1.T_exponent", "1c", "01_toy_model", "Toy model: the plateau grows as $T^{0.99}$", "0.99", "figure1.T",
       "exponent of T in the same fit", A(absolute=0.03)),
    _c("figure1.mechanism", "1b", "01_toy_model", "The weights $w$ move before the attention $\\alpha$",
       "$w$ first", None, "time for w to cover 10% of its way to √d, over the same for α", A(high=0.8)),
    # ---- Figure 2: repetition in the toy model
    _c("figure2.in_context_exponent", "2 left", "02_repetition_toy",
       "In-context repetition: the plateau grows as $(T/B)^{0.99}$", "0.99", "figure2_in_context.T_over_B",
       "exponent of $T/B$ in a fit of $C\\,d^{\\alpha}(T/B)^{\\beta}$ to the reduced flows", A(absolute=0.03)),
    _c("figure2.in_context_constant", "2 left", "02_repetition_toy", "In-context repetition: constant 1.51",
       "1.51", "figure2_in_context.C", "C of the same fit", A(relative=0.2)),
    _c("figure2.cross_sample_exponent", "2 right", "02_repetition_toy",
       "Cross-sample repetition: the plateau grows as $(\\sqrt d\\,T/f(p,d))^{1.02}$", "1.02", "figure2_cross_sample.x",
       "exponent of a fit $C\\,x^{\\gamma}$, $x=\\sqrt d\\,T/f(p,d)$, on test loss without repetition", A(absolute=0.03)),
    _c("figure2.cross_sample_constant", "2 right", "02_repetition_toy", "Cross-sample repetition: constant 2.15",
       "2.15", "figure2_cross_sample.C", "C of the same fit", A(relative=0.2), expected="differs",
       note="half the paper's; the paper's two Figure 2 laws disagree by the same factor 2 at p = 0"),
    # ---- Figure 3: Transformers on single-location regression
    _c("figure3.d_exponent", "3", "03_transformer", "Transformer: the plateau grows as $d^{1.29}$", "1.29", "figure3.d",
       "exponent of d in a joint power law over the left and middle panels (seed means), 95% t interval "
       "(was a ±0.15 band)", IntervalRule(max_width=0.4),
       expected="differs", note="smaller at our laptop scale; the exponents rise with the grid"),
    _c("figure3.T_exponent", "3", "03_transformer", "Transformer: the plateau grows as $T^{0.80}$", "0.80", "figure3.T",
       "exponent of T in the same fit, 95% t interval (was a ±0.15 band)", IntervalRule(max_width=0.4),
       expected="differs", note="larger than the paper's: T weighs more than d at our width"),
    _c("figure3.B_exponent", "3", "03_transformer", "Transformer: in-context repetition shortens it as $B^{-0.80}$",
       "−0.80", "figure3.B", "exponent of B in the same fit, 95% t interval (was a ±0.15 band)", IntervalRule(max_width=0.4),
       expected="agrees"),
    _c("figure3.cross_sample_speedup", "3 right", "03_transformer",
       "Cross-sample repetition shortens the plateau, more at larger $d$", "helps, more at larger $d$", None,
       "speed-up of the largest p over p = 0 at the largest d, over the same at the smallest d", A(low=1.0)),
    # ---- Figure 4: associative recall
    # Registered after their runs (so pinned): the other numbers of Figure 3 that the chapter computes.
    _c("figure3.constant", "3", "03_transformer", "Transformer: the law's constant is 0.76", "0.76", "figure3.C",
       "C of the joint fit, 95% t interval from its OLS standard error", IntervalRule(max_width=LOG_RATIO_WIDTH, log=True),
       expected="inconclusive",
       note="its interval spans a factor of about 7: with three exponents fitted, the constant trades off against them"),
    _c("figure3.r2", "3", "03_transformer", "Transformer: the law fits with $R^2$ = 0.995", "0.995", "figure3.R2",
       "R² of the joint fit (a hand-set band: R² has no interval here; ≥ 0.99 is the paper's value less its rounding "
       "and a little slack)", A(low=0.99), fmt=".3f", expected="differs",
       note="0.93 on the laptop grid: short plateaus carry an overhead that bends the law (chapter 3's offset law)"),
    _c("figure4.pairs_exponent", "4", "04_associative_recall", "Recall: emergence grows as $N_\\text{pairs}^{2.25}$", "2.25", "figure4.N_pairs",
       "exponent of N_pairs in a power law fitted to the steps to 50% test accuracy (best lr per point), 95% t "
       "interval (was a ±0.3 band)", IntervalRule(max_width=EXPONENT_WIDTH),
       expected="inconclusive",
       note="the 3 × 3 grid with 2 seeds leaves a wide interval (about ±0.4) around a value close to the paper's"),
    _c("figure4.tokens_exponent", "4", "04_associative_recall", "Recall: emergence grows as $N_\\text{tokens}^{0.79}$", "0.79", "figure4.N_tokens",
       "exponent of N_tokens in the same fit, 95% t interval (was a ±0.3 band)", IntervalRule(max_width=EXPONENT_WIDTH),
       expected="inconclusive",
       note="the paper's 0.79 lies inside the interval, which is wider than the one width for exponents (0.4); it agreed "
            "only under a width of 0.6 set after the data"),
    _c("figure4.layernorm", "4", "04_associative_recall", "LayerNorm makes the task harder (text)",
       "harder with LN", None, "smallest ratio over the grid of steps with pre-LN to steps without LN", A(low=1.0)),
    # ---- Figure 5: repetition and overfitting in recall
    _c("figure5.in_context_speedup", "5 left", "04_associative_recall",
       "In-context repetition speeds emergence up about 4×", "≈4× (read off the figure)", "figure5_speedup.B",
       "largest speed-up over B = 1 in steps to 50% test accuracy (within a factor √2 of a value read off a figure)",
       A(low=4.0 / 2**0.5, high=4.0 * 2**0.5)),
    _c("figure5.cross_sample_speedup", "5 right", "04_associative_recall",
       "Cross-sample repetition speeds emergence up about 2×", "≈2× (read off the figure)", "figure5_speedup.p",
       "largest speed-up over p = 0 in the same measure (within a factor √2: a band around 2 that excludes no effect)",
       A(low=2.0 / 2**0.5, high=2.0 * 2**0.5), expected="differs",
       note="a smaller gain than the paper's ≈2× at our vocabulary sizes (the earlier band [1, 3] counted no effect as a success)"),
    _c("figure5.overfitting", "5", "04_associative_recall",
       "Heavy repetition overfits: the training distribution is learned long before test data",
       "overfits, then recovers", None,
       "steps to 50% test accuracy over steps to 50% on the training distribution, at the largest B",
       A(low=5.0), fmt=".0f"),
    # ---- Appendix, toy model
    _c("figure6.overshoot", "6", "A1_toy_theory", "Along the way $w$ overshoots its optimum $\\sqrt d$", "overshoots", None,
       "largest $w/\\sqrt d$ along the flow", A(low=1.0), fmt=".3f"),
    _c("figure7.linearisation", "7", "A1_toy_theory", "The early dynamics follow the linearisation",
       "holds early", None, "largest (time the loss leaves the linearised curve by 10%) / plateau, over T", A(high=1.0)),
    _c("figure8.tracking", "8", "A1_toy_theory", "Late in training $w$ tracks its equilibrium $w^\\infty(\\alpha)$",
       "tracks", None, "largest $|w/w^\\infty(\\alpha)-1|$ late in the run", A(high=1e-3), fmt=".1e"),
    _c("figure9.flow_vs_sgd", "9", "A2_toy_checks", "The reduced flow matches SGD (the theory's initialisation)",
       "close agreement (0)", Target(0.0, "the flow and SGD agree: no relative difference"),
       "flow plateau / mean SGD plateau − 1, SGD from W = 0 with unit-norm columns of W*; 95% t interval over seeds",
       IntervalRule(max_width=TWO_COMPUTATIONS_WIDTH), expected="agrees", fmt="+.3f"),
    _c("figure9.flow_vs_sgd_paper_init", "9", "A2_toy_checks",
       "The reduced flow matches SGD (the paper's initialisation, $W, W^* \\sim N(0, 1/d)$)", "close agreement (0)", Target(0.0, "the flow and SGD agree: no relative difference"),
       "flow plateau / mean SGD plateau − 1, SGD as the paper ran it; 95% t interval over seeds",
       IntervalRule(max_width=TWO_COMPUTATIONS_WIDTH), expected="differs", fmt="+.3f",
       note="SGD from a Gaussian W and W* stays on the plateau longer than the flow, which assumes W = 0 and "
            "unit-norm columns of W*: the flow is then about 9% early"),
    _c("figure10.repeated_first", "10", "A2_toy_checks", "The repeated direction $\\tilde w$ is learned before $w$",
       "$\\tilde w$ first", None, "largest (time w̃ covers 10%) / (time w covers 10%), over p", A(high=1.0)),
    # ---- Appendix, Transformers
    _c("figure11.sharpness", "11", "A3_transformer_dynamics", "Every seed shows a sharp transition",
       "sharp", None, "median (drop duration) / plateau over seeds and configurations", A(high=0.3)),
    _c("figure12.training_first", "12", "A3_transformer_dynamics",
       "Under cross-sample repetition the training distribution is learned first (or together)",
       "training first", None, "largest (steps on the training distribution) / (steps without repetition) over p > 0",
       A(high=1.05)),
    _c("figure13.heads_exponent", "13", "A4_transformer_ablations", "More heads lengthen the plateau: $H^{0.16}$",
       "0.16", "figure13.heads", "exponent of $H$ in a joint fit over $d$, $T$, $L$, $H$, 95% t interval (a ±0.05 band was about "
       "1.5 standard errors: a coin flip)", IntervalRule(max_width=EXPONENT_WIDTH), expected="agrees"),
    _c("figure13.layers_exponent", "13", "A4_transformer_ablations", "Layers matter little: $L^{0.06}$", "0.06", "figure13.layers",
       "exponent of $L$ in the same fit, 95% t interval", IntervalRule(max_width=EXPONENT_WIDTH), expected="agrees"),
    _c("figure13.d_exponent", "13", "A4_transformer_ablations", "Ablations: the plateau grows as $d^{1.27}$", "1.27", "figure13.d",
       "exponent of $d$ in the joint fit over $d$, $T$, $L$, $H$, 95% t interval", IntervalRule(max_width=0.4),
       expected="differs",
       note="d weighs less at our laptop scale, as in Figure 3"),
    _c("figure14.position_cost", "14", "A4_transformer_ablations",
       "A random relevant position raises the $T$ exponent (0.58 vs 0.29)", "+0.29", "figure14_position_cost.T",
       "T exponent with a random position minus with a fixed one (feature present), 95% t interval from the two fits' "
       "standard errors (was a ±0.15 band)", IntervalRule(max_width=0.4), expected="agrees"),
    *(_c(f"figure14.d_exponent_{slug}", "14", "A4_transformer_ablations", f"1×1 model, {variant}: $d^{{{PAPER[f'figure14 {variant}']['d']:.2f}}}$",
         f"{PAPER[f'figure14 {variant}']['d']:.2f}", f"figure14 {variant}.d", "exponent of $d$, 95% t interval",
         IntervalRule(max_width=0.4), expected="differs", note="d weighs less than in the paper at width 64 and, in the registered runs of App. B.3, at Table 1's width 256 too: not the width alone")
      for slug, variant in (("random_position", "feature + random position"), ("fixed_position", "feature + fixed position"),
                            ("no_feature", "no feature + fixed position"))),
    _c("figure14.T_exponent_no_feature", "14", "A4_transformer_ablations",
       "1×1 model, no feature, fixed position: $T^{0.30}$", "0.30", "figure14 no feature + fixed position.T",
       "exponent of $T$, 95% t interval", IntervalRule(max_width=0.4), expected="differs",
       note="larger than the paper's at width 64 and, in the registered runs of App. B.3, at Table 1's width 256 too"),
    _c("figure15.adam_d_exponent", "15", "A4_transformer_ablations", "Adam's plateau grows as $d^{1.31}$", "1.31", "figure15 adam.d",
       "exponent of $d$ in a power law fitted to Adam's plateaus, 95% t interval", IntervalRule(max_width=0.4),
       expected="inconclusive",
       note="Figure 15's grid is small: the interval is wider than the registered 0.4"),
    _c("figure15.adam_T_exponent", "15", "A4_transformer_ablations", "Adam's plateau grows as $T^{0.57}$", "0.57", "figure15 adam.T",
       "exponent of $T$ in the same fit, 95% t interval", IntervalRule(max_width=0.4), expected="inconclusive",
       note="Figure 15's grid is small: the interval is wider than the registered 0.4"),
    _c("figure15.adam_speedup", "15", "A4_transformer_ablations", "Adam reaches emergence much faster than SGD",
       "much faster", None, "largest Adam/SGD speed-up over the grid (a lower bound where SGD misses its budget)",
       A(low=10.0), fmt=".0f"),
    _c("figure15.sgd_T_exponent", "15", "A4_transformer_ablations", "SGD\'s plateau grows as $T^{1.07}$", "1.07", "figure15 sgd.T",
       "exponent of T in a power law fitted to SGD's plateaus, 95% t interval (was a ±0.15 band)",
       IntervalRule(max_width=0.4), expected="agrees"),
    _c("figure16.training_speedup", "16", "A5_recall_mechanism",
       "On the training distribution repetition only speeds learning up", "only speeds up", None,
       "smallest speed-up over no repetition on the training distribution, over every level", A(low=1.0)),
    _c("figure17.select_layer", "17", "A5_recall_mechanism",
       "The selecting (induction) pattern forms in layer 4 of 4", "layer 4", "figure17_layers.query_to_value",
       "modal layer of the query→value pattern at 8 pairs (pre-LN)", A(absolute=0.0), expected="differs", fmt=".0f",
       note="layer 2 at 8 pairs in Figure 5's runs; the placement sweep's share of layer-4 runs is judged below"),
    _c("figure17.copy_layer", "17", "A5_recall_mechanism",
       "The copying pattern (value → key) forms in layer 3 of 4", "layer 3", "figure17_layers.value_to_key",
       "modal layer of the value→key pattern at 8 pairs (pre-LN); a layer index is exact, so the band is 0",
       A(absolute=0.0), expected="differs", fmt=".0f",
       note="our 4-layer model copies in layer 1 and selects in layer 2: the circuit sits in the first two layers"),
    # Registered (0f9c1e5) before the placement sweep's seeds 3-4 were run: the share of runs, not one modal layer.
    # Git labels them after their data (seeds 0-2 existed), so their statuses, as first judged, are pins.
    _c("figure17.select_layer4_share", "17", "A5_recall_mechanism",
       "Most runs select in layer 4 of 4 (pre-LN, 5 seeds at each of 4, 8 and 12 pairs)", "layer 4", None,
       "share of the emerged pre-LN placement runs whose query→value pattern peaks in layer 4, Wilson 95% interval",
       IntervalRule(above=0.5), expected="differs",
       note="only runs at 12 pairs select in layer 4 (none at 4 or 8): the layer rises with the task's size"),
    _c("figure17.copy_layer3_share", "17", "A5_recall_mechanism",
       "Most runs copy in layer 3 of 4 (pre-LN, 5 seeds at each of 4, 8 and 12 pairs)", "layer 3", None,
       "share of the emerged pre-LN placement runs whose value→key pattern peaks in layer 3, Wilson 95% interval",
       IntervalRule(above=0.5), expected="differs",
       note="only runs at 12 pairs copy in layer 3; most copy in layer 1"),
    # ---- Beyond the paper: findings of this book's own experiments ("paper" says what the paper proposes, if anything)
    _c("steering.toy_step_gain", "B1", "B1_steering",
       "Toy model: switching repetition off at the right time beats constant repetition",
       "proposed (§5), not tested", None, "constant-repetition plateau over the best step schedule's (3-D flow)",
       A(low=1.1)),
    _c("steering.toy_linearised_tau", "B1", "B1_steering",
       "Toy model: the linearisation locates the best switch time", "ratio 1 (the same τ)", Target(1.0, "two of our own computations locate the same switch time"),
       "the linearisation's best τ over the flow's best τ", A(relative=0.2), expected="differs",
       note="the linearisation says repeat until escape; the flow's best switch lies inside the escape"),
    # The Transformer rows, registered (0f9c1e5) before the triggered runs that read their own held-out set and before
    # the constant baselines' third seed: 3 seeds, 95% t intervals of the seeds' mean log ratio (or difference). Git
    # labels them after their data (the chapter's earlier runs existed), so their statuses, as first judged, are pins.
    _c("steering.recall_triggered_speedup", "B1", "B1_steering",
       "Recall: the triggered schedule (B = 4 until attention forms) emerges sooner than no repetition",
       "proposed (§5), not tested", None,
       "steps to 50% test accuracy, no repetition over triggered, per seed; the trigger reads its own held-out set",
       IntervalRule(above=1.0, log=True), expected="agrees"),
    _c("steering.recall_triggered_vs_best_constant", "B1", "B1_steering",
       "Recall: the triggered schedule emerges sooner than the best constant repetition", "—", None,
       "steps to 50% test accuracy, best constant (fewest steps on seed mean over B ∈ {1, 2, 4}, p ∈ {0, 0.2, 0.4, 0.8}) "
       "over triggered, per seed", IntervalRule(above=1.0, log=True), expected="differs",
       note="constant B = 2 emerges in about 600 steps; the trigger switches B = 4 off only once the selecting head has formed, near 840"),
    _c("steering.recall_triggered_accuracy", "B1", "B1_steering",
       "Recall: the triggered schedule ends no more than 2 points less accurate than no repetition",
       "proposed (§5), not tested", None, "final test accuracy, triggered minus no repetition, per seed",
       IntervalRule(above=-0.02), fmt="+.3f", expected="agrees"),
    _c("steering.recall_heavy_accuracy_cost", "B1", "B1_steering",
       "Recall: constant heavy repetition (B = 4) ends over 2 points less accurate (Figure 5's cost)", "overfits (Figure 5)",
       None, "final test accuracy, no repetition minus constant B = 4, per seed", IntervalRule(above=0.02), fmt="+.3f",
       expected="inconclusive",
       note="the cost is 0.10 on the seed mean, but with 3 seeds its t interval reaches below 0.02"),
    _c("steering.recall_cross_sample_rescue", "B1", "B1_steering",
       "Recall: switching p = 0.8 off when attention forms makes it faster than no repetition", "—", None,
       "steps to 50% test accuracy, no repetition over p = 0.8 switched off by the trigger, per seed",
       IntervalRule(above=1.0, log=True), expected="inconclusive",
       note="under p = 0.8 the attention forms late, and so does the trigger: 0.61× the speed of no repetition, interval up to 1.00"),
    _c("steering.regression_triggered_speedup", "B1", "B1_steering",
       "Regression: the triggered schedule (p = 0.4 until attention forms) has a shorter plateau than no repetition",
       "—", None, "plateau (loss 0.4 without repetition), no repetition over triggered, per seed",
       IntervalRule(above=1.0, log=True), expected="agrees"),
    _c("steering.regression_triggered_vs_best_constant", "B1", "B1_steering",
       "Regression: the triggered schedule has a shorter plateau than the best constant p", "—", None,
       "plateau, best constant (shortest on seed mean over p ∈ {0, 0.1, 0.2, 0.4}) over triggered, per seed",
       IntervalRule(above=1.0, log=True), expected="agrees"),
    _c("prediction.toy_heldout", "B2", "B2_prediction",
       "Toy model: the reduced flow predicts held-out runs of the full model (Eq. 2, GD)", "—", None,
       "largest |ln(measured / predicted)| over the held-out (T, d, p), unit-norm columns of $W^*$", A(high=0.01),
       fmt=".4f"),
    _c("prediction.transformer_heldout_inside", "B2", "B2_prediction",
       "Transformers: the fitted laws' 95% intervals cover held-out runs", "—", None,
       "fraction of held-out regression and recall configurations inside their interval", A(low=0.6)),
    # The early warning observes a run until its attention gap first reaches 1 (a window closed without knowing the
    # crossing) and must beat the best of three baselines: the prior (the flow or the law, before training), the
    # null (the same window, another run's signal) and the window's length alone (added after the data, issue 36
    # item 6: its end × the other runs' median crossing / end). Replaced, after the data, the earlier rows whose window was a
    # fraction of the measured crossing (their outcome leaked into the window's length).
    _c("prediction.early_warning_toy", "B2", "B2_prediction",
       "Toy model: the early warning beats the prior, the null and the window's length", "—", None,
       "median |log error| of the best of three baselines minus the early warning's (window: gap reaches 1), 95% paired bootstrap",
       IntervalRule(above=0.0), fmt="+.3f", expected="differs",
       note="the prior is the reduced flow itself, which is exact: nothing from part of a run can beat it"),
    _c("prediction.early_warning_recall", "B2", "B2_prediction",
       "Recall: the early warning beats the prior, the null and the window's length", "—", None,
       "the same, Figure 4's runs (leave one out)", IntervalRule(above=0.0), fmt="+.3f", expected="inconclusive",
       note="its window closes late (the gap reaches 1 at about 85% of a run), and there it is not clearly better than Figure 4's law"),
    _c("prediction.early_warning_regression", "B2", "B2_prediction",
       "Regression: the early warning beats the prior, the null and the window's length", "—", None,
       "the same, the held-out runs (leave one out)", IntervalRule(above=0.0), fmt="+.3f", expected="inconclusive",
       note="worse than Figure 3's law on the held-out runs, though far better than the null"),
    # ---- Beyond the paper (3): a 2026 follow-up's claims; "paper" gives the follow-up's, and "reproduced" means it holds here
    _c("followup.entropy_lag_regression", "B3", "B3_followup",
       "Follow-up: the carrying head's attention entropy drops in the same window as the loss (regression)",
       "same window", None, "median over seeds and the 1×1, 1×4, 2×4 models of (entropy 50% drop step) / (loss 50% drop step)",
       A(low=0.67, high=1.5)),
    _c("followup.entropy_lag_recall", "B3", "B3_followup",
       "Follow-up: the same in associative recall (the query → value head)", "same window", None,
       "median over seeds of (entropy 50% drop step) / (accuracy 50% rise step), 4-layer model", A(low=0.67, high=1.5),
       expected="differs", note="the readout's entropy falls early and gradually in most heads, long before the accuracy jumps"),
    _c("followup.bias_speedup_regression", "B3", "B3_followup",
       "Follow-up: a bias toward the true attention pattern removes the plateau (regression)", "> 10× faster", None,
       "plateau at s = 0 over the plateau with the bias at the largest s (1×1, seed geometric means)", A(low=5.0), fmt=".1f",
       expected="differs", note="the bias shortens the plateau only down to a floor, the time to fit the linear map once the attention is right"),
    _c("followup.bias_toy_match", "B3", "B3_followup",
       "The toy flow from an initial logit gap Δa₀ = s predicts the Transformer's speed-up (within 2×)", "—", None,
       "|ln(Transformer's plateau ratio / the toy flow's)| at the largest s", A(high=0.69),
       expected="differs", note="the toy flow's floor is far lower: its w moves at learning rate 1, Adam's weights about one learning rate a step"),
    _c("followup.bias_speedup_recall", "B3", "B3_followup",
       "Follow-up: a bias toward the true attention pattern removes the plateau (recall; the bias stands in for the circuit: without it at evaluation no run has learned)", "> 10× faster", None,
       "emergence step at s = 0 over the same with the bias at the largest s (better of first/all layers)", A(low=5.0),
       fmt=".1f"),
    _c("followup.heads_fixed_width", "B3", "B3_followup",
       "Follow-up: more heads learn the pattern faster (fixed total width, heads split it)",
       "faster; this paper: $H^{0.16}$", None, "exponent η of H in C·d^α·T^β·H^η, 1 layer", A(high=-0.05),
       expected="differs", note="more heads lengthen the plateau at fixed width, as this paper's Figure 13 finds"),
    _c("followup.heads_fixed_head_dim", "B3", "B3_followup",
       "Follow-up: more heads learn the pattern faster (fixed head dimension, width grows)",
       "faster; this paper: $H^{0.16}$", None, "exponent η of H in C·d^α·T^β·H^η, 1 layer", A(high=-0.05)),
    _c("followup.depth", "B3", "B3_followup", "Follow-up: deeper models are no better (often worse)",
       "no better; this paper: $L^{0.06}$", None, "smallest exponent λ of L over the head counts (Figure 13's runs)",
       A(low=-0.05)),
    _c("followup.mixer_positional", "B3", "B3_followup",
       "Follow-up: an MLP-Mixer learns a positional task an order of magnitude faster than attention", "≥ 10×", None,
       "Transformer 1×1 over Mixer plateau, median over Figure 14's grid (no feature, fixed position)", A(low=10.0),
       fmt=".1f", expected="differs",
       note="the Mixer has almost no plateau on the positional task, but at these sizes attention's is not yet 10× longer; the gap grows with T and d"),
    _c("followup.mixer_content", "B3", "B3_followup",
       "…and is faster too when content marks the position (open in the follow-up)", "open", None,
       "Transformer 1×1 over Mixer plateau (feature, random position; inf: only the Mixer emerged)", A(low=1.0),
       expected="differs", note="the Mixer does learn a position marked by content, but several times more slowly than attention"),
    # followup.randomness_regression and _recall (a Transformer's CV over the toy model's under SGD) were removed
    # (issue 36 item 7): their seeds vary different sources, so B3 reports the CVs side by side without a verdict.
    _c("followup.randomness_toy", "B3", "B3_followup",
       "The toy model under SGD is random in the sense of a CV ≥ 0.25 (this book's cut-off; the Transformers are "
       "compared with this spread above)", "—", None,
       "largest CV over seeds of the two (T, d), SGD from W = 0 (the reduced flow: CV 0)", A(low=0.25), fmt=".3f",
       expected="differs", note="SGD noise alone barely moves the toy model's plateau"),
    # ---- Figure 3 at Table 1's own settings (the paper_cpu scale, `experiments.regression`): registered before any of its runs existed
    *TABLE1_CLAIMS,
    # ---- Figure 3 on Table 1's model where the paper measured (T = 128-256): registered before any of its runs
    *MEASURED_CLAIMS,
    # ---- Figures 4, 5, 16, 17 on Table 1's recall model (issue 35): registered before any of its runs
    *RECALL_MEASURED_CLAIMS,
    # ---- Figures 14, 15 at Table 1's width (issue 34 item 2): registered before any of its runs
    *ABLATIONS_MEASURED_CLAIMS,
    # ---- Fresh-seed confirmations on the laptop grid (issue 36 item 3): registered before any of their runs
    *CONFIRM_CLAIMS,
    # ---- Figure 3 as the paper measured it (one joint fit over its grid), on fresh seeds of Table 1's model, and the
    # first seeds' reading beside it (issue 52): registered in a commit with no data
    *JOINT_CLAIMS,
    # ---- The shape of Figure 3's law on fresh seeds: the collapse on T/B, the bend, the fit without (256, 64)
    # (issue 61): registered in a commit with no data
    *SHAPE_CLAIMS,
    # ---- What the paper leaves unsaid: its unstated choices read another way (issue 54): registered before any run
    *UNSAID_CLAIMS,
    *UNSAID_RECALL_CLAIMS,
    # ---- Which unstated choice bends the law: the d = 16 screen (issue 61 item 2): registered before any of its runs
    *SCREEN_CLAIMS,
    # ---- Not computed here
    Claim("table1.paper_scale", "3", None, "Figure 3 on the paper\'s whole grid at once (Table 1: $d$ up to 128, $T$ up to "
          "256, 5 seeds, the $p$ panel at $T$ = 256); the points a laptop affords are judged in the rows above",
          "$0.76\\,d^{1.29}T^{0.80}B^{-0.80}$", None, "the chapter's paper scale; needs a GPU", None, "not run"),
)

REGISTRY: dict[str, Claim] = {c.key: c for c in CLAIMS}
assert len(REGISTRY) == len(CLAIMS), "claim keys must be unique"


# Why a claim is still judged by a hand-set band and not by an interval (`Tolerance`), by key prefix (the longest
# prefix that matches wins). A test requires one for every band claim; the scoreboard lists them.
BAND_WHY: dict[str, str] = {
    "figure1.": "a deterministic reduced flow: no seeds, so no sampling interval; the band is a hand-set tolerance",
    "figure2.": "a deterministic reduced flow: no seeds, so no sampling interval; the band is a hand-set tolerance",
    "figure1.mechanism": "a qualitative order (w before α) on a deterministic flow: a threshold, no sampling interval",
    "figure3.cross_sample_speedup": "a direction over the grid's largest d and p on seed means; Table 1's version "
                                    "(table1.figure3.cross_sample_speedup) carries a Welch interval",
    "figure3.r2": "R² of a fit, a goodness-of-fit statistic: compared with the paper's 0.995 by a threshold",
    "figure4.layernorm": "a direction (harder with LN) read as the smallest ratio over the grid: a threshold",
    "figure5.": "the paper's value is read off a figure, not stated: a factor-√2 band around the reading (excluding 1)",
    "figure5.overfitting": "a qualitative effect (a generalisation lag): a threshold of 5× on seed means",
    "figure6.": "a property of one deterministic flow (an overshoot): a threshold, no sampling interval",
    "figure7.": "a property of deterministic flows (where a linearisation holds): a threshold",
    "figure8.": "a property of one deterministic flow (tracking an equilibrium): a numerical threshold",
    "figure10.": "an order between two directions of one deterministic flow: a threshold",
    "figure11.": "a shape property (sharpness) over seeds and configurations: a threshold on the median",
    "figure12.": "a direction (training distribution first) over p > 0 on seed means: a threshold with 5% slack",
    "table1.figure11.": "Figure 11's rule (a threshold on the median over seeds), on Table 1's settings",
    "table1.figure12.": "Figure 12's rule (a direction on seed 0, with 5% slack), on Table 1's settings",
    "figure15.adam_speedup": "a lower bound where SGD misses its budget: a threshold of 10×",
    "figure16.": "a direction (only speeds up) over every level on seed means: a threshold",
    "figure17.": "a layer index is exact: the band is zero",
    "steering.": "the book's own experiment (the paper only proposes it): a threshold on seed means, set by the book",
    "prediction.": "the book's own experiment: a threshold on held-out errors or coverage, set by the book",
    "followup.": "a claim of the follow-up paper, which states no number: a threshold set by the book (Beyond 3 "
                 "says which and why)",
}


def band_why(c: "Claim") -> str | None:
    """Why ``c`` is judged by a band (None for an interval claim, or a band claim nobody explained)."""
    if not isinstance(c.tolerance, Tolerance):
        return None
    matches = [k for k in BAND_WHY if c.key.startswith(k)]
    return BAND_WHY[max(matches, key=len)] if matches else None


def claim(key: str) -> Claim:
    try:
        return REGISTRY[key]
    except KeyError:
        raise KeyError(f"no claim {key!r} in the registry; known: {', '.join(REGISTRY)}") from None


def claims_of(chapter: str) -> list[Claim]:
    return [c for c in CLAIMS if c.chapter == chapter]



# The figure configs whose runs each chapter reads: a chapter can be judged at paper scale once all are cached.
CHAPTER_FIGURES: dict[str, tuple[str, ...]] = {
    "01_toy_model": ("figure1",),
    "02_repetition_toy": ("figure1", "figure2", "figure2_constant"),
    "03_transformer": ("figure3", "figure3_measured", "figure3_fresh"),
    "04_associative_recall": ("figure4", "figure5"),
    "A1_toy_theory": ("figure6", "figure7", "figure8"),
    "A2_toy_checks": ("figure9", "figure10"),
    "A3_transformer_dynamics": ("figure3", "figure11", "figure12"),
    "A4_transformer_ablations": ("figure13", "figure14", "figure15"),
    "A5_recall_mechanism": ("figure16", "figure17"),
    "B1_steering": ("steering",),
    "B2_prediction": ("prediction", "figure1", "figure3", "figure4"),
    "B3_followup": ("followup", "figure13"),
    "B4_unsaid": ("unsaid", "screen16"),
}

