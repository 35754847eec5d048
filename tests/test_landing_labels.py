"""The labels a verdict carries wherever it is shown (issue 60 item 6): a knife edge in every table of claims, the
'amended' flag only where the rule as registered would not agree, and the counts split by when they were registered."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from emergence_lib import claims, headlines

pytestmark = pytest.mark.unit


def test_a_knife_edge_is_labelled_in_a_chapters_table_of_claims():
    c = claims.claim("table1.joint.fresh_short.T_exponent")  # judged against 0.80
    edge = claims.ClaimResult(c, 1.03, "inconclusive", (0.81, 1.29))  # 0.01 from 0.80
    clear = claims.ClaimResult(c, 1.03, "inconclusive", (0.85, 1.29))
    assert "on the edge" in edge.row()["status"] and "on the edge" not in clear.row()["status"]


def test_a_band_rules_edge_is_read_on_its_own_scale():
    """The 'moves' rule's bound is 0.2: an interval ending at 0.21 is on the edge, one at 0.5 is not."""
    c = claims.claim("unsaid.positions_none.moves")
    assert c.tolerance.on_the_edge(-0.5, -0.21, None) and not c.tolerance.on_the_edge(-0.9, -0.5, None)
    ratio = claims.claim("table1.collapse.T_over_B")  # the band [0.8, 1.25] in log
    assert ratio.tolerance.on_the_edge(0.9, 1.24, None) and not ratio.tolerance.on_the_edge(0.9, 1.1, None)


def _log(folder, key, status, registered=None, interval=(0.2, 0.5)):
    entry = {"key": key, "scale": "paper_cpu", "ours": 0.35, "status": status, "interval": list(interval)}
    if registered:
        entry["registered_status"] = registered
    (folder / f"{key}@paper_cpu.json").write_text(json.dumps(entry))


def test_the_amended_flag_only_where_the_registered_rule_would_not_agree(tmp_path):
    key = "table1.ablations.figure14.position_cost"
    assert claims.claim(key).amended
    _log(tmp_path, key, "agrees", registered="agrees")
    assert "amended" not in headlines.verdict(claims.claim(key), headlines.logged_entry(claims.claim(key), str(tmp_path)), str(tmp_path))
    _log(tmp_path, key, "agrees", registered="inconclusive")
    assert "amended" in headlines.verdict(claims.claim(key), headlines.logged_entry(claims.claim(key), str(tmp_path)), str(tmp_path))


def test_record_logs_the_registered_rules_verdict_beside_the_amended_one(tmp_path, monkeypatch):
    monkeypatch.setenv(claims.CLAIMS_LOG_ENV, str(tmp_path))
    key = "table1.ablations.figure14.position_cost"
    claims.record(key, 0.36, "paper_cpu", interval=(0.22, 0.49), registered=(0.36, 0.24, 0.47))
    entry = json.loads((tmp_path / f"{key}@paper_cpu.json").read_text())
    assert entry["status"] == entry["registered_status"] == "agrees"


def test_the_counts_split_registered_claims_by_when_their_data_came(tmp_path):
    keys = [c.key for c in claims.CLAIMS if c.expected is None and c.chapter][:3]
    table = pd.DataFrame({"claim": keys, "registration": ["before its data", "partly after its data", "before its data"]})
    line = headlines.counts_line(str(tmp_path), registration=table)
    n_registered = sum(1 for c in claims.CLAIMS if c.expected is None and c.chapter)
    assert f"{n_registered - 1} claims registered before their data" in line
    assert "1 registered partly after their data" in line
