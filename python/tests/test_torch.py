"""superopt.torch.optimize: a PyTorch module in, an optimized module out that computes the same
function: equal outputs in float64 (1e-9 relative) on torchvision models and a transformer encoder."""
import copy
import functools
import io
import math

import pytest

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

import superopt  # noqa: E402
import superopt.torch  # noqa: E402

TOLERANCE = 1e-9


@functools.lru_cache(maxsize=None)
def cnn_rules():
    """superopt.cnn_rules(), what superopt.torch.optimize searches with by default, read once for
    the file as one RuleDatabase (reading the three databases took about 2.5 s in each of 16 calls).
    test_several_inputs_and_outputs keeps the default, rules=None."""
    return superopt.RuleDatabase(superopt.cnn_rules())


def relative_error(got, want):
    return float((got - want).abs().max() / want.abs().max())


def optimized_equals_original(module, example, **options):
    torch.manual_seed(0)
    module = module.double().eval()
    example = example.double()
    optimized = superopt.torch.optimize(module, example, rules=cnn_rules(), time_limit=30, **options)
    assert isinstance(optimized, torch.nn.Module)
    assert optimized.result.check["passed"], optimized.result.check
    other = torch.rand_like(example) * 2 - 1  # not the example: the module is not specialised to it
    with torch.no_grad():
        for x in (example, other):
            want, got = module(x), optimized(x)
            assert got.dtype == torch.float64 and got.shape == want.shape
            assert relative_error(got, want) <= TOLERANCE
    return optimized


def test_linear_of_several_rows_stays_a_matrix_product():
    torch.manual_seed(8)
    module = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    assert "torch.addmv(" in optimized_equals_original(module, torch.rand(1, 16)).source
    source = optimized_equals_original(module, torch.rand(3, 16)).source
    assert "torch.addmm(" in source and "torch.addmv(" not in source


def test_resnet18_with_batch_norms_folded():
    """resnet18 with trained-looking batch norms (statistics and affine not 1 and 0; one
    optimization, about 10 s, checked for everything): they fold into their convolution's weight
    and bias (the module's peepholes, module_folds.py), and pads into the op's padding."""
    torch.manual_seed(4)
    module = torchvision.models.resnet18()
    for m in module.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            for t in (m.weight.data, m.bias.data, m.running_mean):
                t.uniform_(-1, 1)
            m.running_var.uniform_(0.5, 2)
    optimized = optimized_equals_original(module, torch.rand(1, 3, 64, 64))
    assert all(b.dtype == torch.float64 for b in optimized.buffers())
    assert "batch_norm" not in optimized.source and "F.pad" not in optimized.source
    assert optimized.source.count("F.conv2d(") == 20 and "None" not in optimized.source
    # the classifier at batch 1 is a matrix-vector product; a convolution's relu runs in place
    assert optimized.source.count("torch.addmv(") == 1 and "torch.addmm(" not in optimized.source
    assert "torch.relu(" not in optimized.source


def test_squeezenet1_1():
    torch.manual_seed(2)
    optimized_equals_original(torchvision.models.squeezenet1_1(), torch.rand(1, 3, 64, 64))


def test_transformer_encoder():
    torch.manual_seed(3)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0)
    optimized = optimized_equals_original(torch.nn.TransformerEncoder(layer, num_layers=2), torch.rand(8, 2, 32))
    source = optimized.source
    # matmul by a weight plus its bias, as nn.Linear runs: per layer Q, K and V's, the output's, two feed-forward
    assert source.count("torch.addmm(") == 8 and "F.linear(" not in source
    assert "F.layer_norm(" in source and ".mean(" not in source  # layer norm spelled out
    # the attention: Q's scale folded into the in-projection's weight, Q.K^T and the weights times V as bmm
    assert " / " not in source and source.count("torch.bmm(") == 4 and "contiguous" not in source
    # nn.MultiheadAttention exports Q, K and V as one packed projection already: nothing to merge
    # (each nn.Linear arrives as one linear layer: the importer takes the bias into it)
    assert optimized.folds == {"layer_norm": 4, "attention_scale": 2}
    assert "\n    del " in source  # intermediates freed after their last use (graph_module.free_after_last_use)


