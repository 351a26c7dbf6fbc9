"""superopt from Python: load a model, optimize it with proven rewrite rules, run it.

    import superopt
    g = superopt.load("builtin:squeezenet")          # or a graph JSON / ONNX file, or ONNX bytes
    r = superopt.optimize(g, time_limit=20)          # the shipped rules (data/rules/taso-3.h5)
    print(r.cost_before_ms, r.cost_after_ms, r.check["passed"])
    t = superopt.run(r.graph, threads=1, repeat=20)  # oneDNN on this CPU
    print(t.median_ms)

A PyTorch module in, a faster one out: superopt.torch.optimize(module, example_inputs).

Every function reports what the command line's `--json` reports (`graph check`,
`optimize`, `run`), and fails as it does: superopt.Error (a ValueError) with
the command's one-line message. Long calls release the GIL; Ctrl-C stops
a search at once (see optimize()).
"""
import json as _json
import os as _os

from . import _layout

# superopt's data (device profiles, the shipped rules, cost tables): the
# source tree's for the build tree's copy, the prefix's share/ for an installed
# one. $SUPEROPT_DATA_DIR, when set, wins, as for the binary.
if "SUPEROPT_DATA_DIR" not in _os.environ:
    _os.environ["SUPEROPT_DATA_DIR"] = _layout.DATA_DIR or _os.path.normpath(
        _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _layout.DATA_DIR_FROM_PACKAGE))

from . import _superopt  # noqa: E402  (after the data folder is known)
from ._reports import OptimizeResult, Rule, RunResult  # noqa: E402

Error = _superopt.Error
__all__ = ["Error", "Graph", "RuleDatabase", "OptimizeResult", "RunResult", "Rule", "load", "optimize", "run",
           "builtin_models", "data_dir", "default_rules", "cnn_rules"]


def data_dir():
    """The folder superopt reads its data from ($SUPEROPT_DATA_DIR)."""
    return _os.environ["SUPEROPT_DATA_DIR"]


def default_rules():
    """The path of the shipped rule database: data/rules/taso-3.h5 (TASO's operators, 3 operators a rule)."""
    return _os.path.join(data_dir(), "rules", "taso-3.h5")


def cnn_rules():
    """TASO's rules, those over biased convolutions (data/rules/conv-bias-3.h5), over biased
    convolutions with sigmoid, SiLU or hardswish (data/rules/conv-activations-3.h5) and over linear
    layers (data/rules/linear-3.h5), as a list of paths: what a model imported from PyTorch or ONNX
    wants (its convolutions carry their bias, its matmul and bias add pairs are linear layers)."""
    return [default_rules()] + [_os.path.join(data_dir(), "rules", f)
                                for f in ("conv-bias-3.h5", "conv-activations-3.h5", "linear-3.h5")]


def builtin_models():
    """The names load() takes after "builtin:" (the papers' models, built in code)."""
    return list(_superopt.builtin_model_names())


class Graph:
    """A computation graph: what load() returns and optimize() produces.

    Attributes: name, source (what it was loaded from), num_operators,
    operators (one dict a node: name, op, params, inputs, outputs' shapes,
    FLOPs, bytes), inputs, weights and outputs (lists of (name, shape)).
    """

    def __init__(self, handle):
        self._handle = handle
        self._report = None

    @property
    def name(self):
        return self._handle.name

    @property
    def source(self):
        return self._handle.source

    @property
    def num_operators(self):
        return self._handle.num_operators

    def report(self, cost=None):
        """What `superopt graph check --json` prints: every node, the totals, inputs, weights,
        outputs and the graph's hash; with cost="analytic:h100" (any cost spec) each node's cost too."""
        if cost is not None:
            return _json.loads(self._handle.check_json(cost))
        if self._report is None:
            self._report = _json.loads(self._handle.check_json(None))
        return self._report

    @property
    def operators(self):
        return [n for n in self.report()["nodes"] if n["op"] not in ("input", "weight")]

    def _named_shapes(self, key):
        return [(e["name"], tuple(e["shape"])) for e in self.report()[key]]

    @property
    def inputs(self):
        return self._named_shapes("inputs")

    @property
    def weights(self):
        return self._named_shapes("weights")

    @property
    def outputs(self):
        return self._named_shapes("outputs")

    def to_json(self):
        """The graph as superopt's graph JSON text (data/graphs/README.md)."""
        return self._handle.to_json()

    def to_onnx(self):
        """The graph as an ONNX model (opset 13), serialized: bytes. Weights with data and
        weight-only operators on them become initializers."""
        return self._handle.to_onnx()

    def save(self, path):
        """Writes the graph: ONNX when path ends in .onnx, else graph JSON (atomically)."""
        self._handle.save(_os.fspath(path))

    def cost(self, model="analytic:h100"):
        """The graph's cost in ms under a cost model: "analytic:h100", "analytic:v100",
        "table:FILE" (a measured cost table) or "cpu" (measured live on this CPU)."""
        return self._handle.cost_ms(model)

    def evaluate(self, inputs=None, seed=1):
        """The outputs on the CPU reference in double, as NumPy arrays (what `superopt graph run
        --seed SEED` computes). inputs: {name: array} for inputs (or weights) to set; the others are
        seeded random values, weights with data keep their data."""
        import numpy as np
        given = {name: np.ascontiguousarray(value, dtype=np.float64) for name, value in (inputs or {}).items()}
        return list(self._handle.reference_outputs(seed, given))

    def __repr__(self):
        return f"<superopt.Graph {self.name!r} from {self.source!r}: {self.num_operators} operators>"


