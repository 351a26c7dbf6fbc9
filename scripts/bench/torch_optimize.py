#!/usr/bin/env python3
"""superopt.torch.optimize against PyTorch: a torchvision model or a TransformerEncoder (random
weights, eval, float32),
its optimized module, the original in eager mode and its TorchScript-frozen form, at 1 and 2
threads, timed interleaved (one run of each form a round) and reported as medians; then the
overhead of a call into the extension beside the same work through the command line.

  PYTHONPATH=build/python /usr/bin/python3 scripts/bench/torch_optimize.py [--model resnet18]
      [--size 224] [--rounds 50] [--threads 1 2] [--cost analytic:h100] [--time-limit 60]
      [--layout auto] [--baseline REV] [--json]

--model: a torchvision model name, or "transformer" (nn.TransformerEncoder, d_model 256, 4 heads,
feed-forward 1024, 2 layers, on a 64x1x256 sequence; --size is then the sequence length).
--baseline REV: also times, interleaved in the same rounds, the module that git revision REV's
module builder (graph_module.py, module_folds.py, mkldnn_codegen.py) writes for the same optimized
graph and weights: an A/B of the builder's peepholes that load on the machine hits alike.

Needs the package (PYTHONPATH=build/python or an installed copy) and the superopt binary
(build/superopt, or --superopt BIN) for the overhead comparison.

On this 2-core machine the 2-thread rows need OMP_WAIT_POLICY=PASSIVE in the environment: with
libgomp's default spinning beside OpenBLAS's own threads every form takes ~120 ms a call (each
parallel region waits for a scheduler tick) where it takes ~5 ms passive; the header says which.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torchvision

import superopt
import superopt.torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scripted(module, example):
    """PyTorch 1.13's CPU inference path: trace, freeze, optimize_for_inference."""
    traced = torch.jit.trace(module, (example,), check_trace=False)
    frozen = torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
    for _ in range(3):
        frozen(example)  # the first calls specialise the graph
    return frozen


def set_threads(threads):
    """torch's threads, and OpenBLAS's where torch calls it (Debian's torch: BLAS_INFO=generic,
    libblas.so.3 is OpenBLAS's pthread build): torch.set_num_threads leaves OpenBLAS's own pool at
    the number of cores, so without this the "1 thread" row ran its GEMMs on 2 threads. Returns
    OpenBLAS's thread count afterwards, or None without it."""
    torch.set_num_threads(threads)
    try:
        blas = ctypes.CDLL("libopenblas.so.0", mode=os.RTLD_NOLOAD)  # only if torch loaded it
    except OSError:
        return None
    blas.openblas_set_num_threads(threads)
    return blas.openblas_get_num_threads()


def interleaved_medians(forms, example, rounds, warmup=3):
    """({name: median wall ms}, {name: median CPU ms}): each round runs every form once, in turn,
    so drifts hit all alike; the order rotates from round to round, so that no form always runs
    right after the same other (forms sharing weights run faster after each other: the weights are
    still in cache). CPU time is the process's (all its threads), which time spent waiting for a
    core while other processes run does not count: on a loaded machine the steadier figure at 1
    thread; at 2 it also counts what the thread pools spin."""
    wall, cpu = {name: [] for name in forms}, {name: [] for name in forms}
    order = list(forms.items())
    with torch.inference_mode():
        for _ in range(warmup):
            for fn in forms.values():
                fn(example)
        for r in range(rounds):
            for name, fn in order[r % len(order):] + order[:r % len(order)]:
                c0, t0 = time.process_time(), time.perf_counter()
                fn(example)
                wall[name].append((time.perf_counter() - t0) * 1e3)
                cpu[name].append((time.process_time() - c0) * 1e3)
    return ({name: statistics.median(t) for name, t in wall.items()},
            {name: statistics.median(t) for name, t in cpu.items()})


def call_overhead(binary, rules):
    """Milliseconds a call spends outside the work it reports (its phases), through the extension
    and through the command line (a process: start, reading the rules, printing), on a small graph."""
    graph = os.path.join(REPO, "data", "graphs", "fused_matmul.json")
    rows = {}
    for _ in range(5):
        g = superopt.load(graph)
        t0 = time.perf_counter()
        r = superopt.optimize(g, rules=rules, time_limit=30)
        wall = (time.perf_counter() - t0) * 1e3
        rows.setdefault("extension", []).append(wall - 1e3 * sum(r.phase_seconds.values()))
        t0 = time.perf_counter()
        out = subprocess.run([binary, "optimize", graph, "--rules", rules.path, "--time-limit", "30", "--json"],
                             capture_output=True, text=True, check=True).stdout
        wall = (time.perf_counter() - t0) * 1e3
        phases = json.loads(out)["phase_seconds"]
        rows.setdefault("command line", []).append(wall - 1e3 * (sum(phases.values()) - phases["load"]))
        t0 = time.perf_counter()
        superopt.load(graph).report()
        rows.setdefault("extension: load + report", []).append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        subprocess.run([binary, "graph", "check", graph, "--json"], capture_output=True, check=True)
        rows.setdefault("command line: graph check --json", []).append((time.perf_counter() - t0) * 1e3)
    return {k: statistics.median(v) for k, v in rows.items()}


BUILDER = ("graph_module.py", "module_folds.py", "mkldnn_codegen.py")


class RecordedArguments:
    """Records what superopt.torch.optimize builds its OptimizedModules from (the optimized graph,
    shapes, dtype, weights, device, result, single output, layout) while in a with block."""

    def __enter__(self):
        self.original, self.calls = superopt.torch.OptimizedModule, []
        calls = self.calls

        class Recording(self.original):
            def __init__(self, *args):
                calls.append(args)
                super().__init__(*args)
        superopt.torch.OptimizedModule = Recording
        return self

    def __exit__(self, *exc):
        superopt.torch.OptimizedModule = self.original