class SelfAttention(torch.nn.Module):
    """Multi-head self-attention written as in many models: Q, K and V as three nn.Linear on one
    input, the scale on the scores or on Q; with reread, Q's projection is also added to the output."""

    def __init__(self, scale_on="scores", reread=False, d=32, heads=4, seq=8, batch=2):
        super().__init__()
        self.q, self.k, self.v, self.out = (torch.nn.Linear(d, d) for _ in range(4))
        self.shape, self.heads, self.scale_on, self.reread = (batch, seq, d), heads, scale_on, reread

    def forward(self, x):
        b, n, d = self.shape
        projected, heads = self.q(x), (b, n, self.heads, d // self.heads)
        q, k, v = (p.reshape(heads).transpose(1, 2) for p in (projected, self.k(x), self.v(x)))
        if self.scale_on == "scores":
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        else:
            scores = torch.matmul(q * (d // self.heads) ** -0.5, k.transpose(-2, -1))
        out = self.out(torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, n, d))
        return out + projected if self.reread else out


@pytest.mark.parametrize("scale_on", ["scores", "q"])
def test_attention_projections_merge_and_scale_folds(scale_on):
    """The attention peepholes (module_folds.py): Q, K and V's projections, reading one input, run
    as one GEMM on the concatenated weights, and the scale is folded into Q's part of them."""
    torch.manual_seed(6)
    optimized = optimized_equals_original(SelfAttention(scale_on), torch.rand(2, 8, 32))
    source = optimized.source
    assert source.count("torch.addmm(") == 2  # Q, K and V's one, the output's
    assert " / " not in source and " * " not in source
    assert optimized.folds == {"attention_projections": 1, "attention_scale": 1}


class LooksLikeAttention(torch.nn.Module):
    """matmul, a scale, softmax, matmul, as attention is, but nothing to fold: the scores are the
    input times a weight (no projection whose weight could take the scale), the scale is an input
    (not a weight), and the two linears read different inputs (nothing to merge)."""

    def __init__(self, d=16):
        super().__init__()
        self.w = torch.nn.Parameter(torch.rand(d, d) - 0.5)
        self.a, self.b = torch.nn.Linear(d, d), torch.nn.Linear(d, d)

    def forward(self, x, y, s):
        scores = torch.softmax(torch.matmul(x, self.w) / 4.0, dim=-1)
        mixed = torch.matmul(torch.softmax(self.a(x) * s, dim=-1), self.b(y).transpose(-2, -1))
        return torch.matmul(scores, self.w) + mixed


def test_attention_peepholes_do_not_fire_on_what_is_not_attention():
    torch.manual_seed(8)
    module = LooksLikeAttention().double().eval()
    inputs = (torch.rand(2, 16, 16, dtype=torch.float64), torch.rand(2, 16, 16, dtype=torch.float64),
              torch.rand(1, dtype=torch.float64) + 0.5)
    optimized = superopt.torch.optimize(module, inputs, rules=cnn_rules(), time_limit=20)
    assert optimized.result.check["passed"]
    assert optimized.folds == {} and optimized.source.count("torch.addmm(") == 2  # the two nn.Linear
    assert " / " in optimized.source and " * " in optimized.source  # both scales stay where they were
    with torch.no_grad():
        for scale in (inputs[2], torch.tensor([3.0], dtype=torch.float64)):
            args = inputs[:2] + (scale,)
            assert relative_error(optimized(*args), module(*args)) <= TOLERANCE


def test_intermediates_are_freed_after_their_last_use():
    """forward() drops each local after its last reader (a node name in a comment is not a
    reader), never what it returns, nor an input."""
    from superopt.graph_module import free_after_last_use
    lines = ["v1 = x0 + 1  # a: ewadd", "v2 = v1 * 2  # v1: ewmul", "t1 = F.pad(v2, (1, 1))",
             "v3 = t1 + v1  # v10: ewadd", "v4 = torch.relu(v3)  # c: relu"]
    assert free_after_last_use(lines, "v4, v2") == [
        lines[0], lines[1], lines[2], lines[3], "del t1, v1", lines[4], "del v3"]


def test_attention_scale_stays_where_its_range_is_read_again():
    """Q's projection read by the attention and by the output: Q's scale stays a multiplication (it
    is not folded into values something else reads unscaled); the scores' goes into K's weight."""
    torch.manual_seed(7)
    source = optimized_equals_original(SelfAttention("q", reread=True), torch.rand(2, 8, 32)).source
    assert source.count(" * ") == 1
    source = optimized_equals_original(SelfAttention("scores", reread=True), torch.rand(2, 8, 32)).source
    assert " / " not in source and " * " not in source


def test_several_inputs_and_outputs():
    class TwoWay(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(16, 16)
            self.b = torch.nn.Linear(16, 16)

        def forward(self, x, y):
            return torch.relu(self.a(x)) + self.b(y), self.a(y)

    module = TwoWay().double().eval()
    x, y = torch.rand(4, 16, dtype=torch.float64), torch.rand(4, 16, dtype=torch.float64)
    optimized = superopt.torch.optimize(module, (x, y), time_limit=20)
    with torch.no_grad():
        for got, want in zip(optimized(x, y), module(x, y)):
            assert relative_error(got, want) <= TOLERANCE


def test_refuses_what_it_cannot_represent():
    class Cumulative(torch.nn.Module):
        def forward(self, x):
            return torch.cumsum(x, dim=1)

    with pytest.raises(superopt.Error, match="unsupported operator 'CumSum'"):
        superopt.torch.optimize(Cumulative().eval(), torch.rand(2, 3))
    with pytest.raises(ValueError, match="training mode"):
        superopt.torch.optimize(torch.nn.Linear(2, 2), torch.rand(1, 2))
    with pytest.raises(TypeError):
        superopt.torch.optimize(torch.nn.Linear(2, 2).eval(), [1, 2])


@pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="PyTorch without oneDNN")
@pytest.mark.parametrize("name", ["resnet18", "squeezenet1_1"])
def test_float32_in_the_blocked_layout(name):
    """layout="mkldnn": convolutions on weights reordered once, relu, adds and pooling in oneDNN's
    blocked layout (mkldnn_codegen.py); equal to the original within float32 rounding."""
    torch.manual_seed(5)
    module = getattr(torchvision.models, name)().eval()
    example = torch.rand(1, 3, 64, 64)
    optimized = superopt.torch.optimize(module, example, rules=cnn_rules(), time_limit=30, layout="mkldnn")
    assert optimized.layout == "mkldnn" and "torch.mkldnn_convolution(" in optimized.source
    with torch.no_grad():
        for x in (example, torch.rand_like(example)):
            want, got = module(x), optimized(x)
            assert not got.is_mkldnn and got.shape == want.shape
            assert relative_error(got, want) <= 1e-4
    copied = copy.deepcopy(optimized)  # the reordered weights are made again, not copied
    saved = io.BytesIO()
    torch.save(optimized.state_dict(), saved)  # the dense buffers only
    with torch.no_grad():
        assert torch.equal(copied(example), optimized(example))
    auto = superopt.torch.optimize(module, example, rules=cnn_rules(), time_limit=30)  # the faster of both, timed
    assert auto.layout in ("dense", "mkldnn")


def test_auto_layout_is_dense_without_convolutions():
    """A float32 transformer has nothing the blocked layout runs differently: "auto" builds the
    dense form only (it does not time two equal forms and report the one noise picked)."""
    torch.manual_seed(9)
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0)
    module = torch.nn.TransformerEncoder(layer, num_layers=1).eval()
    example = torch.rand(8, 2, 32)
    optimized = superopt.torch.optimize(module, example, rules=cnn_rules(), time_limit=20)
    assert optimized.layout == "dense"
    with torch.no_grad():
        assert relative_error(optimized(example), module(example)) <= 1e-5


def test_layout_refused_where_it_cannot_run():
    module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3)).double().eval()
    with pytest.raises(ValueError, match="layout 'mkldnn' needs a float32 module"):
        superopt.torch.optimize(module, torch.rand(1, 3, 8, 8, dtype=torch.float64), layout="mkldnn")
    with pytest.raises(ValueError, match="layout must be"):
        superopt.torch.optimize(module, torch.rand(1, 3, 8, 8, dtype=torch.float64), layout="nchw")
