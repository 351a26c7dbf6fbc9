#!/usr/bin/env python3
"""Projection of a full enumeration from samples of its work units (issue 20).

Runs `superopt enumerate --sample-units F --seed S` for each fraction F (the
units of a smaller fraction are a subset of a larger one's, same seed), and
the same units at one operator fewer for the growth per operator. Each run's
ranks are watched through /proc: their CPU seconds when the first pairing line
appears split enumeration from pairing, and when the pruning line appears,
pairing from rank 0's serial renaming stage and write. Then prints, for the
full run at 16, 64 and 256 ranks (and at max_ops + 1 by the growth factor), the
projected wall time, memory and scratch disk per rank. The model:

- graphs, records and their bytes, and enumeration CPU scale with the units
  (all units / sampled units); classes, candidates, rules and pairing CPU
  grow otherwise, since a larger sample fills the same classes: each follows
  the power law a * graphs^b through the two largest samples, evaluated at
  the full run's graphs;
- work splits by units and by fingerprint (owner = key % ranks): each rank
  does 1/N of enumeration and pairing, times an imbalance of 1.1 (measured
  1.02-1.05x at 4 operators); rank 0's renaming stage and write do not split;
- memory per rank: base + k * (record bytes per rank), base and k fitted
  through the samples' peaks, unbounded; with --memory-per-rank M, base + M
  and the records spill: scratch disk per rank = record bytes per rank;
  rank 0 also holds 8 bytes per candidate and the surviving rules;
- one more operator grows as the last step did on the same units (graphs,
  records and enumeration CPU by the graph growth, candidates and pairing CPU
  by the candidate growth): a lower bound, since the growth per operator has
  risen at every step so far.

  project_5ops.py --superopt BIN --opset FILE --max-ops 5 --fractions "0.0005 0.001"
                  [--seed 1] [--ranks 2] [--bound 4G] [--out DIR] [--reuse] [--enumerate-args "..."]
  project_5ops.py --from DIR   # print the table again from a previous --out
"""
import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BIG_RANKS = (16, 64, 256)
IMBALANCE = 1.1


