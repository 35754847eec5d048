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


def test_a_claim_moved_from_the_module_into_the_package_keeps_its_registration(repo):
    """The registry was one module, then a package: a key that the split moves is registered by its first commit in
    the module, and a key first added in the package by that commit. Shown to fail when only the package is read."""
    module, package = registration.REGISTRY_FILES
    c1 = _commit(repo, {module: 'X = ("old.claim",)\n'}, "the module")
    (repo / module).unlink()
    c2 = _commit(repo, {f"{package}/registry.py": 'X = ("old.claim",)\n', f"{package}/measured.py": 'Y = ("new.claim",)\n'},
                 "the split, and a new claim in it")
    h = registration.history(repo)
    assert h.first_with('"old.claim"') == c1, "a move does not re-date a claim"
    assert h.first_with('"new.claim"') == c2
    source = registration.registry_source(repo)
    assert '"old.claim"' in source and '"new.claim"' in source, "the source is every module of the package"
    only_package = registration._git("log", "--reverse", "-p", "--format=>%H", "--", package, root=repo)
    assert f">{c1}" not in only_package, "reading the package alone would date old.claim from the split"


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
            # "partly after": a claim that reads new points beside runs that existed (named in its ``reads``).
            assert when in ("before its data", "not yet committed") or (when == "partly after its data" and c.reads), (key, when)
    assert by_key["figure1.d_exponent"] == "after its data", "the first registry came after the first runs"


def test_a_claim_is_judged_against_the_runs_it_reads(repo):
    """Per claim: its own runs decide, and a claim reading old runs beside new ones is 'partly after' (never 'before');
    a claim without runs of its own keeps the chapter's first-run rule."""
    reg = "emergence_lib/claims.py"
    c_old = _commit(repo, {"data/k/old.json": "{}"}, "an old run")
    c_reg = _commit(repo, {reg: 'X = ("new.claim",)\n'}, "the claim")
    c_new = _commit(repo, {"data/k/new.json": "{}"}, "a new run")
    h = registration.history(repo)
    v = registration.order_verdict
    assert v(h, c_reg, [h.origin("data/k/new.json")]) == "before its data", "only its own (new) run"
    assert v(h, c_reg, [c_old, c_new]) == "partly after its data"
    assert v(h, c_reg, [c_old], later=1) == "partly after its data", "a run not stored yet comes after"
    assert v(h, c_reg, [c_old]) == "after its data"
    assert v(h, c_reg, [c_old, c_new], exact=False) == "after its data", "the chapter-level rule: the first run"
    assert v(h, c_reg, []) == "before its data" and v(h, None, [c_old]) == "not yet committed"
    assert v(h, c_new, [c_new]) == "with its data"


def test_the_measured_claims_read_their_own_points():
    """The claims registered before the runs where the paper measured name exactly their points' sweeps."""
    c = claims.claim("table1.measured.T256_d16_B1")
    assert c.reads == ("figure3_measured:T256_d16_B1",)
    paths = registration.claim_run_paths(c)
    assert len(paths) == 3 and all(p.startswith("data/transformer_regression/") for p in paths)
    assert len(registration.claim_run_paths(claims.claim("table1.measured.T_exponent"))) > 3 * 6


def test_a_result_seen_before_registration_makes_its_claims_partly_after_their_data():
    """(256, 16) seed 0 was published by a one-seed probe before Table 1's claims where the paper measured were
    registered (issue 52 item 6); git cannot see that, so `KNOWN_EARLY` names it and every claim reading it says so."""
    from emergence_lib import registration
    from emergence_lib.claims import CLAIMS

    table = registration.registration_table().set_index("claim")["registration"]
    readers = [c.key for c in CLAIMS if "figure3_measured:T256_d16_B1" in c.reads]
    assert "table1.measured.T256_d16_B1" in readers
    assert all(table[k] != "before its data" for k in readers), {k: table[k] for k in readers}
