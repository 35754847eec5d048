"""Shared fixtures. The test tiers are set in the repository's conftest.py."""

import os

import pytest

# Where `make test` has run the smoke chapters before the integration tier (`make notebooks`' scratch cache).
NOTEBOOKS_CACHE_ENV = "EMERGENCE_NOTEBOOKS_CACHE"


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """Point the library's default cache at a fresh folder (never the repository's data/)."""
    d = tmp_path / "data"
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(d))
    return d


@pytest.fixture
def notebooks_smoke_cache(monkeypatch):
    """A test that runs a smoke grid a chapter also runs reads the smoke chapters' scratch cache, where `make test` ran
    them first (the same code, in the same command: runs keyed by config and kind version), instead of training the
    same runs again; alone, it trains them. Returns the folder, or None."""
    shared = os.environ.get(NOTEBOOKS_CACHE_ENV)
    if shared and os.path.isdir(shared):
        monkeypatch.setenv("EMERGENCE_SMOKE_CACHE", shared)
        return shared
    return None
