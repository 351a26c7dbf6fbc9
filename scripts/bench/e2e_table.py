#!/usr/bin/env python3
# The table, results.csv and issue 33's targets of scripts/bench/run-gpu.sh, from its raw folder.
"""e2e_table.py --raw DIR --models "A B" [--steps steps.tsv] [--device cuda|cpu] [--table NAME] [--csv FILE]

Reads per model M (":" and "/" as "_"): M.check.json (run --check), M.optimize.json, M.cost.json
and M.opt.cost.json (graph check --cost table:, the sum of measured operator costs), e2e.jsonl
(scripts/bench/e2e_bench.py: one line per result or failure), or M.run.json / M.opt.run.json when
PyTorch was missing. A cell is the median over rounds of each round's median (p10 and p90 likewise);
one row per model whatever failed, failures named in the last column. Needs no PyTorch.
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys

TASO = ["resnet50", "resnext50", "nasnet_a", "nasrnn", "bert"]
SYSTEMS = {"ours_input": "input", "ours_optimized": "optimized", "torch_eager": "torch_eager",
           "torch_compile": "torch_compile", "ort": "ort"}
COLUMNS = (["model", "device"]
           + [f"{p}_{q}_ms" for p in ("input", "optimized") for q in ("median", "p10", "p90")]
           + ["speedup", "input_rounds", "optimized_rounds",
              "input_op_sum_ms", "input_end_to_end_over_sum", "optimized_op_sum_ms", "optimized_end_to_end_over_sum",
              "cost_table", "op_sum_fallbacks", "optimize_cost_model", "optimize_cost_before_ms", "optimize_cost_after_ms",
              "optimize_fallbacks", "rules_applied", "optimize_s",
              "check", "check_node_error", "check_output_error", "check_worst_node"]
           + [f"{p}_{q}_ms" for p in ("torch_eager", "torch_compile", "ort") for q in ("median", "p10", "p90")]
           + ["torch_compile_s", "compile_error_vs_eager", "ort_error_vs_eager", "ort_providers",
              "optimized_over_eager", "optimized_over_compile", "optimized_over_ort", "failures"])


def safe(model):
    return model.replace(":", "_").replace("/", "_")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def rows_for(args):
    events = []
    path = os.path.join(args.raw, "e2e.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass
    steps = []
    if args.steps and os.path.exists(args.steps):
        with open(args.steps) as f:
            steps = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    unavailable = {e["system"]: e["error"] for e in events if e.get("event") == "unavailable"}
    rows = []
    for model in args.models.split():
        s = safe(model)
        r = {c: None for c in COLUMNS}
        r["model"], r["device"], r["cost_table"] = model, args.device, args.table
        failures = [f"{st[0]} exit {st[2]}" + (f" ({st[4]})" if not st[4].startswith("logs/") else "")
                    for st in steps if len(st) >= 5 and st[1] in (model, s, s + ".opt") and st[2] not in ("0", "77")]
        for system, prefix in SYSTEMS.items():
            results = [e for e in events if e.get("event") == "result" and e.get("model") == model
                       and e.get("system") == system]
            if not results and system.startswith("ours"):  # no PyTorch: run-gpu.sh timed ours alone
                j = load(os.path.join(args.raw, s + (".opt" if system == "ours_optimized" else "") + ".run.json"))
                results = [j] if j and "median_ms" in j else []
            for q in ("median", "p10", "p90"):
                values = [e[f"{q}_ms"] for e in results if e.get(f"{q}_ms") is not None]
                r[f"{prefix}_{q}_ms"] = statistics.median(values) if values else None
            if prefix in ("input", "optimized"):
                r[f"{prefix}_rounds"] = len(results)
            if results and prefix == "input":
                r["device"] = results[0].get("device") or r["device"]
            for e in events:
                if e.get("event") == "error" and e.get("model") == model and e.get("system") == system:
                    failures.append(f"{system} {e.get('phase', '')}: {e.get('error', '')}")
        for e in events:
            if e.get("event") == "prepared" and e.get("model") == model:
                if e.get("system") == "torch_compile":
                    r["torch_compile_s"], r["compile_error_vs_eager"] = e.get("compile_s"), e.get("compile_error_vs_eager")
                if e.get("system") == "ort":
                    r["ort_error_vs_eager"] = e.get("ort_error_vs_eager")
                    r["ort_providers"] = " ".join(e.get("providers") or [])
        r["speedup"] = ratio(r["input_median_ms"], r["optimized_median_ms"])
        for g, prefix in ((s, "input"), (s + ".opt", "optimized")):
            totals = (load(os.path.join(args.raw, g + ".cost.json")) or {}).get("totals", {})
            r[f"{prefix}_op_sum_ms"] = totals.get("cost_ms")
            r[f"{prefix}_end_to_end_over_sum"] = ratio(r[f"{prefix}_median_ms"], totals.get("cost_ms"))
            if totals.get("cost_fallbacks"):
                r["op_sum_fallbacks"] = (r["op_sum_fallbacks"] or 0) + totals["cost_fallbacks"]
        opt = load(os.path.join(args.raw, s + ".optimize.json")) or {}
        r["optimize_cost_before_ms"], r["optimize_cost_after_ms"] = opt.get("cost_before"), opt.get("cost_after")
        r["optimize_fallbacks"] = opt.get("fallbacks")
        r["optimize_cost_model"] = opt.get("cost_model")  # analytic:h100 where the table could not be measured
        r["rules_applied"] = sum(opt.get("rules_applied", {}).values()) if opt else None
        r["optimize_s"] = opt.get("search_seconds")
        check = (load(os.path.join(args.raw, s + ".check.json")) or {}).get("check")
        if check:
            r["check"] = "pass" if check.get("passed") else "FAIL"
            r["check_node_error"], r["check_output_error"] = check.get("node_error"), check.get("output_error")
            r["check_worst_node"] = check.get("worst_node")
        r["optimized_over_eager"] = ratio(r["optimized_median_ms"], r["torch_eager_median_ms"])
        r["optimized_over_compile"] = ratio(r["optimized_median_ms"], r["torch_compile_median_ms"])
        r["optimized_over_ort"] = ratio(r["optimized_median_ms"], r["ort_median_ms"])
        r["failures"] = "; ".join(dict.fromkeys(failures)) or None
        rows.append(r)
    return rows, unavailable


def text(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def print_table(rows, unavailable, args):
    header = ["model", "ours in", "ours opt", "speedup", "op-sum in", "e2e/sum", "eager", "compile", "ort",
              "opt/eager", "opt/compile", "check", "rounds"]
    lines = [header]
    for r in rows:
        lines.append([r["model"], text(r["input_median_ms"]), text(r["optimized_median_ms"]),
                      text(r["speedup"], 2) + ("x" if r["speedup"] else ""), text(r["input_op_sum_ms"]),
                      text(r["input_end_to_end_over_sum"], 2), text(r["torch_eager_median_ms"]),
                      text(r["torch_compile_median_ms"]), text(r["ort_median_ms"]),
                      text(r["optimized_over_eager"], 2), text(r["optimized_over_compile"], 2), text(r["check"]),
                      f"{r['input_rounds'] or 0}/{r['optimized_rounds'] or 0}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    print(f"== results on {args.device} (ms, median of the rounds' medians; cost table {args.table})")
    for line in lines:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
    print("ours = superopt run (in: input graph, opt: optimized with --cost table:); op-sum = the measured "
          "operator costs summed; eager/compile = PyTorch, ort = onnxruntime "
          f"({'CUDA' if args.device == 'cuda' else 'CPU'} provider), all on the input graph; rounds = ours in/opt")
    for system, why in sorted(unavailable.items()):
        print(f"{system}: {why}")
    for r in rows:
        if r["failures"]:
            print(f"{r['model']}: failed: {r['failures']}")


def print_targets(rows):
    """Issue 33's targets, each with the figures it rests on."""
    n = len(rows)
    checks = [r for r in rows if r["check"]]
    print(f"== targets (issue 33)")
    print(f"run --check passes on {sum(r['check'] == 'pass' for r in checks)}/{n} models (target {n}/{n})")
    e2e = [r for r in rows if r["input_end_to_end_over_sum"]]
    within = [r["model"] for r in e2e if abs(r["input_end_to_end_over_sum"] - 1) <= 0.15]
    print(f"end to end within 15% of the operator sum: {len(within)}/{n} models (target 12 of 14)"
          + (f"; outside: {', '.join(r['model'] + ' ' + format(r['input_end_to_end_over_sum'], '.2f') for r in e2e if r['model'] not in within)}" if len(within) < len(e2e) else ""))
    speedups = [r["speedup"] for r in rows if r["speedup"]]
    if speedups:
        geomean = math.exp(sum(map(math.log, speedups)) / len(speedups))
        slower = [f"{r['model']} {r['speedup']:.2f}x" for r in rows if r["speedup"] and r["speedup"] < 0.97]
        print(f"optimized over input: geometric mean {geomean:.3f}x over {len(speedups)} models (target >= 1.2x); "
              f"slower by more than 3%: {', '.join(slower) or 'none'}")
    taso = [r for r in rows if r["model"] in TASO]
    faster = [r["model"] for r in taso if r["optimized_over_eager"] is not None and r["optimized_over_eager"] < 1]
    near = [r["model"] for r in taso if r["optimized_over_compile"] is not None and r["optimized_over_compile"] <= 1.1]
    if taso:
        print(f"optimized faster than PyTorch eager on {len(faster)}/{len(taso)} TASO models (target all five)"
              f"; within 1.1x of torch.compile on {len(near)} (target >= 3)")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--raw", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--steps")
    p.add_argument("--device", default="cuda")
    p.add_argument("--table", default="-")
    p.add_argument("--csv")
    args = p.parse_args(argv)
    rows, unavailable = rows_for(args)
    print_table(rows, unavailable, args)
    print_targets(rows)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
