#!/usr/bin/python3
"""OCGGS reproductions (Fang et al., VLDB 2020): prints ocggs-table3.sh's CSV as
Table 3 with the paper's numbers beside ours and draws cost, search time and
peak memory per model and search as a PNG.
  ocggs_plot.py table3 CSV PNG
  ocggs_plot.py scaling CSV PNG   (Figures 4-5: against the blocks and against K)"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SEARCHES = ["ENU", "Pruning", "DPP", "MF", "TS", "Sampling"]
EXACT = {"ENU", "Pruning", "DPP"}
# Table 3 (P100, TASO's 157 rules, 1 h limit): cost ms, time s, memory GB; None: "-".
PAPER = {
    "inception_v3": ([None, None, None, 9.48, 8.80, 8.80], [None, None, None, 11.39, ">3600", 4.38],
                     [None, None, None, 1.10, ">1.30", 1.15]),
    "resnet_blocks:8": ([None, 1.73, 1.73, 1.73, 1.73, 1.73], [None, 20.39, 7.89, 1.35, 2.82, 0.26],
                        [None, 1.05, 1.05, 1.05, 1.05, 1.05]),
    "resnext50": ([None, None, None, 8.54, 7.80, 7.80], [None, None, None, 5.25, 108.83, 1.14],
                  [None, None, None, 1.13, 1.13, 1.13]),
    "nasnet_a": ([None, None, None, 20.97, 18.31, 18.31], [None, None, None, ">3600", ">3600", 233.34],
                 [None, None, None, ">34.08", ">12.67", 5.03]),
    "bert": ([None, None, None, 1.21, 1.21, 1.21], [None, None, None, 11.69, 790.28, 2.02],
             [None, None, None, 1.07, 1.09, 1.09]),
    "sru": ([None, 0.15, 0.15, 0.15, 0.15, 0.15], [None, 21.96, 33.12, 0.03, 0.02, 0.28],
            [None, 1.07, 1.07, 1.07, 1.07, 1.07]),
    "nasrnn": ([None, None, None, 1.82, 1.80, 1.80], [None, None, None, ">3600", ">3600", 20.59],
               [None, None, None, 1.07, 1.38, 1.70]),
}


def paper(model, search):
    if model not in PAPER:
        return ["", "", ""]
    k = SEARCHES.index(search)
    return ["-" if v[k] is None else str(v[k]) for v in PAPER[model]]


def cost(row):
    """An exact search that did not finish has no result (Table 3's "-")."""
    if row["cost_ms"] == "FAILED":
        return "FAILED"
    if row["search"] in EXACT and row["finished"] != "yes":
        return "-"
    return row["cost_ms"]


def table3(rows, png):
    columns = ["model", "search", "cost_ms", "search_s", "explored", "peak_mb", "finished", "check",
               "paper_ms", "paper_s", "paper_gb"]
    out = []
    for r in rows:
        p = paper(r["model"], r["search"])
        out.append({"model": r["model"], "search": r["search"], "cost_ms": cost(r), "search_s": r["search_s"],
                    "explored": r["explored"], "peak_mb": r["peak_mb"], "finished": r["finished"],
                    "check": r.get("check", ""), "paper_ms": p[0], "paper_s": p[1], "paper_gb": p[2]})
    widths = [max(len(c), *(len(o[c]) for o in out)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for o in out:
        print("  ".join(o[c].rjust(w) for c, w in zip(columns, widths)))
    models = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for ax, key, title in zip(axes, ["cost_ms", "search_s", "peak_mb"],
                              ["optimized cost (ms, analytic:h100)", "search time (s)", "peak memory (MB)"]):
        width = 0.8 / len(SEARCHES)
        for k, s in enumerate(SEARCHES):
            ys = []
            for m in models:
                match = [o for o in out if o["model"] == m and o["search"] == s]
                try:
                    ys.append(float(match[0][key]) if match else 0)
                except ValueError:
                    ys.append(0)
            ax.bar([i + (k - 2.5) * width for i in range(len(models))], ys, width, label=s)
        ax.set_xticks(range(len(models)))
        ax.set_xticklabels(models, rotation=20, fontsize=8)
        ax.set_title(title)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def scaling(rows, png):
    columns = ["figure", "model", "blocks", "max_length", "search", "cost_ms", "search_s", "explored", "peak_mb",
               "finished", "check"]
    for r in rows:
        r["cost_ms"] = cost(r)
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for r in rows:
        print("  ".join(r[c].rjust(w) for c, w in zip(columns, widths)))
    panels = sorted({(r["figure"], r["model"]) for r in rows})
    fig, axes = plt.subplots(len(panels), 3, figsize=(15, 3.5 * len(panels)), squeeze=False)
    for row, (figure, model) in enumerate(panels):
        x_key = "blocks" if figure == "4" else "max_length"
        for col, key in enumerate(["cost_ms", "search_s", "peak_mb"]):
            ax = axes[row][col]
            for s in SEARCHES:
                pts = []
                for r in rows:
                    if r["figure"] == figure and r["model"] == model and r["search"] == s:
                        try:
                            pts.append((int(r[x_key]), float(r[key])))
                        except ValueError:
                            pass
                if pts:
                    ax.plot(*zip(*sorted(pts)), marker="o", label=s)
            ax.set_xlabel(x_key)
            ax.set_title(f"Fig. {figure} {model}: {key}", fontsize=9)
        axes[row][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    kinds = {"table3": table3, "scaling": scaling}
    if len(sys.argv) != 4 or sys.argv[1] not in kinds:
        sys.exit(__doc__)
    kinds[sys.argv[1]](list(csv.DictReader(open(sys.argv[2]))), sys.argv[3])
