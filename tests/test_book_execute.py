"""The book's pages execute two at a time into the cache the build reads (`book_execute`), in an order that lets the
scoreboard and the landing page read what the chapters logged, and a cache filled from other code is never read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace

from emergence_lib import book_execute
from emergence_lib.book_extension import drop_stale_execution_cache

ROOT = Path(__file__).resolve().parent.parent


def test_the_scoreboard_runs_after_every_chapter_and_the_landing_page_last():
    docs = book_execute.notebooks()
    groups = book_execute.phases(docs)
    assert groups[-2:] == [["chapters/scoreboard"], ["intro"]]
    assert sorted(sum(groups, [])) == sorted(docs), "every page once"
    assert "chapters/03_transformer" in groups[0] and "chapters/glossary" not in docs  # markdown pages do not execute


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "book"
    (root / "emergence_lib").mkdir(parents=True)
    (root / "emergence_lib" / "a.py").write_text("x = 1\n")
    (root / "data").mkdir()
    (root / "data" / "run.json").write_text("{}")
    return root


def test_the_fingerprint_moves_with_the_library_and_with_data(tmp_path):
    root = _tree(tmp_path)
    first = book_execute.fingerprint(root)
    assert book_execute.fingerprint(root) == first
    (root / "emergence_lib" / "a.py").write_text("x = 2\n")
    second = book_execute.fingerprint(root)
    assert second != first
    (root / "data" / "new.json").write_text("{}")
    assert book_execute.fingerprint(root) != second


def _config(cache: Path) -> SimpleNamespace:
    return SimpleNamespace(nb_execution_mode="cache", nb_execution_cache_path=str(cache))


def test_a_cache_filled_from_other_code_or_without_its_claims_log_is_emptied(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.setattr(book_execute, "ROOT", root)
    cache, log = tmp_path / "cache", tmp_path / "claims"
    cache.mkdir()
    log.mkdir()
    (log / "a@cpu.json").write_text("{}")
    monkeypatch.setenv("EMERGENCE_CLAIMS_LOG", str(log))
    app = SimpleNamespace(outdir=str(tmp_path / "html"))

    def stamped() -> None:
        cache.mkdir(exist_ok=True)
        (cache / book_execute.STAMP_NAME).write_text(book_execute.fingerprint(root) + "\n")

    stamped()
    drop_stale_execution_cache(app, _config(cache))
    assert cache.exists(), "filled from this code and this data: read"
    (root / "emergence_lib" / "a.py").write_text("x = 3\n")
    drop_stale_execution_cache(app, _config(cache))
    assert not cache.exists(), "the library changed after the fill"
    stamped()
    shutil.rmtree(log)
    drop_stale_execution_cache(app, _config(cache))
    assert not cache.exists(), "the claims log the fill wrote is gone: the scoreboard would read nothing"
    cache.mkdir()
    drop_stale_execution_cache(app, _config(cache))
    assert not cache.exists(), "no stamp at all"
    cache.mkdir()
    drop_stale_execution_cache(app, SimpleNamespace(nb_execution_mode="force", nb_execution_cache_path=str(cache)))
    assert cache.exists(), "other modes never read it: left alone"
    assert os.environ["EMERGENCE_CLAIMS_LOG"] == str(log)
