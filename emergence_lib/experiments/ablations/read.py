"""Readers of Figures 13-15 (the Transformer ablations): tidy tables from sweep results."""

from __future__ import annotations


import pandas as pd

from ...metrics import PowerLawFit, fit_power_law, mean_over_seeds
from ...sweep import SweepResult
from ...tasks import SingleLocationRegression



def seed_means(result: SweepResult, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """Seed-averaged plateau table of a sweep, grouped by (d, T) and ``extra`` columns."""
    return mean_over_seeds(result.summary, ["d", "T", *extra])


def figure13_fit(results: dict[str, SweepResult]) -> tuple[pd.DataFrame, PowerLawFit]:
    """Seed means per (layers, heads, d, T) and the joint fit C·d^α·T^β·layers^λ·heads^η."""
    table = seed_means(results["architectures"], ("n_layers", "n_heads")).rename(columns={"n_layers": "layers", "n_heads": "heads"})
    return table, fit_power_law(table, ["d", "T", "layers", "heads"])


def search_table(result: SweepResult) -> pd.DataFrame:
    """Figure 15's lr search: mean plateau per (optimizer, lr), fastest first within each optimizer."""
    table = mean_over_seeds(result.summary, ["optimizer", "lr"])
    return table.sort_values(["optimizer", "plateau_length"]).reset_index(drop=True)


def fixed_position_spread(result: SweepResult) -> pd.DataFrame:
    """Per run of a fixed-position variant: the position its seed drew, its plateau, and that over the seed mean.

    With sinusoidal positions the plateau can depend on where the fixed position falls; each seed draws
    its own (uniform over the T positions), and the figure averages over seeds.
    """
    s = result.summary
    positions = [
        SingleLocationRegression(int(r.T), int(r.d), random_position=False, relevance_feature=bool(r.relevance_feature),
                                 task_seed=int(r.seed)).fixed_position
        for r in s.itertuples()
    ]
    out = s[["d", "T", "seed", "plateau_length"]].assign(position=positions)
    out["plateau / seed mean"] = out["plateau_length"] / out.groupby(["d", "T"])["plateau_length"].transform("mean")
    return out.sort_values(["d", "T", "seed"]).reset_index(drop=True)
