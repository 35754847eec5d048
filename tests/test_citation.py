"""The book is citable (issue 60 item 9): CITATION.cff is valid Citation File Format 1.2 and names this version; the
changelog starts at it; every built page carries its edition (`stamp`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

from emergence_lib import stamp

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.unit


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text())


def test_citation_cff_has_the_fields_cff_1_2_requires_and_well_formed_values():
    cff = _cff()
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert cff.get(key), key
    assert all(isinstance(a, dict) and (a.get("name") or a.get("family-names")) for a in cff["authors"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    assert cff["type"] in ("software", "dataset")
    for ref in cff.get("references", []):
        assert ref["type"] and ref["title"] and ref["authors"], ref


def test_the_citation_the_changelog_and_the_package_name_one_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert str(_cff()["version"]) == version
    first = next(line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## "))
    assert first.startswith(f"## {version} ")
    assert f"v{version}" in (ROOT / "README.md").read_text(), "the README names the tagged version"


def test_the_cited_paper_is_the_one_the_book_reproduces():
    paper = _cff()["references"][0]
    assert "emergence of sparse attention" in paper["title"].lower()
    assert [a["family-names"] for a in paper["authors"]] == ["Zucchet", "D'Angelo", "Lampinen", "Chan"]


def test_the_data_hash_changes_with_any_file_of_data(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.json").write_text("{}")
    before = stamp.data_hash(tmp_path)
    (tmp_path / "a" / "run.json").write_text("{ }")
    assert stamp.data_hash(tmp_path) != before and len(before) == 12


def test_the_edition_line_names_version_date_commit_and_data():
    line = stamp.stamp_line({"version": "0.1.0", "date": "2026-12-07", "commit": "abc", "data": "0123456789ab"})
    assert line == "Version 0.1.0 · built 2026-12-07 · commit abc · data/ SHA-256 0123456789ab"


def test_the_pages_edition_sets_its_commit_and_data_hash_as_code():
    """A commit like 6082872e52 read as e-notation in the browser tier's prose check: identifiers are code."""
    import re

    from emergence_lib.book_extension import add_edition

    context = {"body": "<p>page</p>"}
    add_edition(None, "intro", "page.html", context, None)
    prose = re.sub(r"<code>.*?</code>", "", context["body"])
    assert context["body"].count("<code>") == 2 and not re.search(r"\b\d+(?:\.\d+)?e[-+]?\d+\b", prose)
