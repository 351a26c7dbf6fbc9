"""superopt.optimize, RuleDatabase and run: the same numbers the command line reports."""
import os

import numpy as np
import pytest

import superopt
from conftest import REPO

BOTTLENECK = os.path.join(REPO, "data", "graphs", "resnet_bottleneck.json")
FUSED = os.path.join(REPO, "data", "graphs", "fused_matmul.json")


@pytest.fixture(scope="module")
def rules():
    return superopt.RuleDatabase()


def test_rule_database_counts_are_db_info(rules, cli_json):
    info = cli_json("db", "info", rules.path)
    assert len(rules) == sum(rules.counts.values())
    assert rules.counts["verified"] == len(rules.minimal_set)
    assert rules.path == superopt.default_rules()
    assert info["rules"] == len(rules) and info["minimal_set"] == len(rules.minimal_set)
    for status, count in rules.counts.items():
        assert info["status"].get(status, 0) == count


def test_a_rule_is_db_show(rules, cli_json):
    k = rules.minimal_set[0]
    rule = rules.rule(k)
    shown = cli_json("db", "show", rules.path, "--rule", str(k))
    assert rule.status == shown["status"] == "verified"
    assert rule.source.num_operators + rule.target.num_operators == rule.operators
    with pytest.raises(IndexError):
        rules.rule(len(rules))


def test_optimize_reports_what_the_command_reports(rules, cli_json):
    r = superopt.optimize("builtin:squeezenet", rules=rules, time_limit=30)
    expected = cli_json("optimize", "builtin:squeezenet", "--rules", rules.path, "--time-limit", "30")
    for key in ("cost_before", "cost_after", "graph_hash", "rules_applied", "applications", "rules_usable"):
        assert r.report[key] == expected[key], key
    assert r.cost_after_ms < r.cost_before_ms
    assert r.check["passed"]
    assert set(r.phase_seconds) == {"load", "preprocess", "split", "search", "check"}
    assert r.graph.report()["hash"] == expected["graph_hash"] != superopt.load("builtin:squeezenet").report()["hash"]


def test_optimize_options_reach_the_search(rules):
    g = superopt.load(FUSED)
    every = superopt.optimize(g, rules=rules, time_limit=30)
    minimal = superopt.optimize(g, rules=rules, minimal_rules=True, cost="analytic:v100", time_limit=30)
    assert minimal.report["rules_usable"] < every.report["rules_usable"]
    assert minimal.report["cost_model"] != every.report["cost_model"]
    for a, b in zip(every.graph.evaluate(), g.evaluate()):
        np.testing.assert_allclose(a, b, rtol=1e-9)
    greedy = superopt.optimize(g, rules=rules.path, search="sampling", time_limit=30, budget=5)
    assert greedy.report["search"] == "sampling" and greedy.graphs_explored <= 5


def test_run_times_on_the_cpu_and_returns_outputs():
    g = superopt.load(BOTTLENECK)
    t = superopt.run(g, threads=1, repeat=3, warmup=1, check=True)
    assert t.report["repeats"] == 3 and t.median_ms > 0 and t.p10_ms <= t.p90_ms
    assert t.check["passed"]
    assert [o.shape for o in t.outputs] == [shape for _, shape in g.outputs]
    np.testing.assert_array_equal(t.outputs[0], g.evaluate()[0])
    assert superopt.run(g, repeat=1, warmup=0, outputs=False).outputs is None


FIRE = os.path.join(REPO, "tests", "data", "search", "fire_bias.json")


def test_several_databases_are_searched_together(rules):
    both = superopt.RuleDatabase(superopt.cnn_rules())
    others = [superopt.RuleDatabase(path) for path in superopt.cnn_rules()[1:]]
    assert len(others) == 3  # conv-bias-3, conv-activations-3, linear-3
    assert len(both) == len(rules) + sum(len(db) for db in others)
    assert both.path == ",".join(superopt.cnn_rules())
    # TASO's rules do not know a convolution's bias; with conv-bias-3.h5 the relus fuse into
    # the fire module's biased convolutions and its two expand convolutions merge.
    alone = superopt.optimize(FIRE, rules=rules, time_limit=30)
    together = superopt.optimize(FIRE, rules=superopt.cnn_rules(), time_limit=30)
    assert not any("conv2d,relu -> conv2d" in label for label in alone.rules_applied)
    assert any("conv2d,relu -> conv2d" in label for label in together.rules_applied)
    assert together.check["passed"] and together.speedup > alone.speedup
    with pytest.raises(superopt.Error, match="empty file name"):
        superopt.RuleDatabase(superopt.default_rules() + ",")
    # A list of paths is read once while its files are unchanged, like one path.
    assert superopt._rules(superopt.cnn_rules()) is superopt._rules(tuple(superopt.cnn_rules()))
    assert superopt._rules(superopt.cnn_rules()) is not superopt._rules(superopt.cnn_rules()[:2])
