"""When each claim was registered, against when the runs that judge it first existed: read from git, never by hand.

A claim is *registered* by the first commit whose change to the registry (`REGISTRY_FILES`: the module
``emergence_lib/claims.py`` until it was split, then the package ``emergence_lib/claims/``) adds a line holding its
key (or, for keys the registry builds in a loop, the literal prefix it builds them from). Moving a claim between
those files adds its line again later, never earlier, so a move keeps its registration. Its *data* first exists in the
first commit that adds a stored run it reads (`claim_run_paths`); a run
re-keyed by a migration counts from the commit that added the file it was migrated from (``meta.migrated_from``).
Order is the commits' order in the history (``git rev-list --topo-order``), not their clocks.

* ``before its data``: registered in an earlier commit than any of its runs (or no run is stored yet);
* ``with its data``: the same commit added both;
* ``after its data``: the runs were committed first. Such a claim's expected status is a regression pin, not a
  test (see the methods page);
* ``partly after its data``: some of the runs it reads existed before it, others came after (a claim that reads
  new points beside old ones).

A claim's runs are the sweeps its ``reads`` names (`claims.Claim.reads`); a claim that names none reads every run
of its chapter's figures at its scale.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from .configs import Scale

ROOT = Path(__file__).resolve().parent.parent
# The registry's files over its history: one module, then a package of modules (the split moved lines, so the first
# commit that added a key, in either, is its registration).
REGISTRY_FILES = ("emergence_lib/claims.py", "emergence_lib/claims")


def registry_source(root: Path = ROOT) -> str:
    """The registry's source as it stands: the module, or every module of the package."""
    files = [root / REGISTRY_FILES[0]] + sorted((root / REGISTRY_FILES[1]).glob("*.py"))
    return "\n".join(f.read_text() for f in files if f.is_file())


def _git(*args: str, root: Path = ROOT) -> str | None:
    """git's output, or None where there is no git or no history (a tarball of the book)."""
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout


@dataclass(frozen=True)
class History:
    order: dict[str, int]  # commit → its position, oldest first
    added: dict[str, str]  # data file path → the first commit that added it
    key_lines: list[tuple[str, str]]  # (commit, added line of the registry file), oldest first
    root: Path

    def first_with(self, needle: str) -> str | None:
        return next((c for c, line in self.key_lines if needle in line), None)

    def origin(self, path: str, depth: int = 0) -> str | None:
        """The first commit that added this stored run, following ``meta.migrated_from`` back through re-keyings."""
        first = self.added.get(path)
        if first is None or depth > 5:
            return first
        # The meta as committed (a migration writes migrated_from once): the working file where it exists (fast),
        # else the version that commit added.
        local = self.root / path
        text = local.read_text() if depth == 0 and local.is_file() else _git("show", f"{first}:{path}", root=self.root)
        try:
            old = json.loads(text or "{}").get("meta", {}).get("migrated_from")
        except ValueError:
            old = None
        if not old:
            return first
        earlier = self.origin(str(Path(path).with_name(f"{old}.json")), depth + 1)
        return min((c for c in (first, earlier) if c is not None), key=self.order.__getitem__)


@lru_cache(maxsize=4)
def history(root: Path = ROOT) -> History | None:
    revs = _git("rev-list", "--topo-order", "--reverse", "HEAD", root=root)
    if not revs or (_git("rev-parse", "--is-shallow-repository", root=root) or "").strip() == "true":
        return None  # no history, or a shallow clone whose first commits are missing: nothing can be said
    order = {c: i for i, c in enumerate(revs.split())}
    added: dict[str, str] = {}
    log = _git("log", "--diff-filter=A", "--format=>%H", "--name-only", "--", "data", root=root) or ""
    commit = ""
    for line in log.splitlines():  # newest first: the last commit seen for a path is its first add
        if line.startswith(">"):
            commit = line[1:]
        elif line.strip():
            added[line.strip()] = commit
    patch = _git("log", "--reverse", "--topo-order", "-p", "--format=>%H", "--", *REGISTRY_FILES, root=root) or ""
    key_lines, commit = [], ""
    for line in patch.splitlines():
        if line.startswith(">"):
            commit = line[1:]
        elif line.startswith("+") and not line.startswith("+++"):
            key_lines.append((commit, line))
    return History(order, added, key_lines, root)


