"""Registration read from git (`registration`): on a small repository made here, and on this one."""

import json
import subprocess

import pytest

from emergence_lib import claims, registration


def _commit(repo, files, message):
    for path, text in files.items():
        f = repo / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], cwd=repo, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    registration.history.cache_clear()
    yield tmp_path
    registration.history.cache_clear()


def test_history_orders_registration_against_data_and_follows_migrations(repo):
    reg = "emergence_lib/claims.py"
    c1 = _commit(repo, {reg: 'X = ("early.claim",)\n', "data/k/old.json": json.dumps({"meta": {}})}, "claim and old data")
    c2 = _commit(repo, {reg: 'X = ("early.claim", "late.claim")\nf"gen.{i}"\n'}, "a later claim, a generated family")
    c3 = _commit(repo, {"data/k/new.json": json.dumps({"meta": {"migrated_from": "old"}}),
                        "data/k/fresh.json": json.dumps({"meta": {}})}, "a migrated run and a fresh one")
    h = registration.history(repo)
    assert h.first_with('"early.claim"') == c1 and h.first_with('"late.claim"') == c2
    assert h.first_with("gen.") == c2
    assert h.added["data/k/new.json"] == c3
    assert h.origin("data/k/new.json") == c1, "a re-keyed run counts from the file it was migrated from"
    assert h.origin("data/k/fresh.json") == c3
    assert h.order[c1] < h.order[c2] < h.order[c3]
    # A claim whose key the source builds in a loop is found by its literal prefix.
    source = (repo / reg).read_text()
    assert registration.needle("gen.abc", source) == "gen."
    assert registration.needle("early.claimx", 'f"early.claim{x}"') == "early.claim", "the f-string's literal part, not a shorter prefix"
    assert registration.needle("late.claim", source) == '"late.claim"'


def test_no_history_says_unknown(tmp_path):
    registration.history.cache_clear()
    assert registration.history(tmp_path) is None  # not a repository
    registration.history.cache_clear()


def test_this_repository_pins_only_claims_registered_after_their_data():
    """A claim registered after its runs existed may carry an expected status (a regression pin), and is labelled;
    a claim that pins nothing (expected None) must have been registered before its runs, by git's account."""
    registration.history.cache_clear()
    table = registration.registration_table()
    if table["registration"].str.startswith("unknown").all():
        pytest.skip("no git history here (a tarball or a shallow clone)")
    by_key = dict(zip(table["claim"], table["registration"]))
    for key, when in by_key.items():
        c = claims.claim(key)
        if c.expected is None:
            assert when in ("before its data", "not yet committed"), (key, when)
    assert by_key["figure1.d_exponent"] == "after its data", "the first registry came after the first runs"
