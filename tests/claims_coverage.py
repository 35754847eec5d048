"""Which claims each chapter records, read from the chapters' source and the show functions they call: the test
helpers behind `test_claims.py`'s coverage checks (source scanning belongs to the tests, not the library)."""

from __future__ import annotations

import re

from emergence_lib.claims import CHAPTER_FIGURES, REGISTRY, claims_of


def recorded_in_source(chapter_source: str) -> set[str]:
    """The claim keys a chapter's code hands to `record` (read from its source: literal keys and f-string patterns)."""
    keys = set(re.findall(r"(?:claims|ctx)\.record(?:_fit)?\(\s*\"([^\"]+)\"", chapter_source))
    for pattern in re.findall(r"(?:claims|ctx)\.record(?:_fit)?\(\s*f\"([^\"]+)\"", chapter_source):
        rx = re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "[^.]+", re.escape(pattern)) + "$")
        keys |= {k for k in REGISTRY if rx.match(k)}
    return keys


def show_sources(chapter_source: str) -> str:
    """The source of every `show` function a chapter calls (``from emergence_lib.experiments.G import show`` and
    ``show.f(...)``), read from the files with ``ast``: a chapter's claims may be recorded by the functions that
    draw its figures."""
    import ast
    from pathlib import Path

    import emergence_lib

    folder = Path(emergence_lib.__file__).resolve().parent / "experiments"
    out = []
    for group, names in re.findall(r"from emergence_lib\.experiments\.(\w+) import ([\w ,]+)", chapter_source):
        imported = {n.split(" as ")[0].strip(): n.split(" as ")[-1].strip() for n in names.split(",")}
        if "show" not in imported:
            continue
        alias = imported["show"]  # ``import show as table1``: the chapter calls table1.f(...)
        text = (folder / group / "show.py").read_text()
        called = set(re.findall(rf"\b{alias}\.(\w+)\(", chapter_source))
        out += [ast.get_source_segment(text, node) or "" for node in ast.parse(text).body
                if isinstance(node, ast.FunctionDef) and node.name in called]
    return "\n".join(out)


def registry_coverage(chapters_dir: str | None = None) -> list[tuple[str, list[str], list[str]]]:
    """Per chapter: (chapter, claims registered for it but not recorded, claims recorded but registered elsewhere)."""
    import json
    from pathlib import Path

    folder = Path(chapters_dir) if chapters_dir else Path(__file__).resolve().parent.parent / "chapters"
    out = []
    for chapter in CHAPTER_FIGURES:
        nb = json.loads((folder / f"{chapter}.ipynb").read_text())
        source = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        recorded = recorded_in_source(source + "\n" + show_sources(source))
        registered = {c.key for c in claims_of(chapter)}
        out.append((chapter, sorted(registered - recorded), sorted(recorded - registered)))
    return out