def needle(key: str, registry_source: str) -> str:
    """What marks the claim's registration in the registry's source: its quoted key, or, for a key built in a
    loop, the literal part of the f-string that builds it."""
    if f'"{key}"' in registry_source:
        return f'"{key}"'
    shortest = len(key.split(".")[0]) + 1
    for n in range(len(key) - 1, shortest - 1, -1):  # the f-string that builds it: f"figure14.d_exponent_{slug}"
        if f'f"{key[:n]}{{' in registry_source:
            return key[:n]
    return key


def run_paths(chapter: str, scale: Scale) -> list[str]:
    """The stored-run paths (relative to the repository) that a claim of ``chapter`` at ``scale`` reads."""
    from .cache import ResultCache
    from .claims import CHAPTER_FIGURES
    from .experiments import figures

    cache = ResultCache(ROOT / "data")
    out = set()
    for name in CHAPTER_FIGURES.get(chapter, ()):
        cls = figures()[name]
        if cls.has_scale(scale):
            out |= {str(cache.path(r).relative_to(ROOT)) for r in cls(scale=scale).runs()}
    return sorted(out)


def claim_run_paths(claim) -> list[str]:
    """The stored-run paths a claim reads: the sweeps its ``reads`` names ("figure:sweep", at the claim's scale), or
    every run of its chapter's figures at its scale where it names none (`run_paths`)."""
    if not claim.reads:
        return run_paths(claim.chapter, claim.scale)
    from .cache import ResultCache
    from .experiments import figures

    cache = ResultCache(ROOT / "data")
    out = set()
    for entry in claim.reads:
        name, sweep = entry.split(":")
        out |= {str(cache.path(r).relative_to(ROOT)) for r in figures()[name](scale=claim.scale).sweeps()[sweep]}
    return sorted(out)


def order_verdict(h: History, reg: str | None, origins: list[str], later: int = 0, exact: bool = True) -> str:
    """How a registration commit stands to the first commits of a claim's stored runs (``origins``; ``later``: how
    many of its runs are not stored yet, so come after it): before all of them, with the first, after all of them,
    or partly after (some runs it reads existed before it, others came after). Without ``exact`` (a claim that
    names no runs of its own, so its chapter's are read) only the first run counts: before or after it."""
    if reg is None:
        return "not yet committed"
    if not origins:
        return "before its data"
    first = min(origins, key=h.order.__getitem__)
    if reg == first:
        return "with its data"
    before = [o for o in origins if h.order[o] < h.order[reg]]
    if not before:
        return "before its data"
    if not exact:
        return "after its data"
    return "after its data" if len(before) == len(origins) and not later else "partly after its data"


# Runs whose result was seen before the claims that read them were registered, though the stored run came later: git
# cannot see it, so it is named here. Such a claim reads "partly after its data", never "before its data".
KNOWN_EARLY: dict[str, str] = {
    "figure3_measured:T256_d16_B1": "an earlier one-seed probe published seed 0's plateau (1.70x the paper's law) "
                                    "before the claims on Table 1's model where the paper measured were registered",
}


def registration_table(root: Path = ROOT) -> pd.DataFrame:
    """One row per computed claim: its registering commit, the first commit of its data, and the order of the two."""
    from .claims import CLAIMS

    cols = ["claim", "registered in", "data first in", "registration"]
    h = history(root)
    source = registry_source(root)
    rows = []
    data_first: dict[tuple, list[str]] = {}  # (chapter, scale, reads) → the first commits of its stored runs
    unstored: dict[tuple, int] = {}  # … and how many of its runs no commit holds yet
    for c in CLAIMS:
        if c.chapter is None:
            continue
        if h is None:
            rows.append({"claim": c.key, "registered in": "", "data first in": "", "registration": "unknown (no git history)"})
            continue
        reg = h.first_with(needle(c.key, source))
        which = (c.chapter, c.scale, c.reads)
        if which not in data_first:
            paths = claim_run_paths(c)
            data_first[which] = [o for o in (h.origin(p) for p in paths) if o is not None]
            unstored[which] = len(paths) - len(data_first[which])
        origins = data_first[which]
        data = min(origins, key=h.order.__getitem__) if origins else None
        verdict = order_verdict(h, reg, origins, unstored[which], exact=bool(c.reads))
        if verdict == "before its data" and set(c.reads) & set(KNOWN_EARLY):
            verdict = "partly after its data"  # a result it reads was seen before it was registered (KNOWN_EARLY)
        rows.append({"claim": c.key, "registered in": (reg or "")[:7], "data first in": (data or "")[:7],
                     "registration": verdict})
    return pd.DataFrame(rows, columns=cols)
