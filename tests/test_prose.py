"""Prose that states a count of results must glue it from the registry or the runs (issue 36 item 8): a typed
"2 of 3 seeds" or "16 claims" goes stale the day a run lands. Settings ("3 seeds a point") are not results and pass."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TYPED_COUNT = re.compile(r"(?<!layer )\b\d+ of \d+\b|\b\d+ (?:claims|verdicts|judged)\b")  # "layer 4 of 4": a model


def typed_counts(markdown: str) -> list[str]:
    """The counts of results typed into ``markdown`` (glued values, ``{glue:text}`…```, are not in the text)."""
    return [m.group(0) for m in TYPED_COUNT.finditer(markdown)]


def _pages() -> dict[str, str]:
    out = {}
    for path in sorted(ROOT.glob("chapters/*.ipynb")) + [ROOT / "intro.ipynb"]:
        nb = json.loads(path.read_text())
        out[path.name] = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for path in sorted(ROOT.glob("*.md")) + sorted(ROOT.glob("chapters/*.md")):
        if path.name != "README.md":
            out[path.name] = path.read_text()
    return out


def test_no_page_types_a_count_of_results():
    found = {name: typed_counts(text) for name, text in _pages().items()}
    assert not {k: v for k, v in found.items() if v}, found


def test_no_claim_text_the_scoreboard_prints_types_a_count_of_results():
    from emergence_lib.claims import CLAIMS

    found = {(c.key, f): typed_counts(getattr(c, f)) for c in CLAIMS for f in ("claim", "paper", "measure", "note")}
    assert not {k: v for k, v in found.items() if v}, found


def test_the_scan_finds_the_counts_it_guards_and_passes_settings():
    assert typed_counts("A5 says 2 of 3 seeds select in layer 4; 16 claims were registered, 46 judged.") == [
        "2 of 3", "16 claims", "46 judged"]
    assert typed_counts("3 seeds a point, 5 seeds each, 81 points for a 5-parameter fit, layer 4 of 4") == []


def test_the_heads_before_layers_sentence_follows_its_number():
    from emergence_lib.experiments.ablations.show import ordering_sentence

    assert ordering_sentence(2.4).startswith("holds here")
    assert "only by 1.0 standard errors" in ordering_sentence(1.0)
    assert ordering_sentence(-0.5).startswith("does not hold")