def load(model, input_shapes=None):
    """Loads a model as a Graph.

    model: "builtin:NAME" (builtin_models()), a graph JSON file, an ONNX file (a path ending in
    .onnx; opsets 11 to 17), or an ONNX model as bytes (e.g. torch.onnx.export into a BytesIO).
    input_shapes: {name: shape} for ONNX inputs with dynamic dimensions.
    Raises superopt.Error (a ValueError) with the command line's one-line message: a missing
    file, malformed JSON, an unknown builtin, an unsupported ONNX operator.
    """
    shapes = ["%s=%s" % (name, "x".join(str(d) for d in shape)) for name, shape in (input_shapes or {}).items()]
    if isinstance(model, (bytes, bytearray, memoryview)):
        return Graph(_superopt.load_onnx_bytes(bytes(model), "<onnx bytes>", shapes))
    if not isinstance(model, (str, _os.PathLike)):
        raise TypeError(f"load: expected a path, 'builtin:NAME' or ONNX bytes, got {type(model).__name__}")
    return Graph(_superopt.load(_os.fspath(model), shapes))


class RuleDatabase:
    """A rule database (HDF5), read once: give it to optimize() to search many models with it.

    len(db) rules; db.counts: rules by status (candidate, verified, refuted, unknown, derived);
    db.minimal_set: the ids of the minimal set (verified rules, derived from no other);
    db.rule(k): rule k's source and target graphs and its verdict; db.info: what generated it.
    """

    def __init__(self, path=None):
        if isinstance(path, (list, tuple)):  # several databases searched together, as `--rules A,B`
            path = ",".join(_os.fspath(p) for p in path)
        self.path = _os.fspath(path) if path is not None else default_rules()
        self._handle = _superopt.read_rules(self.path)

    def __len__(self):
        return len(self._handle)

    @property
    def counts(self):
        return dict(self._handle.status_counts())

    @property
    def minimal_set(self):
        return list(self._handle.minimal_set())

    @property
    def info(self):
        return dict(self._handle.info())

    def rule(self, k):
        """Rule k (from 0): a Rule with id, status, source and target (Graphs), note, derivation
        and size family. IndexError outside the database."""
        fields = self._handle.rule_fields(k)
        return Rule(source=Graph(self._handle.side(k, False)), target=Graph(self._handle.side(k, True)), **fields)

    def __repr__(self):
        return f"<superopt.RuleDatabase {self.path!r}: {len(self)} rules>"


_rules_cache = {}


def _rules(rules):
    """A RuleDatabase for optimize(): given, or read once per file or list of files (and again
    when one of them changes): superopt.torch.optimize searches four databases by default, 1-2 s
    to read each call."""
    if isinstance(rules, RuleDatabase):
        return rules
    if isinstance(rules, (list, tuple)):
        spec = paths = [_os.fspath(p) for p in rules]
    else:
        spec = _os.fspath(rules) if rules is not None else default_rules()
        paths = [spec]
    try:
        key = tuple((_os.path.realpath(p), st.st_mtime_ns, st.st_size) for p, st in
                    ((p, _os.stat(p)) for p in paths))
    except OSError:
        return RuleDatabase(spec)  # raises superopt.Error naming the file
    if key not in _rules_cache:
        _rules_cache.clear()
        _rules_cache[key] = RuleDatabase(spec)
    return _rules_cache[key]


