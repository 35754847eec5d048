"""What a chapter hands its show functions: one `Context` with the scale, the device and the tolerances.

    ctx = experiments.chapter_context(scale, device, confirm_cost)   # a chapter's first code cell
    figure = experiments.Figure3(scale=scale)
    results = ctx.run(figure)                                        # missing runs train on ctx.device
    tables = show.figure3_tables(results, figure)
    f3 = show.figure3(tables, figure)                                # a view
    t1 = show.table1_settings(tables, ctx)                           # a view that judges claims takes ctx, last
    checked = [ctx.record_fit("figure3.d_exponent", f3.fit, "d")]   # a claim judged at ctx.scale
    assert f3.fit.r2 > ctx.tolerance(smoke=0.8, otherwise=0.9)

The scale decides which grid a figure runs (its config), whether claims are judged (`claims.record`) and how
strict a chapter's own assertions are (`tolerance`); the device is where missing runs train, a name resolved once,
where the work starts (`base.FigureConfig.run`, `sweep.run_sweep`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .. import claims
from ..configs import ConfigError, Scale, check_scale
from ..devices import check_device_name
from ..metrics import PowerLawFit
from ..sweep import SweepResult, run_sweep
from .base import FigureConfig, cache_for, confirm_long_work


@dataclass(frozen=True)
class Context:
    """A chapter's run: its ``scale``, where missing runs train (``device``), and whether a long run on a CPU may
    start without asking (``confirm_cost``)."""

    scale: Scale
    device: str = "auto"
    confirm_cost: bool = False

    def __post_init__(self) -> None:
        check_scale(self.scale)
        check_device_name(self.device)
        if not isinstance(self.confirm_cost, bool):
            raise ConfigError(f"confirm_cost must be True or False, got {self.confirm_cost!r}")

    @property
    def smoke(self) -> bool:
        """Seconds-long runs for the tests: too short for a law, a level or a pattern, so some checks are skipped."""
        return self.scale == "smoke"

    def tolerance(self, smoke: float, otherwise: float) -> float:
        """A chapter assertion's bar: looser at the smoke scale, whose runs are tiny."""
        return smoke if self.smoke else otherwise

    def record(self, key: str, ours: float, interval: tuple[float, float] | None = None,
               registered: tuple[float, float, float] | None = None) -> claims.ClaimResult:
        """Judge registered claim ``key`` on our value (and its 95% interval, for an interval rule) at this scale;
        ``registered``: (ours, low, high) under the rule as registered, for a claim amended after its data."""
        return claims.record(key, ours, self.scale, interval=interval, registered=registered)

    def record_fit(self, key: str, fit: PowerLawFit, quantity: str) -> claims.ClaimResult:
        """Judge claim ``key`` on a fitted power law's ``quantity`` (an exponent, "C"), with its 95% interval."""
        return claims.record_fit(key, fit, quantity, self.scale)

    def run(self, figure: FigureConfig, progress: bool = True) -> dict[str, SweepResult]:
        """The figure's sweeps, from the scale's cache where stored; missing runs train on the device."""
        if figure.scale != self.scale:
            raise ConfigError(f"{figure.name} is at scale {figure.scale!r}, this chapter at {self.scale!r}")
        return figure.run(progress=progress, device=self.device, confirm_cost=self.confirm_cost)

    def sweep(self, configs: Sequence[Any]) -> SweepResult:
        """Runs outside a figure's own sweeps (e.g. a subset another chapter's figure stores), through the scale's
        cache, one after another, without a progress bar."""
        return run_sweep(configs, cache_for(self.scale), progress=False, device=self.device, executor="serial",
                         confirm_cost=self.confirm_cost, check_host=self.scale != "smoke")


def chapter_context(scale: Scale, device: str = "auto", confirm_cost: bool = False) -> Context:
    """A chapter's first step: its parameters checked before any compute (papermill's unknown ``-p NAME``, the
    scale, the device's name, ``confirm_cost``), the book's plot style set, and its `Context`."""
    from .. import plotting
    from ..notebooks import refuse_unknown_parameters

    refuse_unknown_parameters()  # under papermill: -p NAME for a NAME not in the parameters cell stops here
    ctx = Context(scale, device, confirm_cost)
    confirm_long_work(confirm_cost)  # also for figures a chapter runs without its context (e.g. a helper's)
    plotting.use_book_style()
    return ctx

