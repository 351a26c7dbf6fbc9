#!/usr/bin/env python3
# Draws TASO Figure 7 from end-to-end.csv (scripts/bench/gpu.sh's columns): per model, latency of
# PyTorch eager, torch.compile, (onnxruntime,) our runtime on the input graph and on the optimized graph.
"""end_to_end_plot.py CSV PNG  -- prints the table and writes the bar chart."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BARS = [  # (label, column prefix, colour)
    ("PyTorch eager", "torch_eager", "#9e9e9e"),
    ("torch.compile", "torch_compile", "#616161"),
    ("superopt, input graph", "input", "#90caf9"),
    ("superopt, optimized", "optimized", "#1565c0"),
]


def number(row, column):
    try:
        return float(row[column])
    except (KeyError, ValueError):
        return None


def main(csv_path, png_path):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"end_to_end_plot.py: {csv_path} has no rows", file=sys.stderr)
        return 2
    device = rows[0].get("device") or rows[0].get("torch_device") or "unknown device"
    if "ort_median_ms" in rows[0]:  # scripts/bench/run-gpu.sh's results.csv: onnxruntime beside PyTorch
        BARS.insert(2, ("onnxruntime", "ort", "#bdbdbd"))
    print(f"{'model':12s}" + "".join(f"{label:>24s}" for label, _, _ in BARS) + f"{'speedup':>9s}")
    fig, axes = plt.subplots(1, len(rows), figsize=(3.2 * max(len(rows), 3), 3.6), squeeze=False)
    for ax, row in zip(axes[0], rows):
        cells = []
        for i, (label, prefix, colour) in enumerate(BARS):
            median = number(row, f"{prefix}_median_ms")
            low, high = number(row, f"{prefix}_p10_ms"), number(row, f"{prefix}_p90_ms")
            cells.append(f"{median:24.3f}" if median is not None else f"{'n/a':>24s}")
            if median is None:
                ax.text(i, 0.02, "n/a", ha="center", va="bottom", fontsize=8, transform=ax.get_xaxis_transform())
                continue
            error = [[median - low], [high - median]] if low is not None and high is not None else None
            ax.bar(i, median, color=colour, yerr=error, capsize=3, label=label)
            ax.text(i, median, f"{median:.2f}", ha="center", va="bottom", fontsize=7)
        speedup = number(row, "speedup")
        print(f"{row['model']:12s}" + "".join(cells) + (f"{speedup:8.2f}x" if speedup else f"{'-':>9s}"))
        ax.set_title(row["model"] + (f" ({speedup:.2f}x)" if speedup else ""), fontsize=10)
        ax.set_xticks([])
        ax.set_xlim(-0.6, len(BARS) - 0.4)  # missing bars keep their place
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("latency, ms (median; bars p10-p90)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour) for _, _, colour in BARS]
    fig.legend(handles, [label for label, _, _ in BARS], loc="lower center", ncol=len(BARS), fontsize=8)
    fig.suptitle(f"End-to-end batch-1 inference, FP32 (TASO Figure 7) on {device}", fontsize=11)
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    fig.savefig(png_path, dpi=120)
    print(f"wrote {png_path}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
