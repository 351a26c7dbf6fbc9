#!/usr/bin/python3
"""TASO Figure 12's table and bars from layout.sh's CSV: per model, the speedup
over the input (oneDNN's layouts) of substitutions only, layouts only,
sequential and joint.
  layout_plot.py CSV PNG"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STRATEGIES = ["substitutions_only", "layouts_only", "sequential", "joint"]


def main(path, png):
    rows = list(csv.DictReader(open(path)))
    columns = ["model", "strategy", "graph", "layouts", "ms", "speedup"]
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for r in rows:
        print("  ".join(r[c].rjust(w) for c, w in zip(columns, widths)))
    models = list(dict.fromkeys(r["model"] for r in rows))
    speedup = {(r["model"], r["strategy"]): float(r["speedup"]) for r in rows}
    fig, ax = plt.subplots(figsize=(max(6.5, 3.5 + 1.8 * len(models)), 4))
    width = 0.8 / len(STRATEGIES)
    for k, s in enumerate(STRATEGIES):
        xs = [i + (k - (len(STRATEGIES) - 1) / 2) * width for i in range(len(models))]
        ys = [speedup.get((m, s), 0) for m in models]
        bars = ax.bar(xs, ys, width, label=s.replace("_", " "))
        for bar, y in zip(bars, ys):
            ax.annotate(f"{y:.2f}", (bar.get_x() + bar.get_width() / 2, y), ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models)
    ax.set_ylabel("speedup over the input (measured, 1 thread)")
    ax.set_title("TASO Figure 12 on this CPU: substitutions and weight layouts", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