def baseline_module(revision, arguments):
    """forward(x) of the module revision's builder makes from arguments (RecordedArguments' call):
    its files, from git, as the package superopt_baseline beside this one."""
    root = tempfile.mkdtemp(prefix="superopt_baseline")
    os.mkdir(os.path.join(root, "superopt_baseline"))
    open(os.path.join(root, "superopt_baseline", "__init__.py"), "w").close()
    for name in BUILDER:
        text = subprocess.run(["git", "-C", REPO, "show", f"{revision}:python/superopt/{name}"], capture_output=True,
                              text=True, check=True).stdout
        with open(os.path.join(root, "superopt_baseline", name), "w") as f:
            f.write(text.replace("from superopt.", "from superopt_baseline."))
    sys.path.insert(0, root)
    from superopt_baseline.graph_module import GraphModule
    from superopt_baseline.module_folds import fold_for_inference
    graph, shapes, dtype, weights, device, _, _, layout = arguments
    graph, shapes = fold_for_inference(graph, shapes)
    module = GraphModule(graph, shapes, dtype, weights=weights, precompute=True, device=device, layout=layout).eval()
    return lambda x: module(x)[0]


def model_and_input(name, size):
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0)
        return torch.nn.TransformerEncoder(layer, num_layers=2).eval(), torch.rand(size if size != 224 else 64, 1, 256)
    return getattr(torchvision.models, name)().eval(), torch.rand(1, 3, size, size)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="resnet18", help="a torchvision model (default resnet18)")
    p.add_argument("--size", type=int, default=224, help="input height and width (default 224)")
    p.add_argument("--rounds", type=int, default=50)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--cost", default="analytic:h100", help="superopt's cost model (default analytic:h100)")
    p.add_argument("--time-limit", type=float, default=60)
    p.add_argument("--layout", default="auto", help="superopt.torch.optimize's layout= (default auto)")
    p.add_argument("--superopt", default=os.path.join(REPO, "build", "superopt"))
    p.add_argument("--baseline", metavar="REV", help="also time git revision REV's module builder (A/B)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    module, example = model_and_input(args.model, args.size)
    t0 = time.perf_counter()
    with RecordedArguments() as recorded:
        optimized = superopt.torch.optimize(module, example, cost=args.cost, time_limit=args.time_limit,
                                            layout=args.layout)
    optimize_s = time.perf_counter() - t0
    chosen = next(a for a in recorded.calls if a[-1] == optimized.layout)
    baseline = baseline_module(args.baseline, chosen) if args.baseline else None
    with torch.inference_mode():
        error = float((optimized(example) - module(example)).abs().max() / module(example).abs().max())
    rows = []
    for threads in args.threads:
        blas_threads = set_threads(threads)
        forms = {"eager": module, "torchscript-frozen": scripted(module, example), "superopt": optimized}
        if baseline:
            forms["baseline"] = baseline
        wall, cpu = interleaved_medians(forms, example, args.rounds)
        rows.append({"threads": threads, "openblas_threads": blas_threads, "median_ms": wall, "median_cpu_ms": cpu})
    rules = superopt.RuleDatabase()
    overhead = call_overhead(args.superopt, rules) if os.access(args.superopt, os.X_OK) else None
    r = optimized.result
    summary = {"model": args.model, "input": list(example.shape), "torch": torch.__version__,
               "cost_model": r.report["cost_model"], "cost_before_ms": r.cost_before_ms,
               "cost_after_ms": r.cost_after_ms, "applications": len(r.rule_sequence),
               "rules_applied": r.rules_applied, "optimize_s": optimize_s, "float32_relative_error": error,
               "layout": optimized.layout, "baseline": args.baseline, "rows": rows, "overhead_ms": overhead,
               "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY")}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{args.model} {'x'.join(map(str, example.shape))}, float32, PyTorch {torch.__version__}, "
          f"module layout {optimized.layout}, OMP_WAIT_POLICY {os.environ.get('OMP_WAIT_POLICY', 'unset')}; "
          f"optimized in "
          f"{optimize_s:.1f} s ({r.report['cost_model']}: {r.cost_before_ms:.3f} -> {r.cost_after_ms:.3f} ms, "
          f"{len(r.rule_sequence)} applications); float32 relative error {error:.1e}")
    extra = f"  {args.baseline + ' ms':>12}  vs baseline" if baseline else ""
    for kind, key in (("wall", "median_ms"), ("CPU", "median_cpu_ms")):
        print(f"{'threads':>7}  {'eager ms':>10}  {'frozen ms':>10}  {'superopt ms':>11}  vs eager  vs frozen{extra}"
              f"  ({kind} time; OpenBLAS threads)")
        for row in rows:
            m = row[key]
            extra_row = f"  {m['baseline']:>12.3f}  {m['baseline'] / m['superopt']:>10.3f}x" if baseline else ""
            print(f"{row['threads']:>7}  {m['eager']:>10.3f}  {m['torchscript-frozen']:>10.3f}  "
                  f"{m['superopt']:>11.3f}  {m['eager'] / m['superopt']:>7.3f}x  "
                  f"{m['torchscript-frozen'] / m['superopt']:>8.3f}x{extra_row}  ({row['openblas_threads']})")
    if overhead:
        print("overhead outside the reported work, median of 5 (ms): " +
              ", ".join(f"{k} {v:.2f}" for k, v in overhead.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