def optimize(graph, rules=None, cost="analytic:h100", search="backtracking", time_limit=60.0,
             minimal_rules=False, alpha=1.05, budget=1000, split_threshold=30, max_suspects=3, seed=1,
             allow_unverified=False, e2e_rounds=None):
    """Optimizes a graph with proven rewrite rules; returns an OptimizeResult. `superopt optimize`.

    graph: a Graph, or anything load() takes. rules: a RuleDatabase, a path, or a list of paths
    searched together (default: the shipped data/rules/taso-3.h5; a path or a list is read once
    and kept while its files are unchanged). An imported CNN also wants data/rules/conv-bias-3.h5 and
    conv-activations-3.h5, the rules over convolutions with their bias input and their
    activations: rules=superopt.cnn_rules().

    The search matches the rules in the graph and keeps rewrites that lower its cost:
      cost: "analytic:h100" | "analytic:v100" (roofline from data/devices/), "table:FILE" (a cost
            table measured by `superopt measure`), "cpu" or "cpu:THREADS" (operators measured
            live on this CPU with oneDNN), "gpu".
      search: "backtracking" (MetaFlow's cost-based search with graph split; the default),
            "pruning", "dpp", "sampling", "exhaustive" (OCGGS's; the name goes to the command's
            parser, which names the valid ones when it is unknown).
      time_limit: seconds for the whole call (the search, then the numerical check of the result;
            a part not reached in time stays as it was). alpha: keep graphs costing under alpha x
            the best (1 = greedy). budget: graphs taken from the queue. split_threshold: largest
            part in operators (0: no split). minimal_rules: only the minimal set (faster).
            allow_unverified: candidate rules too. seed: of the check's random values.
      e2e_rounds: with a CPU cost model, the result and the search's runners-up are timed end to
            end on this CPU (interleaved rounds) and the fastest that beats the input beyond the
            noise is returned, as `optimize --e2e-rounds` does (None: the command's default, on
            with "cpu" costs; 0: off); report["end_to_end"] says what was timed.
    Every result is checked against the input on the CPU reference in double before it is
    returned; when the check fails a rule that broke it is dropped and the search runs again (at
    most max_suspects times), and when it still fails, or the time limit cut the check short,
    the result's graph is the input, unchanged (result.check says which). Nothing unchecked is
    returned.

    The result (OptimizeResult): graph (the optimized Graph), cost_before_ms, cost_after_ms,
    speedup, rules_applied ({rule label: net applications}), rule_sequence (every application
    in order), check ({passed, status: passed, failed or not checked, max_relative_error, cut_short, inconclusive, how}), phase_seconds
    ({load, preprocess, split, search, check}), suspect_rules, and report: the whole object
    `superopt optimize --json` prints.

    Raises superopt.Error (a ValueError) with the command line's message for a bad cost spec,
    an unknown search, rules from another operator set, or a bad number. The GIL is released
    while it searches. Ctrl-C stops the search (within about 50 ms and the step it is on)
    and raises KeyboardInterrupt; no search is left running. The rules' compiled index is made
    on a database's first optimize() and reused by later calls with the same database.
    """
    if not isinstance(graph, Graph):
        graph = load(graph)
    database = _rules(rules)
    handle, report = _superopt.optimize(graph._handle, database._handle, cost, search, float(time_limit),
                                        bool(minimal_rules), float(alpha), int(budget), int(split_threshold),
                                        int(max_suspects), int(seed), bool(allow_unverified),
                                        -1 if e2e_rounds is None else int(e2e_rounds))
    return OptimizeResult(Graph(handle), _json.loads(report))


def run(graph, device="cpu", threads=None, repeat=100, warmup=10, check=False, op_sum=False, seed=1,
        outputs=True, inputs=None):
    """Runs and times a graph on a device; returns a RunResult. `superopt run --device DEVICE`.

    device: "cpu" (oneDNN) or "cuda" (raises superopt.Error "no CUDA device (...)" without
    one). threads: CPU threads (default: 1 or every core, whichever a brief interleaved trial
    on the graph finds faster, as `superopt run` without --threads: the report's "threads" and
    "thread_trial"). repeat timed whole-graph runs after warmup untimed ones, on seeded random inputs and weights (weights with data keep theirs).
    check: compare every operator, folded weight and output with the CPU reference in double
    (result.check; result.check["passed"] is False above the tolerance). op_sum: also time
    every operator alone.

    The result (RunResult): median_ms, p10_ms, p90_ms, launches, report (the object `superopt
    run --json` prints), and, with outputs=True, outputs: the graph's outputs as NumPy arrays
    (float64, on the CPU reference from the same seeded values, or from `inputs` {name: array};
    what Graph.evaluate() returns). The GIL is released while it runs.
    """
    if not isinstance(graph, Graph):
        graph = load(graph)
    report = _json.loads(_superopt.run(graph._handle, device, int(threads or 0), int(repeat), int(warmup),
                                       bool(check), bool(op_sum), int(seed)))
    values = graph.evaluate(inputs=inputs, seed=seed) if outputs else None
    return RunResult(report, values)