def descendants(pid):
    """Every process under pid (mpirun's ranks and their helpers)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def cpu_seconds(pids, seen_cpu):
    """CPU seconds of pids, each counted at its last reading (a process that
    has exited keeps the CPU it had then)."""
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            seen_cpu[p] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        except (OSError, IndexError):
            pass
    return sum(seen_cpu.values())


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_sample(args, max_ops, fraction, name):
    """One sampled enumeration; returns its summary with CPU per phase added."""
    out = os.path.join(args.out, name)
    if args.reuse and os.path.exists(out + ".json"):
        with open(out + ".json") as f:
            return json.load(f)
    cmd = ["nice", "-n", str(args.nice), "mpirun", "-n", str(args.ranks), "--oversubscribe", args.superopt,
           "enumerate", "--max-ops", str(max_ops), "--opset", args.opset, "--sample-units", str(fraction),
           "--seed", str(args.seed), "--out", out + ".h5", "--force", "--json"] + args.enumerate_args.split()
    print(f"# {' '.join(cmd)}", flush=True)
    load_before = load_average()
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen, seen_cpu = set(), {}
    lock = threading.Lock()

    def sample_cpu():  # the ranks' CPU, read at each line and every half second until they end
        with lock:
            seen.update(descendants(proc.pid))
            return cpu_seconds(seen, seen_cpu)

    def poll():
        while proc.poll() is None:
            sample_cpu()
            time.sleep(0.5)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    cpu_at = {}  # phase -> CPU seconds of the ranks when its first line came
    with open(out + ".err", "w") as log:
        for line in proc.stderr:
            log.write(line)
            log.flush()
            phase = line.split(":", 1)[0].split(" (")[0].replace("merge and pair", "pair")
            if phase not in cpu_at:
                cpu_at[phase] = (sample_cpu(), time.time() - start)
    summary_text = proc.stdout.read()
    proc.wait()
    poller.join()
    last_cpu = sum(seen_cpu.values())
    wall = time.time() - start
    if proc.returncode != 0:
        sys.exit(f"project_5ops: {' '.join(cmd)} failed with status {proc.returncode} (see {out}.err)")
    os.remove(out + ".h5")
    s = json.loads(summary_text.strip().splitlines()[-1])
    # The ranks' CPU after they exit is not readable from /proc: the last
    # reading is at most half a second before they end.
    pair_cpu, pair_wall = cpu_at.get("pair", (last_cpu, wall))
    prune_cpu, prune_wall = cpu_at.get("prune", (last_cpu, wall))
    s.update(fraction=fraction, wall_s=wall, cpu_enumerate_s=pair_cpu, cpu_pair_s=prune_cpu - pair_cpu,
             cpu_rank0_s=max(last_cpu - prune_cpu, 0.0), cpu_s=last_cpu, wall_enumerate_s=pair_wall,
             load_before=load_before, load_after=load_average())
    with open(out + ".json", "w") as f:
        json.dump(s, f)
    return s


def growth_exponent(samples, key):
    """b of y = a * graphs^b through the two largest samples. Graphs, not the
    fraction, since sampled units differ in size (a unit is a 2-operator graph
    and everything grown from it)."""
    (g1, y1), (g2, y2) = sorted((s["graphs"], s[key]) for s in samples)[-2:]
    if y1 <= 0 or y2 <= 0 or g1 == g2:
        return 1.0
    return math.log(y2 / y1) / math.log(g2 / g1)


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def human_seconds(s):
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 172800:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} d"


def project(samples, lower, bound_bytes):
    """The full run's totals from the samples at max_ops (and the growth from lower)."""
    big = max(samples, key=lambda s: s["fraction"])
    f = big["fraction"]
    scale = big["units"] / big["units_sampled"]  # the exact unit ratio, not F
    p = {"graphs": big["graphs"] * scale, "record_bytes": big["record_bytes"] * scale,
         "cpu_enumerate_s": big["cpu_enumerate_s"] * scale}
    p["exponents"] = {}
    for key in ("classes", "candidates", "rules", "cpu_pair_s", "cpu_rank0_s"):
        b = growth_exponent(samples, key)
        p[key] = big[key] * scale**b
        p["exponents"][key] = b
    # peak = base + k * (largest rank's record bytes), through the two largest samples
    pts = sorted((s["max_rank_record_bytes"], s["peak_rss_bytes"]) for s in samples if not s.get("spilled_runs"))
    if len(pts) >= 2 and pts[-1][0] > pts[0][0]:
        (x1, y1), (x2, y2) = pts[0], pts[-1]
        k = (y2 - y1) / (x2 - x1)
        base = y1 - k * x1
    else:
        base, k = 200 * 2**20, (big["peak_rss_bytes"] - 200 * 2**20) / max(big["max_rank_record_bytes"], 1)
    p["memory_base"], p["memory_per_record_byte"] = max(base, 0.0), max(k, 1.0)
    # One operator more grows as the last step did on the same units: graphs,
    # records and enumeration by the graph growth, candidates and pairing by
    # the candidate growth.
    same = next((s for s in samples if lower and s["fraction"] == lower["fraction"]), None)
    p["growth"] = same["graphs"] / lower["graphs"] if same else None
    p["candidate_growth"] = same["candidates"] / max(lower["candidates"], 1) if same else None
    p["bound"] = bound_bytes
    p["fraction"], p["scale"] = f, scale
    return p


def rows_for(p, graphs_factor, pair_factor):
    rows = []
    graphs = p["graphs"] * graphs_factor
    rec = p["record_bytes"] * graphs_factor
    cands = p["candidates"] * pair_factor
    cpu_enum = p["cpu_enumerate_s"] * graphs_factor
    cpu_pair = p["cpu_pair_s"] * pair_factor
    cpu_rank0 = p["cpu_rank0_s"] * pair_factor
    for n in BIG_RANKS:
        per_rank = rec / n
        wall = (cpu_enum + cpu_pair) / n * IMBALANCE + cpu_rank0
        unbounded = p["memory_base"] + p["memory_per_record_byte"] * per_rank
        bound = p["bound"]
        if bound and per_rank * p["memory_per_record_byte"] > bound:
            memory, disk = p["memory_base"] + bound, per_rank
        else:
            memory, disk = unbounded, 0
        rank0 = 8 * cands
        rows.append((n, graphs, cands, wall, cpu_enum + cpu_pair + cpu_rank0, unbounded, memory, disk, rank0))
    return rows


