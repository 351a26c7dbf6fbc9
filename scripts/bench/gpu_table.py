#!/usr/bin/env python3
# Collects gpu.sh's per-model JSON (superopt optimize, graph check --cost, run --gpu, torch_models.py)
# into one side-by-side table and a CSV, with issue 6's targets checked underneath.
"""gpu_table.py --raw DIR [--raw DIR2 ...] --models "A B" [--csv FILE]

Each model's files may sit in any of the --raw folders (gpu.sh runs split over several device
calls): M.optimize.json, M.cost.json, M.opt.cost.json, M.run.json, M.opt.run.json, M.torch.json.
"""
import argparse
import csv
import json
import math
import os
import sys

COLUMNS = [
    "model", "device",
    "input_median_ms", "input_p10_ms", "input_p90_ms",
    "optimized_median_ms", "optimized_p10_ms", "optimized_p90_ms", "speedup",
    "input_op_sum_ms", "input_end_to_end_over_sum", "optimized_op_sum_ms", "optimized_end_to_end_over_sum",
    "input_cost_model_ms", "optimized_cost_model_ms", "cost_model",
    "torch_eager_median_ms", "torch_eager_p10_ms", "torch_eager_p90_ms",
    "torch_compile_median_ms", "torch_compile_p10_ms", "torch_compile_p90_ms", "torch_compile_s",
    "input_over_eager", "optimized_over_compile", "check", "torch_device", "torch_version",
]


def load(raws, name):
    for raw in raws:
        path = os.path.join(raw, name)
        if os.path.exists(path) and os.path.getsize(path) > 0:
            with open(path) as f:
                return json.load(f)
    return None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def row_for(model, raws):
    r = {c: None for c in COLUMNS}
    r["model"] = model
    for graph, prefix in ((model, "input"), (model + ".opt", "optimized")):
        run = load(raws, graph + ".run.json") or {}
        for q in ("median", "p10", "p90"):
            r[f"{prefix}_{q}_ms"] = run.get(f"{q}_ms")
        r[f"{prefix}_op_sum_ms"] = run.get("op_sum_ms")
        r[f"{prefix}_end_to_end_over_sum"] = ratio(run.get("median_ms"), run.get("op_sum_ms"))
        r["device"] = r["device"] or run.get("device")
        passed = run["check"].get("passed") if isinstance(run.get("check"), dict) else run.get("check_passed")
        if passed is not None:  # `run --check --json` reports {"check": {"passed": ...}}
            verdict = "pass" if passed else "FAIL"
            r["check"] = verdict if r["check"] in (None, "pass") else r["check"]
        totals = (load(raws, graph + ".cost.json") or {}).get("totals", {})
        r[f"{prefix}_cost_model_ms"] = totals.get("cost_ms")
        r["cost_model"] = totals.get("cost_model", r["cost_model"])
    r["speedup"] = ratio(r["input_median_ms"], r["optimized_median_ms"])
    torch_report = load(raws, model + ".torch.json") or {}
    machine = torch_report.get("machine", {})
    r["torch_device"] = machine.get("device_name", machine.get("device"))
    r["torch_version"] = machine.get("torch")
    for result in torch_report.get("results", []):
        mode = result["mode"]
        for q in ("median", "p10", "p90"):
            r[f"torch_{mode}_{q}_ms"] = result.get(f"{q}_ms")
        if mode == "compile":
            r["torch_compile_s"] = result.get("compile_s")
    r["input_over_eager"] = ratio(r["input_median_ms"], r["torch_eager_median_ms"])
    r["optimized_over_compile"] = ratio(r["optimized_median_ms"], r["torch_compile_median_ms"])
    return r


def text(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def print_table(rows):
    header = ["model", "ours in", "ours opt", "speedup", "op-sum in", "e2e/sum", "model in", "model opt",
              "eager", "compile", "compile s", "in/eager", "check"]
    lines = [header]
    for r in rows:
        lines.append([r["model"], text(r["input_median_ms"]), text(r["optimized_median_ms"]),
                      text(r["speedup"], 2) + ("x" if r["speedup"] else ""), text(r["input_op_sum_ms"]),
                      text(r["input_end_to_end_over_sum"], 2), text(r["input_cost_model_ms"]),
                      text(r["optimized_cost_model_ms"]), text(r["torch_eager_median_ms"]),
                      text(r["torch_compile_median_ms"]), text(r["torch_compile_s"], 1),
                      text(r["input_over_eager"], 2), text(r["check"])])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))))
    print("latencies in ms (median of the runs); ours = superopt run --gpu, op-sum = operators timed alone;"
          f" model in/opt = cost model ({rows[0]['cost_model'] if rows else '-'}) of the input/optimized graph;"
          " eager/compile = PyTorch on the same graph")


def print_targets(rows):
    """Issue 6's acceptance targets, each with the figures it rests on."""
    speedups = [r["speedup"] for r in rows if r["speedup"]]
    if speedups:
        geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        print(f"geometric-mean speedup over {len(speedups)} models: {geomean:.3f}x (target >= 1.2x): "
              f"{'met' if geomean >= 1.2 else 'NOT met'}")
    for r in rows:
        if r["model"] in ("resnet50", "bert") and r["input_over_eager"]:
            print(f"{r['model']}: ours / PyTorch eager = {r['input_over_eager']:.3f} (target <= 1.25): "
                  f"{'met' if r['input_over_eager'] <= 1.25 else 'NOT met'}")
    for r in rows:
        e2e = r["input_end_to_end_over_sum"]
        if e2e:
            print(f"{r['model']}: end-to-end / sum of operators = {e2e:.3f} (target within 15%): "
                  f"{'met' if abs(e2e - 1) <= 0.15 else 'NOT met'}")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--raw", action="append", required=True, help="a folder of gpu.sh's raw JSON (repeatable)")
    p.add_argument("--models", required=True, help="models in table order, space-separated")
    p.add_argument("--csv", help="also write the rows here")
    args = p.parse_args(argv)
    rows = [row_for(m, args.raw) for m in args.models.split()]
    print_table(rows)
    print_targets(rows)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for r in rows:
                writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
