#!/usr/bin/python3
"""The reproduction scripts' tables and plots: reads one CSV, prints it as a
table and draws the paper's figure as a PNG; and picks fields of an optimize --json
result for a CSV row.
  plot.py pruning|rule-size|search|alpha CSV PNG
  plot.py largest-rules N RESULT.json...  (the rules of N operators each run applied)
  plot.py fields RESULT.json FIELD...   (check: pass/FAIL; missing file: FAILED)"""
import csv
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def print_table(rows, columns):
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for r in rows:
        print("  ".join(r[c].rjust(w) for c, w in zip(columns, widths)))


def grouped_bars(ax, groups, series, values, log=False):
    """Bars per group (x) for each series; values[(group, series)] or None."""
    width = 0.8 / max(len(series), 1)
    for k, s in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
        ys = [values.get((g, s)) or 0 for g in groups]
        bars = ax.bar(xs, ys, width, label=s)
        for bar, y in zip(bars, ys):
            if y:
                label = f"{y:,.0f}" if y >= 100 else f"{y:.2f}"
                ax.annotate(label, (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))


def pruning(rows, png):
    print_table(rows, ["source", "max_ops", "initial", "after_input_renaming", "after_common_subgraphs",
                       "after_minimization", "reduction", "seconds"])
    stages = ["initial", "after_input_renaming", "after_common_subgraphs", "after_minimization"]
    labels = ["initial", "input renaming", "common subgraph", "minimization"]
    series = [f"{r['source']}, {r['max_ops']} ops" for r in rows]
    values = {(lab, s): float(r[st]) for r, s in zip(rows, series) for st, lab in zip(stages, labels)
              if r.get(st)}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    grouped_bars(ax, labels, series, values, log=True)
    ax.set_ylabel("substitutions remaining (log scale)")
    ax.set_title("TASO Table 3: substitutions left after each pruning step")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def rule_size(rows, png):
    print_table(rows, ["model", "max_ops", "rules", "rules_usable", "cost_before_ms", "cost_after_ms", "speedup",
                       "search_seconds", "check"])
    models = list(OrderedDict.fromkeys(r["model"] for r in rows))
    sizes = list(OrderedDict.fromkeys(r["max_ops"] for r in rows))
    series = [f"up to {n} op" + ("s" if n != "1" else "") for n in sizes]
    # A run that failed (FAILED in the table, e.g. a size with no proven rule) has no bar.
    values = {(r["model"], series[sizes.index(r["max_ops"])]): float(r["speedup"]) for r in rows
              if is_number(r["speedup"])}
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(models)), 4.5))
    grouped_bars(ax, models, series, values)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_ylabel("relative speedup over the input graph (cost model)")
    ax.set_title("TASO Figure 11: speedup with substitutions of different size limits")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def search(rows, png):
    print_table(rows, ["model", "operators", "parts", "exhaustive_s", "exhaustive_explored", "exhaustive_finished",
                       "exhaustive_cost_ms", "backtracking_s", "backtracking_explored", "backtracking_finished",
                       "backtracking_cost_ms", "same_cost", "same_graph", "paper_exhaustive", "paper_backtracking"])
    models = [r["model"] for r in rows]
    values = {}
    for r in rows:
        values[(r["model"], "exhaustive")] = float(r["exhaustive_s"])
        values[(r["model"], "backtracking (alpha 1.05)")] = float(r["backtracking_s"])
    fig, ax = plt.subplots(figsize=(8, 4.5))
    grouped_bars(ax, models, ["exhaustive", "backtracking (alpha 1.05)"], values, log=True)
    ax.set_ylabel("search time, seconds (log scale)")
    ax.set_title("MetaFlow Table 3: exhaustive versus backtracking search time")
    labels = []
    for r in rows:
        mark = "same graph" if r["same_graph"] == "yes" else "same cost" if r["same_cost"] == "yes" else "costs differ"
        stopped = [k for k in ("exhaustive", "backtracking") if r[k + "_finished"] != "yes"]
        if stopped:
            mark += f"\n({' and '.join(stopped) if len(stopped) < 2 else 'both'} stopped\nby the time limit)"
        labels.append(f"{r['model']}\n{mark}")
    ax.set_xticklabels(labels, fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def alpha(rows, png):
    print_table(rows, ["model", "alpha", "cost_before_ms", "cost_after_ms", "speedup", "search_seconds",
                       "graphs_explored", "finished"])
    models = list(OrderedDict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, len(models), figsize=(4 * len(models), 4), squeeze=False)
    for ax, model in zip(axes[0], models):
        mine = [r for r in rows if r["model"] == model]
        xs = [float(r["alpha"]) for r in mine]
        bars = ax.bar(range(len(xs)), [float(r["search_seconds"]) for r in mine], color="tab:blue", alpha=0.6)
        for bar, r in zip(bars, mine):
            if r["finished"] != "yes":
                bar.set_hatch("//")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([r["alpha"] for r in mine], fontsize=8)
        ax.set_xlabel("alpha")
        ax.set_ylabel("search time, seconds (bars)", color="tab:blue")
        twin = ax.twinx()
        twin.plot(range(len(xs)), [float(r["cost_after_ms"]) for r in mine], "o-", color="red")
        twin.set_ylabel("best cost found, ms (red line)", color="red")
        ax.set_title(model)
    fig.suptitle("MetaFlow Figure 10: best cost and search time against alpha\n(hatched bars: the search was stopped by the time limit)")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def fields(path, names):
    import json

    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        return ",".join("FAILED" for _ in names)
    out = []
    for name in names:
        v = r["check"]["passed"] if name == "check" else r.get(name, "")
        if name == "check":
            v = "pass" if v else "FAIL"
        elif isinstance(v, bool):
            v = "yes" if v else "no"
        elif isinstance(v, float):
            v = f"{v:.4f}" if name != "search_seconds" else f"{v:.2f}"
        out.append(str(v))
    return ",".join(out)


def largest_rules_applied(paths, size):
    """Prints the rules of `size` operators (on their larger side) that each
    optimize --json in `paths` applied: labels are "17: a,b -> c,d,e"."""
    import json

    for path in paths:
        try:
            applied = json.load(open(path)).get("rules_applied", {})
        except (OSError, ValueError):
            continue
        for label, count in sorted(applied.items()):
            sides = label.split(": ", 1)[-1].split(" -> ")
            if max(len(side.split(",")) for side in sides) == size:
                print(f"{path.rsplit('/', 1)[-1]}: {count}x {label}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "fields":
        print(fields(sys.argv[2], sys.argv[3:]))
        sys.exit(0)
    if len(sys.argv) > 3 and sys.argv[1] == "largest-rules":
        largest_rules_applied(sys.argv[3:], int(sys.argv[2]))
        sys.exit(0)
    kinds = {"pruning": pruning, "rule-size": rule_size, "search": search, "alpha": alpha}
    if len(sys.argv) != 4 or sys.argv[1] not in kinds:
        sys.exit(__doc__)
    kinds[sys.argv[1]](read(sys.argv[2]), sys.argv[3])
