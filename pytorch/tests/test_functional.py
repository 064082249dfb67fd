"""nova_torch.conv2d against FP64 on odd shapes, both memory formats, bias and ReLU; every fallback
reason; bad input; the filter cache's invalidation; gradients."""
import os

import pytest
import torch
import torch.nn.functional as F

import nova_torch
from nova_torch import functional
from conftest import random_conv, reference, rel_l2

# (N, C, H, W, K, padding): border tiles, one channel, one pixel, rectangles.
ODD_SHAPES = [(1, 1, 1, 1, 1, 1), (2, 3, 7, 5, 4, 0), (1, 5, 9, 11, 7, 2), (3, 16, 6, 6, 8, 1), (2, 32, 13, 17, 16, 1)]
# The CPU tests' allowance over the precision model for the sampling spread of small shapes.
SPREAD = 2.0


def check_close(y, x, w, b, padding, relu, transform="auto"):
    d = nova_torch.describe(x, w, b, padding, transform=transform)
    assert d["runs"] == "nova", d
    err = rel_l2(y, reference(x, w, b, padding, relu))
    assert err <= SPREAD * d["predicted_error"], (d, err)


@pytest.mark.parametrize("shape", ODD_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("bias_relu", [False, True])
def test_matches_fp64(device, shape, dtype, channels_last, bias_relu):
    n, c, h, w, k, pad = shape
    x, wt, b = random_conv(n, c, h, w, k, dtype=dtype, device=device, bias=bias_relu)
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    before = nova_torch.fallback_counts()
    y = nova_torch.conv2d(x, wt, b, pad, relu=bias_relu)
    assert nova_torch.fallback_counts() == before
    assert y.dtype == dtype and y.device == x.device
    assert y.shape == (n, k, h + 2 * pad - 2, w + 2 * pad - 2)
    nhwc = channels_last and not x.is_contiguous()
    assert y.is_contiguous(memory_format=torch.channels_last if nhwc else torch.contiguous_format)
    check_close(y, x, wt, b, pad, bias_relu)


FP32_BUDGET = 1e-5  # the runtime's: a named transform predicted beyond it is refused (runtime.h)


@pytest.mark.parametrize("name", sorted(t[0] for t in nova_torch.transforms()))
def test_every_transform_by_name(device, name):
    _, _, r, _, amp2d = next(t for t in nova_torch.transforms() if t[0] == name)
    x, w, b = random_conv(2, 8, 12, 10, 6, r=r, device=device)
    y = nova_torch.conv2d(x, w, b, r // 2, transform=name)
    if 0.7 * 2.0 ** -24 * amp2d <= FP32_BUDGET:
        check_close(y, x, w, b, r // 2, False, transform=name)
    else:  # refused by the runtime: PyTorch's result, and the reason said
        assert "inaccurate" in nova_torch.explain(x, w, b, r // 2, transform=name)
        assert torch.equal(y, F.conv2d(x, w, b, padding=r // 2))


def test_other_strides_are_made_contiguous_once(device):
    x, w, b = random_conv(2, 6, 10, 12, 5, device=device)
    transposed = x.transpose(2, 3)  # neither layout
    y = nova_torch.conv2d(transposed, w, b)
    check_close(y, transposed.contiguous(), w, b, 1, False)
    odd_offset = torch.randn(1 + x.numel(), device=device)[1:].view_as(x)  # 4-byte offset: not 16-aligned
    check_close(nova_torch.conv2d(odd_offset, w, b), odd_offset, w, b, 1, False)


def test_unbatched_input(device):
    x, w, b = random_conv(1, 4, 7, 7, 3, device=device)
    y = nova_torch.conv2d(x[0], w, b)
    assert y.shape == (3, 7, 7)
    check_close(y.unsqueeze(0), x, w, b, 1, False)


def test_padding_spellings(device):
    x, w, b = random_conv(1, 4, 7, 7, 3, device=device)
    for padding, pad in [("same", 1), ("valid", 0), ((2, 2), 2), ([1], 1)]:
        y = nova_torch.conv2d(x, w, b, padding)
        check_close(y, x, w, b, pad, False)


# What falls back, how explain() words it, and that the result is PyTorch's own.
FALLBACKS = [
    (dict(stride=2), "stride (2, 2)"),
    (dict(dilation=2), "dilation (2, 2)"),
    (dict(groups=2), "groups=2"),
    (dict(kernel=(3, 1), padding=(1, 0)), "square kernels"),
    (dict(kernel=(7, 7), padding=3), "kernel 7x7: no generated transform"),
    (dict(padding=(1, 2)), "equal padding"),
    (dict(padding=3), "padding 3"),
    (dict(kernel=(4, 4), padding="same"), "even kernel"),
    (dict(dtype=torch.float64), "dtype torch.float64"),
    (dict(batch=0), "empty tensor"),
]


@pytest.mark.parametrize("case,reason", FALLBACKS, ids=[r for _, r in FALLBACKS])
def test_every_fallback_reason(device, case, reason):
    kh, kw = case.get("kernel", (3, 3))
    dtype = case.get("dtype", torch.float32)
    x = torch.randn(case.get("batch", 2), 4, 9, 9, dtype=dtype, device=device)
    w = torch.randn(4 // case.get("groups", 1) * 2, 4 // case.get("groups", 1), kh, kw, dtype=dtype, device=device)
    b = torch.randn(w.shape[0], dtype=dtype, device=device)
    kwargs = {k: case[k] for k in ("stride", "dilation", "groups") if k in case}
    padding = case.get("padding", 1)
    assert reason in nova_torch.explain(x, w, b, padding, **kwargs)
    before = nova_torch.fallback_counts()
    y = nova_torch.conv2d(x, w, b, padding, relu=True, **kwargs)
    expected = F.relu(F.conv2d(x, w, b, padding=padding, **kwargs))
    assert torch.equal(y, expected)
    grown = nova_torch.fallback_counts() - before
    assert len(grown) == 1 and reason in next(iter(grown))


def test_inaccurate_named_transform_falls_back_with_the_reason(device):
    x, w, b = random_conv(1, 4, 12, 12, 4, device=device)
    d = nova_torch.describe(x.half(), w.half(), b.half(), transform="f8x3_fp16")
    assert d["runs"] == "torch" and "inaccurate" in d["reason"]
    if device.type == "cuda":  # CPU PyTorch has no float16 convolution to fall back to
        before = nova_torch.fallback_counts()
        nova_torch.conv2d(x.half(), w.half(), b.half(), transform="f8x3_fp16")
        assert any("inaccurate" in r for r in nova_torch.fallback_counts() - before)
    y = nova_torch.conv2d(x, w, b, transform="f8x3_fp16")  # fp32's budget admits this one
    check_close(y, x, w, b, 1, False, transform="f8x3_fp16")


def test_tensors_on_a_device_nova_does_not_serve_fall_back():
    x, w = torch.randn(1, 3, 8, 8, device="meta"), torch.randn(4, 3, 3, 3, device="meta")
    assert "device meta" in nova_torch.explain(x, w)
    y = nova_torch.conv2d(x, w)
    assert y.device.type == "meta" and y.shape == (1, 4, 8, 8)


def test_threads_share_the_handle_and_caches(device):
    """Eight threads, each with its own layer and shape, twenty calls each: every result is the one
    the same call gives alone (the runtime runs them concurrently: ctypes releases the GIL)."""
    import threading
    layers = [random_conv(2, 4 + 4 * i, 10 + i, 9 + i, 8, dtype=torch.float32, device=device) for i in range(8)]
    alone = [nova_torch.conv2d(x, w, b) for x, w, b in layers]
    if device.type == "cuda":
        torch.cuda.synchronize()
    failures = []

    def work(i):
        x, w, b = layers[i]
        stream = torch.cuda.Stream(device) if device.type == "cuda" else None
        for _ in range(20):
            if stream is not None:
                with torch.cuda.stream(stream):
                    y = nova_torch.conv2d(x, w, b)
                stream.synchronize()
            else:
                y = nova_torch.conv2d(x, w, b)
            if not torch.equal(y, alone[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_image_smaller_than_the_filter_is_pytorchs_error(device):
    x, w, _ = random_conv(1, 2, 2, 2, 2, device=device)
    assert "smaller than" in nova_torch.explain(x, w, None, 0)
    with pytest.raises(RuntimeError):
        nova_torch.conv2d(x, w, None, 0)


BAD_INPUTS = [
    (lambda x, w, b: (x[0, 0], w, b), "4-D (N, C, H, W) or 3-D"),
    (lambda x, w, b: (x.unsqueeze(0), w, b), "4-D (N, C, H, W) or 3-D"),
    (lambda x, w, b: (x, w[0], b), "weight must be 4-D"),
    (lambda x, w, b: (x, w.to("meta"), b), "different devices"),
    (lambda x, w, b: (x, w, b.to("meta")), "different devices"),
    (lambda x, w, b: (x, w.double(), b), "mixed dtypes"),
    (lambda x, w, b: (x, w, b.double()), "mixed dtypes"),
    (lambda x, w, b: (x, w[:, :3], b), "does not fit input with 4 channels"),
    (lambda x, w, b: (x, w, b[:2]), "bias must have shape"),
]


@pytest.mark.parametrize("make,message", BAD_INPUTS)
def test_bad_input_is_a_clear_error(make, message):
    x, w, b = random_conv(2, 4, 6, 6, 5)
    args = make(x, w, b)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        nova_torch.conv2d(*args)


def test_unknown_transform_names_are_errors():
    x, w, b = random_conv(1, 4, 6, 6, 4)
    with pytest.raises(ValueError, match="unknown transform 'f4x3_nonesuch'"):
        nova_torch.conv2d(x, w, b, transform="f4x3_nonesuch")
    with pytest.raises(ValueError, match="unknown transform 'f4x5_kappa' for a 3x3 filter"):
        nova_torch.conv2d(x, w, b, transform="f4x5_kappa")
    with pytest.raises(ValueError, match="not a transform name"):
        nova_torch.NovaConv2d(4, 4, 3, transform="fast")


JIT_DATA = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "jit", "data")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_a_loaded_transform_runs_by_name(device, dtype):
    """F(5,3), discovered after the build (tests/jit/data): loaded, then used like a built-in one (on a GPU,
    compiled by NVRTC at first use)."""
    name, m, r, _, _ = nova_torch.load_transform(os.path.join(JIT_DATA, "f5x3_fp16.json"))
    assert (name, m, r) == ("f5x3_fp16", 5, 3)
    assert name in [t[0] for t in nova_torch.transforms()]
    x, w, b = random_conv(2, 12, 17, 14, 10, dtype=dtype, device=device)
    y = nova_torch.conv2d(x, w, b, 1, transform=name)
    check_close(y, x, w, b, 1, False, transform=name)


def test_bad_transform_files_raise_with_the_reason(tmp_path):
    with pytest.raises(nova_torch.NovaError, match="file error"):
        nova_torch.load_transform(tmp_path / "missing.json")
    broken = tmp_path / "f5x3_broken.json"
    broken.write_text(open(os.path.join(JIT_DATA, "f5x3_fp16.json")).read()[:200])
    with pytest.raises(nova_torch.NovaError, match="invalid config"):
        nova_torch.load_transform(broken)


def test_filter_cache_follows_every_kind_of_weight_change(device):
    conv = torch.nn.Conv2d(4, 6, 3, padding=1).to(device)
    x = torch.randn(2, 4, 8, 8, device=device)
    run = lambda: nova_torch.conv2d(x, conv.weight, conv.bias)
    first = run()
    assert torch.equal(run(), first)  # a hit: the same bits
    with torch.no_grad():
        conv.weight.mul_(2)  # in place, as an optimiser step
    check_close(run(), x, conv.weight, conv.bias, 1, False)
    conv.load_state_dict({"weight": torch.randn(6, 4, 3, 3), "bias": torch.zeros(6)})
    check_close(run(), x, conv.weight, conv.bias, 1, False)
    conv.weight.data = torch.randn(6, 4, 3, 3, device=device)  # a new storage, same tensor object
    check_close(run(), x, conv.weight, conv.bias, 1, False)
    conv.double().float()  # .to(dtype) both ways
    check_close(run(), x, conv.weight, conv.bias, 1, False)
    torch.optim.SGD(conv.parameters(), lr=0.5).zero_grad()
    run().sum().backward()
    torch.optim.SGD(conv.parameters(), lr=0.5).step()
    check_close(run(), x, conv.weight, conv.bias, 1, False)


def test_transformed_filters_go_with_their_weights():
    nova_torch.clear_filter_cache()
    x = torch.randn(1, 8, 8, 8)
    w = torch.randn(8, 8, 3, 3)
    nova_torch.conv2d(x, w)
    held = nova_torch.filter_cache_bytes()
    assert held > 0
    del w
    assert nova_torch.filter_cache_bytes() == 0


@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("relu", [False, True])
def test_gradients_match_pytorch(device, padding, relu):
    x, w, b = random_conv(2, 6, 9, 8, 5, device=device)
    inputs = [t.clone().requires_grad_() for t in (x, w, b)]
    grad = torch.randn(2, 5, 9 + 2 * padding - 2, 8 + 2 * padding - 2, dtype=torch.float64)
    before = nova_torch.fallback_counts()
    nova_torch.conv2d(*inputs, padding, relu=relu).backward(grad.to(device=device, dtype=x.dtype))
    assert nova_torch.fallback_counts() == before  # the data gradient ran through NOVA too
    ref_inputs = [t.detach().cpu().double().requires_grad_() for t in (x, w, b)]
    y = F.conv2d(*ref_inputs, padding=padding)
    (F.relu(y) if relu else y).backward(grad)
    for got, want in zip(inputs, ref_inputs):
        # The data gradient is a NOVA convolution of grad (K channels); weight and bias are PyTorch's.
        assert rel_l2(got.grad, want.grad) <= SPREAD * nova_torch.predicted_error("f8x3_standard", torch.float32, 64)


def test_double_backward_flips_back(device):
    x, w, _ = random_conv(1, 3, 6, 6, 4, device=device)
    x.requires_grad_()
    w.requires_grad_()
    (gx,) = torch.autograd.grad(nova_torch.conv2d(x, w).square().sum(), x, create_graph=True)
    (gw,) = torch.autograd.grad(gx.square().sum(), w)
    xr, wr = x.detach().cpu().double().requires_grad_(), w.detach().cpu().double().requires_grad_()
    (gxr,) = torch.autograd.grad(F.conv2d(xr, wr, padding=1).square().sum(), xr, create_graph=True)
    (gwr,) = torch.autograd.grad(gxr.square().sum(), wr)
    assert rel_l2(gw, gwr) <= 1e-4


@pytest.mark.skipif(not hasattr(torch.library, "opcheck"), reason="torch.library.opcheck needs PyTorch >= 2.4")
def test_opcheck(device):
    x, w, b = random_conv(2, 4, 7, 7, 4, device=device)
    cases = [(x, w, b, 1, "auto", 0.0, False, False),
             (x.to(memory_format=torch.channels_last), w, None, 0, "auto", 3e-3, True, False),
             (x, w.transpose(0, 1).contiguous(), b, 2, "auto", 0.0, False, True)]
    for args in cases:
        args = tuple(a.requires_grad_() if isinstance(a, torch.Tensor) else a for a in args)
        torch.library.opcheck(torch.ops.nova.conv2d.default, args)


def test_set_enabled_switches_every_call_to_pytorch(device):
    x, w, b = random_conv(1, 4, 6, 6, 4, device=device)
    previous = nova_torch.set_enabled(False)
    try:
        before = nova_torch.fallback_counts()
        assert torch.equal(nova_torch.conv2d(x, w, b), F.conv2d(x, w, b, padding=1))
        assert any("disabled" in r for r in nova_torch.fallback_counts() - before)
    finally:
        nova_torch.set_enabled(previous)
    assert previous is True


def test_bfloat16_stays_within_its_budget(device):
    x, w, b = random_conv(2, 16, 56, 56, 16, dtype=torch.bfloat16, device=device)
    assert nova_torch.describe(x.half(), w.half(), b.half(), transform="f6x3_fp16")["runs"] == "nova"  # fp16's 1e-2
    d = nova_torch.describe(x, w, b)  # no F(6,3) set fits bfloat16's 3e-2
    assert d["runs"] == "nova" and d["transform"].startswith(("f2x3_", "f4x3_")) and d["predicted_error"] <= 3e-2
    check_close(nova_torch.conv2d(x, w, b), x, w, b, 1, False)
    # Beyond the budget PyTorch runs it (in bfloat16 on every device).
    assert "inaccurate" in nova_torch.explain(x, w, b, transform="f6x3_bf16")
    before = nova_torch.fallback_counts()
    assert torch.equal(nova_torch.conv2d(x, w, b, transform="f6x3_bf16"), F.conv2d(x, w, b, padding=1))
    assert any("inaccurate" in r for r in nova_torch.fallback_counts() - before)


# The 3x3 layers of docs/runtime.md's benchmark (ResNet-50, VGG-16), K = C: (C, H = W).
BENCHMARK_LAYERS = [(64, 56), (128, 28), (256, 14), (512, 7), (64, 224), (128, 112), (256, 56), (512, 28), (512, 14)]


@pytest.mark.parametrize("channels,size", BENCHMARK_LAYERS)
def test_bfloat16_benchmark_layers_within_1p5x_the_model(channels, size):
    """Every transform within bfloat16's budget, and "auto", on each benchmark layer at batch 1 (CPU):
    large enough that the error is the model's expectation, not a small sample of it."""
    x, w, _ = random_conv(1, channels, size, size, channels, dtype=torch.bfloat16, bias=False)
    ref = reference(x, w)
    names = ["auto"] + [t[0] for t in nova_torch.transforms() if t[2] == 3 and 0.7 * 2.0 ** -8 * t[4] <= 3e-2]
    for name in names:
        d = nova_torch.describe(x, w, transform=name)
        assert d["runs"] == "nova", d
        err = rel_l2(nova_torch.conv2d(x, w, transform=name), ref)
        assert err <= 1.5 * d["predicted_error"], (name, d, err)


def test_max_error_trades_speed_for_accuracy(device):
    x, w, b = random_conv(2, 64, 28, 28, 64, dtype=torch.float16, device=device)
    x = x.to(memory_format=torch.channels_last)
    loose, tight = nova_torch.describe(x, w, b), nova_torch.describe(x, w, b, max_error=1e-3)
    assert loose["predicted_error"] <= 1e-2 and tight["predicted_error"] <= 1e-3
    # The budget rules out what the default admits (f4x3_standard: 3.7e-3), by name too.
    assert nova_torch.describe(x, w, b, transform="f4x3_standard")["runs"] == "nova"
    assert "inaccurate" in nova_torch.explain(x, w, b, transform="f4x3_standard", max_error=1e-3)
    y = nova_torch.conv2d(x, w, b, max_error=1e-3)
    assert rel_l2(y, reference(x, w, b)) <= SPREAD * tight["predicted_error"]
    assert "torch.nn.functional.conv2d" in nova_torch.explain(x, w, b, max_error=1e-6)  # nothing fits
    for bad in (-1.0, 0.0, float("nan"), "small"):
        with pytest.raises(ValueError, match="max_error"):
            nova_torch.conv2d(x, w, b, max_error=bad)
