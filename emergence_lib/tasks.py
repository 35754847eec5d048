"""Task samplers for the Transformer experiments.

`SingleLocationRegression` (paper §2.4, App. B.1): tokens x_t ~ N(0, I/d); the
target is y* = W* x_rel for the token at one *relevant position*, drawn at
random for every sequence (or fixed for a whole run, Fig. 14) and marked by an
extra 0/1 input feature (which Fig. 14 can remove).

* In-context repetition: the relevant token appears at B distinct random
  positions, each flagged.
* Cross-sample repetition: with probability p the relevant token is a fixed
  unit-norm token x̃ (all its copies).
* W* has N(0, 1/d) entries, rescaled by default to ||W*||²_F = d.

Everything is drawn from explicit generators, so that the task (W*, x̃, a fixed
position) depends only on ``task_seed`` and a data stream only on its own seed.
Several independent tasks (one per training seed) can be sampled at once:
tensors then carry a leading "ensemble" dimension E.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .configs import check_solvable, check_task


@dataclass(frozen=True)
class SingleLocationRegression:
    """The task of one training seed. ``input_dim`` is d + 1 with the relevance feature, d without."""

    T: int
    d: int
    B: int = 1
    p: float = 0.0
    random_position: bool = True
    relevance_feature: bool = True
    normalise_target: bool = True
    task_seed: int = 0

    def __post_init__(self) -> None:
        check_task(self)
        check_solvable(self.random_position, self.relevance_feature)
        g = torch.Generator().manual_seed(1_000_003 * self.task_seed + 17)
        w_star = torch.randn(self.d, self.d, generator=g) / np.sqrt(self.d)  # entries N(0, 1/d)
        if self.normalise_target:
            # ||W*||²_F = d exactly, so the plateau (½||W*||²/d) is ½ for every seed. At small d a raw
            # Gaussian W* puts it anywhere in ~0.3–0.55, below the 0.4 threshold for some seeds.
            w_star = w_star * np.sqrt(self.d) / w_star.norm()
        x_tilde = torch.randn(self.d, generator=g)
        position = int(torch.randint(self.T, (1,), generator=g))
        object.__setattr__(self, "_w_star", w_star)
        object.__setattr__(self, "_x_tilde", x_tilde / x_tilde.norm())  # unit norm
        object.__setattr__(self, "_position", position)

    @property
    def input_dim(self) -> int:
        return self.d + 1 if self.relevance_feature else self.d

    @property
    def w_star(self) -> torch.Tensor:  # (d, d)
        return self._w_star  # type: ignore[attr-defined]

    @property
    def x_tilde(self) -> torch.Tensor:  # (d,), unit norm
        return self._x_tilde  # type: ignore[attr-defined]

    @property
    def fixed_position(self) -> int:
        """The relevant position of a run with ``random_position=False``."""
        return self._position  # type: ignore[attr-defined]

    def shortcut_loss(self, p: float | None = None) -> float:
        """Loss without repetition of the best *constant* prediction under training repetition p.

        Without attending to anything, the best a model can do on the training
        data is to output the mean target p·W*x̃; on data without repetition that
        costs ½(||W*||²/d + p²||W*x̃||²) instead of the plateau's ½||W*||²/d.
        """
        p = self.p if p is None else p
        return 0.5 * (float(self.w_star.pow(2).sum()) / self.d + p**2 * float((self.w_star @ self.x_tilde).pow(2).sum()))

    def sample(
        self, n: int, generator: torch.Generator, B: int | None = None, p: float | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """n sequences: inputs (n, T, input_dim), targets (n, d) and the relevance mask (n, T).

        ``B`` and ``p`` override the task's (e.g. B = 1, p = 0 for data without repetition).
        """
        B = self.B if B is None else B
        p = self.p if p is None else p
        T, d = self.T, self.d
        x = torch.randn(n, T, d, generator=generator) / np.sqrt(d)  # (n, T, d)
        relevant = x[:, 0, :].clone()  # (n, d): the relevant token (before any swap)
        if p > 0:
            swap = torch.rand(n, generator=generator) < p
            relevant[swap] = self.x_tilde
        if self.random_position:
            positions = torch.rand(n, T, generator=generator).argsort(dim=1)[:, :B]  # (n, B) distinct
        else:
            others = torch.rand(n, T, generator=generator)
            others[:, self.fixed_position] = -1.0  # the fixed position always comes first
            positions = others.argsort(dim=1)[:, :B]
        mask = torch.zeros(n, T, dtype=torch.bool)
        mask.scatter_(1, positions, True)
        x = torch.where(mask[..., None], relevant[:, None, :], x)
        if self.relevance_feature:
            x = torch.cat([x, mask[..., None].to(x.dtype)], dim=-1)  # (n, T, d + 1)
        y = relevant @ self.w_star.T  # (n, d)
        return x, y, mask


def sample_ensemble(
    tasks: list[SingleLocationRegression], n: int, generators: list[torch.Generator], **overrides
) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch per task, stacked: inputs (E, n, T, input_dim) and targets (E, n, d)."""
    batches = [task.sample(n, g, **overrides) for task, g in zip(tasks, generators)]
    return torch.stack([b[0] for b in batches]), torch.stack([b[1] for b in batches])
