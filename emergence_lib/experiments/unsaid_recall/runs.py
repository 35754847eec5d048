"""The recall task's unsaid choices (spec §3.3, §10.10) on the paper's recall model: `UnsaidRecall`, registry name
``unsaid_recall``, scales smoke and paper_cpu. Registered (``claims.unsaid``) before any of its runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...configs import TransformerRecallConfig
from ..base import ScaledFigure

# The recall task's unsaid choices (spec §3.3, §10.10), registered after the regression screen began and before any
# run of their own. The quantity is Figure 5's in-context speed-up: steps to 50% test accuracy at B = 1 over B = 4,
# paired by seed, at the point chapter 4 measures it (N_tokens 64, 8 pairs, Table 1's pre-LN recall model, Adam 1e-4).
# With absences kept, 34% of B = 1 training sequences hold no copy of the query (nothing to recall), against 0.4% at
# B = 4: a reading under which in-context repetition could speed learning up more than the book's 1.67x.
RECALL_READINGS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("book", "the book's reading (no training sequence without the query; a test query exactly once)", {}),
    ("zero_kept", "training sequences without the query kept (Bernoulli(B/N) slots at every B)",
     {"zero_occurrences": "kept"}),
    ("literal", "the text's Bernoulli rule everywhere, the test set's B = 1 included (its query absent from about a "
                "third of test sequences, repeated in about a quarter)",
     {"zero_occurrences": "kept", "test_set": "bernoulli"}),
)


@dataclass(frozen=True)
class UnsaidRecallGrid:
    model: dict[str, int]
    lr: float
    n_tokens: int
    n_pairs: int
    B: tuple[int, int]  # the speed-up's two levels
    seeds: tuple[int, ...]
    threshold: float
    stop_factor: float
    max_steps: int
    eval_size: int
    readings: tuple[str, ...]

    def describe(self) -> dict[str, Any]:
        return {"layers × heads": f"{self.model['n_layers']} × {self.model['n_heads']}", "width": self.model["d_model"],
                "Adam lr": self.lr, "N_tokens, pairs": (self.n_tokens, self.n_pairs), "B": self.B,
                "seeds": len(self.seeds), "max steps": self.max_steps, "readings": len(self.readings)}


UNSAID_RECALL_GRIDS = {
    "smoke": UnsaidRecallGrid(model={"d_model": 32, "d_qk": 8, "n_layers": 2, "n_heads": 2}, lr=3e-3, n_tokens=8,
                              n_pairs=3, B=(1, 2), seeds=(0, 1), threshold=0.5, stop_factor=1.5, max_steps=400,
                              eval_size=128, readings=("book", "zero_kept")),
    # Table 1's recall model as chapter 4's Figure 5 runs it (its B = 1 runs crossed 50% within 10,000 steps), seeds
    # never used there; a run stops at 1.5x its 50% crossing (the crossing is the same as in a longer run), and a
    # test set with absences caps accuracy near 66%, so the budget is 30,000 steps.
    "paper_cpu": UnsaidRecallGrid(model={"d_model": 256, "d_qk": 64, "n_layers": 4, "n_heads": 4}, lr=1e-4,
                                  n_tokens=64, n_pairs=8, B=(1, 4), seeds=(10, 11, 12, 13), threshold=0.5,
                                  stop_factor=1.5, max_steps=30_000, eval_size=512,
                                  readings=tuple(k for k, _, _ in RECALL_READINGS)),
}


@dataclass(frozen=True)
class UnsaidRecall(ScaledFigure):
    """One sweep per recall reading: its seeds at both B, in the order of `RECALL_READINGS`."""

    name: ClassVar[str] = "What the paper leaves unsaid (recall)"
    GRIDS: ClassVar[dict[str, UnsaidRecallGrid]] = UNSAID_RECALL_GRIDS
    ORDERED: ClassVar[bool] = True
    BACKGROUND: ClassVar[bool] = True

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        g = self.grid
        fields = {k: f for k, _, f in RECALL_READINGS}
        return {key: [TransformerRecallConfig(n_tokens=g.n_tokens, n_pairs=g.n_pairs, B=B, seed=s, lr=g.lr,
                                              threshold=g.threshold, stop_factor=g.stop_factor, max_steps=g.max_steps,
                                              eval_size=g.eval_size, **g.model, **fields[key])
                      for B in g.B for s in g.seeds] for key in g.readings}
