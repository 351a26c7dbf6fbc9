"""What superopt's functions return: the command line's JSON reports, with their main fields as attributes."""
from dataclasses import dataclass, field
from typing import Any, Optional


class OptimizeResult:
    """optimize()'s result: the optimized graph and what `superopt optimize --json` reports.

    graph, cost_before_ms, cost_after_ms, speedup, rules_applied, rule_sequence, check,
    phase_seconds, suspect_rules, graphs_explored; report: the whole JSON object as a dict.
    """

    def __init__(self, graph, report):
        self.graph = graph
        self.report = report
        self.cost_before_ms = report["cost_before"]
        self.cost_after_ms = report["cost_after"]
        self.speedup = report["speedup"]
        self.rules_applied = dict(report["rules_applied"])
        self.rule_sequence = list(report["rule_sequence"])
        self.check = dict(report["check"])
        self.phase_seconds = dict(report["phase_seconds"])
        self.suspect_rules = list(report["suspect_rules"])
        self.graphs_explored = report["graphs_explored"]

    def __repr__(self):
        return (f"<superopt.OptimizeResult {self.cost_before_ms:.4f} -> {self.cost_after_ms:.4f} ms "
                f"({self.report['cost_model']}), {len(self.rule_sequence)} applications, check "
                f"{'passed' if self.check['passed'] else 'FAILED'}>")


class RunResult:
    """run()'s result: timings and, when asked, the outputs as NumPy arrays.

    median_ms, p10_ms, p90_ms, launches, check (None unless asked), outputs (list of arrays or
    None); report: the object `superopt run --json` prints, as a dict.
    """

    def __init__(self, report, outputs):
        self.report = report
        self.outputs = outputs
        self.median_ms = report["median_ms"]
        self.p10_ms = report["p10_ms"]
        self.p90_ms = report["p90_ms"]
        self.launches = report["launches"]
        self.check = report.get("check")

    def __repr__(self):
        return f"<superopt.RunResult median {self.median_ms:.4f} ms on {self.report['device']}>"


@dataclass
class Rule:
    """One rule of a RuleDatabase: source and target (Graphs over the same inputs), its
    status (candidate, verified, refuted, unknown, derived), note, derivation and size family."""
    id: int
    status: str
    source: Any
    target: Any
    fingerprint: int = 0
    operators: int = 0
    note: str = ""
    derivation: str = ""
    family: Optional[str] = field(default=None)
