"""Kernels compiled at run time against the same kernels compiled into the library: f4x3_standard as
built in (nvcc) and loaded again under another name (libnova_jit: NVRTC at first use), on ResNet-50
and VGG-16 layers, fp16, channels_last, the path AUTO takes (the same for both names: the same
metrics), timed as CUDA-graph replay beside cuDNN (F.conv2d, cudnn.benchmark) in the same run.
Prints a Markdown table.
Usage: python3 loaded_vs_built_in.py [--batch 32]"""
import argparse
import os
import tempfile

import torch
import torch.nn.functional as F

import nova_torch

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LAYERS = [("ResNet-50", 64, 56), ("ResNet-50", 256, 14), ("VGG-16", 128, 112), ("VGG-16", 512, 28)]


def replay_us(fn, reps=50):
    """The mean of `reps` replays of a CUDA graph of fn (after warm-up), in microseconds."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        fn()
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        graph.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000 / reps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    with open(os.path.join(ROOT, "configs", "f4x3_standard.json")) as f:
        text = f.read().replace('"f4x3_standard"', '"f4x3_standardjit"', 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f4x3_standardjit.json")
        with open(path, "w") as f:
            f.write(text)
        nova_torch.load_transform(path)
    print("| layer | batch | cuDNN (µs) | built in (µs) | loaded, NVRTC (µs) | loaded / built in | built in / cuDNN |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for model, c, hw in LAYERS:
        x = torch.randn(args.batch, c, hw, hw, device="cuda").half().to(memory_format=torch.channels_last)
        w = (torch.randn(c, c, 3, 3, device="cuda") / (3 * c ** 0.5)).half()
        cudnn = replay_us(lambda: F.conv2d(x, w, padding=1))
        times = []
        for name in ("f4x3_standard", "f4x3_standardjit"):
            y = nova_torch.conv2d(x, w, None, 1, transform=name)
            torch.testing.assert_close(y.float(), F.conv2d(x, w, padding=1).float(), atol=0.05, rtol=0.05)
            times.append(replay_us(lambda: nova_torch.conv2d(x, w, None, 1, transform=name)))
        print(f"| {model} {c}@{hw} | {args.batch} | {cudnn:.1f} | {times[0]:.1f} | {times[1]:.1f} | "
              f"{times[1] / times[0]:.3f} | {times[0] / cudnn:.2f} |", flush=True)


if __name__ == "__main__":
    main()