def print_table(samples, lower, p, max_ops, opset):
    print(f"\nopset {opset}, {max_ops} operators; samples (same seed, nested units):")
    print("| ops | fraction | units | graphs | records MiB | classes | candidates | rules | enumerate CPU s |"
          " pair CPU s | rank 0 CPU s | wall s | peak MiB/rank | spilled MiB | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for s in ([lower] if lower else []) + sorted(samples, key=lambda s: s["fraction"]):
        print(f"| {s['max_ops']} | {s['fraction']:g} | {s['units_sampled']}/{s['units']} | {s['graphs']:,} |"
              f" {s['record_bytes'] / 2**20:.1f} | {s['classes']:,} | {s['candidates']:,} | {s['rules']:,} |"
              f" {s['cpu_enumerate_s']:.1f} | {s['cpu_pair_s']:.1f} | {s['cpu_rank0_s']:.1f} | {s['wall_s']:.0f} |"
              f" {s['peak_rss_bytes'] / 2**20:.0f} | {s['spilled_bytes'] / 2**20:.1f} |"
              f" {s['load_before']} / {s['load_after']} |")
    e = p["exponents"]
    print(f"\nfull run at {max_ops} operators (scale {p['scale']:.1f}x from the largest sample): "
          f"{p['graphs']:.3g} graphs, {human_bytes(p['record_bytes'])} of records, "
          f"{p['classes']:.3g} classes (graphs^{e['classes']:.2f}), {p['candidates']:.3g} candidates "
          f"(graphs^{e['candidates']:.2f}), {p['rules']:.3g} rules (graphs^{e['rules']:.2f}); CPU: enumerate "
          f"{human_seconds(p['cpu_enumerate_s'])}, pair {human_seconds(p['cpu_pair_s'])} "
          f"(graphs^{e['cpu_pair_s']:.2f}), rank 0 {human_seconds(p['cpu_rank0_s'])} "
          f"(graphs^{e['cpu_rank0_s']:.2f}); memory = "
          f"{p['memory_base'] / 2**20:.0f} MiB + {p['memory_per_record_byte']:.2f} x record bytes per rank")
    bound = f"--memory-per-rank {human_bytes(p['bound'])}" if p["bound"] else "no --memory-per-rank"
    print(f"\n| ops | ranks | graphs | candidates | wall per rank | CPU in all | memory/rank unbounded |"
          f" memory/rank ({bound}) | scratch disk/rank | rank 0: candidate keys |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    blocks = [(max_ops, 1.0, 1.0)]
    if p["growth"]:
        blocks.append((max_ops + 1, p["growth"], p["candidate_growth"]))
    for ops, gf, pf in blocks:
        for n, graphs, cands, wall, cpu, unbounded, memory, disk, rank0 in rows_for(p, gf, pf):
            print(f"| {ops} | {n} | {graphs:.2g} | {cands:.2g} | {human_seconds(wall)} | {human_seconds(cpu)} |"
                  f" {human_bytes(unbounded)} | {human_bytes(memory)} | {human_bytes(disk)} | {human_bytes(rank0)} |")
    if p["growth"]:
        print(f"\n{max_ops + 1} operators: as the step from {max_ops - 1} to {max_ops} operators on the same units, "
              f"graphs, records and enumeration x {p['growth']:.1f}, candidates and pairing x "
              f"{p['candidate_growth']:.1f} (a lower bound: the growth per operator has risen at every step)")


def parse_bytes(text):
    if not text:
        return 0
    units = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--superopt", default="build/superopt")
    ap.add_argument("--opset", default="data/opsets/taso.json")
    ap.add_argument("--max-ops", type=int, default=5)
    ap.add_argument("--fractions", default="0.0005 0.001")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--bound", default="4G", help="the --memory-per-rank of the projected runs (0: none)")
    ap.add_argument("--enumerate-args", default="", help="more arguments for every sampled run")
    ap.add_argument("--no-lower", action="store_true", help="skip the run at one operator fewer")
    ap.add_argument("--out", default="scripts/bench/out/project")
    ap.add_argument("--reuse", action="store_true", help="keep the runs already in --out (same arguments)")
    ap.add_argument("--from", dest="from_dir", help="print the table from the summaries in this folder")
    args = ap.parse_args()
    if args.from_dir:
        with open(os.path.join(args.from_dir, "runs.json")) as f:
            saved = json.load(f)
        samples, lower = saved["samples"], saved["lower"]
        args.opset, args.max_ops = saved["opset"], saved["max_ops"]
    else:
        fractions = [float(x) for x in args.fractions.split()]
        if len(fractions) < 2 or any(not 0 < x <= 1 for x in fractions):
            sys.exit("project_5ops: --fractions needs two or more values in (0, 1]")
        os.makedirs(args.out, exist_ok=True)
        print(f"# load average {load_average()}, {os.cpu_count()} cores", flush=True)
        samples = [run_sample(args, args.max_ops, x, f"ops{args.max_ops}-f{x:g}") for x in fractions]
        lower = None
        if not args.no_lower:
            lower = run_sample(args, args.max_ops - 1, max(fractions), f"ops{args.max_ops - 1}-f{max(fractions):g}")
        with open(os.path.join(args.out, "runs.json"), "w") as f:
            json.dump({"opset": args.opset, "max_ops": args.max_ops, "samples": samples, "lower": lower}, f)
    p = project(samples, lower, parse_bytes(args.bound))
    print_table(samples, lower, p, args.max_ops, args.opset)


if __name__ == "__main__":
    main()
