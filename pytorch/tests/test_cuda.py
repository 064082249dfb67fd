"""What only a GPU shows: torch.compile without graph breaks, CUDA-graph capture, PyTorch's current
stream, no host synchronisation and no allocation per call after the first. Skipped without CUDA
(the other test files run on CUDA tensors too where a GPU exists)."""
import copy

import pytest
import torch
import torch.nn.functional as F

import nova_torch
from nova_torch import functional
from conftest import random_conv, reference, rel_l2
from test_modules import model_tolerance, small_resnet

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
compile_available = pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch.compile needs PyTorch 2")


def nova_resnet(dtype=torch.float16):
    model = small_resnet("cuda").to(dtype=dtype, memory_format=torch.channels_last)
    return nova_torch.fuse_conv_bn_relu(model)


def fp16_input(batch=4, size=32):
    return torch.randn(batch, 3, size, size, device="cuda").half().to(memory_format=torch.channels_last)


def test_fused_kernel_layers_match_fp64():
    # fp16 NHWC with C and K multiples of 16: AUTO's fused kernel; sizes that leave border tiles.
    for c, k, h in [(16, 32, 58), (64, 64, 30), (128, 128, 15)]:
        x, w, b = random_conv(16, c, h, h, k, dtype=torch.float16, device="cuda")
        x = x.to(memory_format=torch.channels_last)
        y = nova_torch.conv2d(x, w, b, relu=True)
        d = nova_torch.describe(x, w, b)
        assert rel_l2(y, reference(x, w, b, relu=True)) <= 1.5 * d["predicted_error"], d


@compile_available
@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
def test_torch_compile_fullgraph(mode, monkeypatch):
    torch._dynamo.reset()
    runs = []
    impl = functional._conv2d_impl
    monkeypatch.setattr(functional, "_conv2d_impl", lambda *args: runs.append(1) or impl(*args))
    model = small_resnet("cuda")
    x = fp16_input()
    with torch.no_grad():
        ref = copy.deepcopy(model).double()(x.double()).cpu()
        half = model.half().to(memory_format=torch.channels_last)
        cudnn_error = rel_l2(half(x), ref)
        compiled = torch.compile(nova_torch.fuse_conv_bn_relu(half), fullgraph=True, mode=mode)  # no graph break
        for _ in range(3):  # reduce-overhead records its CUDA graph on a later call
            out = compiled(x)
    assert len(runs) >= 13  # the op ran inside the compiled graph (at least once per NOVA layer)
    assert rel_l2(out, ref) <= 3 * cudnn_error


def test_cuda_graph_capture_replays_new_inputs():
    model = nova_resnet()
    static_x = fp16_input()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(side):  # warm up: plans, handles and filters made outside
        model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        static_y = model(static_x)
    for _ in range(3):
        fresh = fp16_input()
        static_x.copy_(fresh)
        graph.replay()
        with torch.no_grad():
            expected = model(fresh)
        assert rel_l2(static_y, expected.double().cpu()) <= 1e-3


def test_runs_on_the_current_stream_without_synchronising():
    x, w, b = random_conv(8, 64, 28, 28, 64, dtype=torch.float16, device="cuda")
    x = x.to(memory_format=torch.channels_last)
    nova_torch.conv2d(x, w, b)  # first call: plan and filter made
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(50_000_000)  # keeps the side stream busy: results only if NOVA ran on it
        produced = x * 2  # written on the side stream after the sleep
        torch.cuda.set_sync_debug_mode("error")  # PyTorch's own synchronising calls raise
        try:
            y = nova_torch.conv2d(produced, w, b)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        assert not stream.query()  # returned while the stream still sleeps: the library did not wait either
    stream.synchronize()
    assert rel_l2(y, reference(x * 2, w, b)) <= 1.5 * nova_torch.describe(x, w, b)["predicted_error"]


def test_nothing_allocated_per_call_after_the_first():
    for layout in (torch.channels_last, torch.contiguous_format):  # NCHW needs workspace
        x, w, b = random_conv(8, 64, 28, 28, 64, dtype=torch.float16, device="cuda")
        x = x.to(memory_format=layout)
        nova_torch.conv2d(x, w, b)
        torch.cuda.synchronize()
        segments = torch.cuda.memory_stats()["segment.all.allocated"]
        for _ in range(20):
            nova_torch.conv2d(x, w, b)
        torch.cuda.synchronize()
        assert torch.cuda.memory_stats()["segment.all.allocated"] == segments  # no cudaMalloc


def test_fp16_resnet_logits_within_three_times_cudnns_error():
    model = small_resnet("cuda")
    x = torch.randn(8, 3, 64, 64, device="cuda")
    with torch.no_grad():
        ref = model.double()(x.double()).cpu()
        half = model.half().to(memory_format=torch.channels_last)
        xh = x.half().to(memory_format=torch.channels_last)
        cudnn = half(xh)
        nova = nova_torch.fuse_conv_bn_relu(half)(xh)
    assert rel_l2(nova, ref) <= 3 * rel_l2(cudnn, ref)
