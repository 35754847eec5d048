"""Shared fixtures. The test tiers are set in the repository's conftest.py."""

import pytest


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """Point the library's default cache at a fresh folder (never the repository's data/)."""
    d = tmp_path / "data"
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(d))
    return d
