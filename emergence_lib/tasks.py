"""Task samplers for the Transformer experiments.

`SingleLocationRegression` (paper §2.4, App. B.1): tokens x_t ~ N(0, I/d); the
target is y* = W* x_rel for the token at one *relevant position*, drawn at
random for every sequence (or fixed for a whole run, Fig. 14) and marked by an
extra 0/1 input feature (which Fig. 14 can remove).

* The relevant token is drawn independently of the T irrelevant ones and
  occurs exactly B times, only at the flagged positions (or the fixed one);
  tests/test_samplers.py checks this by counting, from the output alone.
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

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import torch

from .configs import RecallTask, RegressionTask


@dataclass(frozen=True)
class SingleLocationRegression(RegressionTask):
    """The task of one training seed (a run config's `configs.RegressionTask` fields and a seed).
    ``input_dim`` is d + 1 with the relevance feature, d without."""

    task_seed: int = 0
    # The model's inputs are the tokens × token_gain (√d: the N(0, I) reading of `readings`); the target is computed
    # from the token before the gain, so the loss still starts at ½ whatever the gain.
    token_gain: float = 1.0
    flag_gain: float = 1.0  # the relevance feature is 0/flag_gain (the relevance_gain reading of `readings`)

    def __post_init__(self) -> None:
        self.check_task()

    @cached_property
    def _drawn(self) -> tuple[torch.Tensor, torch.Tensor, int]:
        """(W*, x̃, the fixed position), drawn in this order from the task seed's generator."""
        g = torch.Generator().manual_seed(1_000_003 * self.task_seed + 17)
        w_star = torch.randn(self.d, self.d, generator=g) / np.sqrt(self.d)  # entries N(0, 1/d)
        if self.normalise_target:
            # ||W*||²_F = d exactly, so the plateau (½||W*||²/d) is ½ for every seed. At small d a raw
            # Gaussian W* puts it anywhere in ~0.3–0.55, below the 0.4 threshold for some seeds.
            w_star = w_star * np.sqrt(self.d) / w_star.norm()
        x_tilde = torch.randn(self.d, generator=g)
        position = int(torch.randint(self.T, (1,), generator=g))
        return w_star, x_tilde / x_tilde.norm(), position  # x̃ with unit norm

    @property
    def input_dim(self) -> int:
        return self.d + 1 if self.relevance_feature else self.d

    @property
    def w_star(self) -> torch.Tensor:  # (d, d)
        return self._drawn[0]

    @property
    def x_tilde(self) -> torch.Tensor:  # (d,), unit norm
        return self._drawn[1]

    @property
    def fixed_position(self) -> int:
        """The relevant position of a run with ``random_position=False``."""
        return self._drawn[2]

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
        x = torch.randn(n, T, d, generator=generator) / np.sqrt(d)  # (n, T, d): the irrelevant tokens
        # The relevant token is a draw of its own. (Taking a row of x, as an earlier version did, left an
        # unflagged copy of it at that row's position whenever the flagged positions missed it.)
        relevant = torch.randn(n, d, generator=generator) / np.sqrt(d)  # (n, d)
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
        y = relevant @ self.w_star.T  # (n, d)
        if self.token_gain != 1.0:
            x = x * self.token_gain
        if self.relevance_feature:
            flag = mask[..., None].to(x.dtype) * self.flag_gain  # 0/1 at any token gain; 0/flag_gain
            x = torch.cat([x, flag], dim=-1)  # (n, T, d + 1)
        return x, y, mask


_SAMPLERS: dict[int, ThreadPoolExecutor] = {}


def sample_ensemble(
    tasks: list[SingleLocationRegression], n: int, generators: list[torch.Generator],
    per_member: list[dict] | None = None, return_mask: bool = False, threads: int = 1, **overrides
) -> tuple[torch.Tensor, ...]:
    """One batch per task, stacked: inputs (E, n, T, input_dim) and targets (E, n, d) (and the masks (E, n, T)).

    ``overrides`` (B, p) apply to every task; ``per_member`` gives each task its own (a schedule's B(t), p(t)).
    ``threads`` > 1 draws the members side by side (a GPU run's batched seeds, whose CPU sampling is its slowest
    part at T = 256): each member draws from its own generator, so the batches are the same whatever the threads do.
    """
    member = per_member or [{}] * len(tasks)
    jobs = list(zip(tasks, generators, member))
    if threads > 1 and len(jobs) > 1:
        if threads not in _SAMPLERS:
            _SAMPLERS[threads] = ThreadPoolExecutor(max_workers=threads)
        pool = _SAMPLERS[threads]
        batches = list(pool.map(lambda job: job[0].sample(n, job[1], **(overrides | job[2])), jobs))
    else:
        batches = [task.sample(n, g, **(overrides | m)) for task, g, m in jobs]
    out = torch.stack([b[0] for b in batches]), torch.stack([b[1] for b in batches])
    return (*out, torch.stack([b[2] for b in batches])) if return_mask else out


@dataclass(frozen=True)
class RecallBatch:
    """A batch of associative-recall sequences.

    tokens (n, 2·n_pairs + 1): key₁ value₁ … key_N value_N query;
    target (n,): the query's value; query_slots (n, n_pairs): slots whose key is the query.
    """

    tokens: torch.Tensor
    target: torch.Tensor
    query_slots: torch.Tensor

    def to(self, device: str) -> "RecallBatch":
        return RecallBatch(self.tokens.to(device), self.target.to(device), self.query_slots.to(device))


@dataclass(frozen=True)
class AssociativeRecallTask(RecallTask):
    """In-context associative recall (paper App. C.1), the task of one training seed.

    * The query distribution is fixed at creation: ``n_repeated`` (2) tokens,
      drawn once from ``task_seed``, share probability p; otherwise the query is
      uniform over the vocabulary.
    * Every sequence draws a fresh permutation of the vocabulary as its key → value map.
    * Each of the n_pairs slots holds the query key with probability B/n_pairs;
      the other keys are distinct tokens drawn without replacement from the
      n_tokens − 1 others, each followed by its value.

    Zero occurrences (the book's reading, the spec's recommendation, §3.3): with B = 1,
    and in test data, the query is placed in exactly one uniformly random slot;
    with B > 1 a sequence whose Bernoulli draws give no occurrence is redrawn, so
    the mean count is B / (1 − (1 − B/n_pairs)^n_pairs) (`mean_query_count`).
    The other readings (``zero_occurrences="kept"``, ``test_set="bernoulli"``) keep
    such sequences; `mean_query_count` and `repeated_value_share` describe the book's.
    """

    task_seed: int = 0

    def __post_init__(self) -> None:
        self.check_task()

    @cached_property
    def _drawn(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(the repeated tokens, the query distribution), from the task seed's generator."""
        g = torch.Generator().manual_seed(1_000_003 * self.task_seed + 29)
        repeated = torch.randperm(self.n_tokens, generator=g)[: self.n_repeated]
        probs = torch.full((self.n_tokens,), (1 - self.p) / self.n_tokens, dtype=torch.float64)
        probs[repeated] += self.p / self.n_repeated
        return repeated.sort().values, probs

    @property
    def seq_len(self) -> int:
        return 2 * self.n_pairs + 1

    @property
    def repeated_tokens(self) -> torch.Tensor:  # (n_repeated,)
        return self._drawn[0]

    @property
    def query_probs(self) -> torch.Tensor:  # (n_tokens,), sums to 1
        return self._drawn[1]

    def mean_query_count(self, B: int | None = None) -> float:
        """Expected number of query occurrences per sequence under the zero-redraw rule."""
        B = self.B if B is None else B
        if B == 1:
            return 1.0
        q = B / self.n_pairs
        return B / (1 - (1 - q) ** self.n_pairs)

    def repeated_value_share(self, B: int | None = None) -> float:
        """The share of training sequences whose only repeated value is the query's: the other keys are distinct,
        so a value occurs twice exactly when the query does. A model that answers with the repeated value solves these
        without reading the query. P(count ≥ 2 | count ≥ 1) under the zero-redraw rule; 0 at B = 1."""
        B = self.B if B is None else B
        if B == 1:
            return 0.0
        q, N = B / self.n_pairs, self.n_pairs
        none, one = (1 - q) ** N, N * q * (1 - q) ** (N - 1)
        return (1 - none - one) / (1 - none)

    def sample(self, n: int, generator: torch.Generator, B: int | None = None, p: float | None = None,
               test: bool = False) -> RecallBatch:
        """n sequences from the training distribution, or with B and p overridden (test: B = 1, p = 0, ``test``:
        the test set's rule for the query's slots, `RecallTask.test_set`)."""
        rule = self.test_set if test else self.zero_occurrences  # once/redraw: the book's; kept/bernoulli: absences kept
        B = self.B if B is None else B
        p = self.p if p is None else p
        V, N = self.n_tokens, self.n_pairs
        values_of = torch.rand(n, V, generator=generator).argsort(dim=1)  # (n, V): a permutation per sequence
        if p == self.p:
            probs = self.query_probs
        else:
            probs = torch.full((V,), (1 - p) / V, dtype=torch.float64)
            probs[self.repeated_tokens] += p / self.n_repeated
        query = torch.multinomial(probs.float(), n, replacement=True, generator=generator)  # (n,)
        if B == 1 and rule in ("redraw", "once"):
            slots = torch.zeros(n, N, dtype=torch.bool)
            slots[torch.arange(n), torch.randint(N, (n,), generator=generator)] = True
        else:
            slots = torch.rand(n, N, generator=generator) < B / N  # (n, N)
            empty = ~slots.any(dim=1) if rule in ("redraw", "once") else torch.zeros(n, dtype=torch.bool)
            while empty.any():  # redraw the sequences with no occurrence
                slots[empty] = torch.rand(int(empty.sum()), N, generator=generator) < B / N
                empty = ~slots.any(dim=1)
        scores = torch.rand(n, V, generator=generator)
        scores[torch.arange(n), query] = 2.0  # the query sorts last: never drawn as another key
        others = scores.argsort(dim=1)[:, :N]  # (n, N) distinct non-query keys
        keys = torch.where(slots, query[:, None], others)  # (n, N)
        values = values_of.gather(1, keys)  # (n, N)
        tokens = torch.cat([torch.stack([keys, values], dim=2).reshape(n, 2 * N), query[:, None]], dim=1)
        return RecallBatch(tokens=tokens, target=values_of[torch.arange(n), query], query_slots=slots)


def sample_recall_ensemble(
    tasks: list[AssociativeRecallTask], n: int, generators: list[torch.Generator],
    per_member: list[dict] | None = None, **overrides
) -> RecallBatch:
    """One batch per task, stacked along a leading ensemble dimension E (``per_member``: as `sample_ensemble`)."""
    member = per_member or [{}] * len(tasks)
    batches = [task.sample(n, g, **(overrides | m)) for task, g, m in zip(tasks, generators, member)]
    return RecallBatch(*(torch.stack([getattr(b, f) for b in batches]) for f in ("tokens", "target", "query_slots")))
