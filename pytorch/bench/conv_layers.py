"""NOVA against PyTorch's own convolution on the 3x3 layers of ResNet-50 and VGG-16, on whatever GPU
PyTorch drives: cuDNN on an NVIDIA build of PyTorch, MIOpen on a ROCm build (torch.cuda is HIP
there). Per layer, batch and layout (NHWC = channels_last, NCHW): the time of
torch.nn.functional.conv2d (benchmark mode: cudnn.benchmark, which is also MIOpen's search) and of
nova_torch.conv2d (transform "auto", path AUTO), their ratio NOVA / PyTorch (below 1: NOVA is
faster), and each one's relative L2 error against an FP64 convolution of the same rounded inputs.
Times are the mean of graph replays (torch.cuda.CUDAGraph: a CUDA or HIP graph) where capture works,
else of back-to-back calls between events; the "timing" column says which. A row where nova_torch
fell back to PyTorch says so instead of a ratio. Prints a Markdown table; --json FILE keeps the rows.
Usage: python3 conv_layers.py [--batch 1 32] [--layout nhwc nchw] [--dtype fp16] [--json FILE]
With nova_torch from a build tree: PYTHONPATH=<build>/pytorch python3 pytorch/bench/conv_layers.py"""
import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F

import nova_torch

# (model, channels in = out, height = width): the 3x3 stride-1 layers the project benchmarks.
LAYERS = [("ResNet-50", 64, 56), ("ResNet-50", 128, 28), ("ResNet-50", 256, 14), ("ResNet-50", 512, 7),
          ("VGG-16", 64, 224), ("VGG-16", 128, 112), ("VGG-16", 256, 56), ("VGG-16", 512, 28), ("VGG-16", 512, 14)]
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def platform():
    """What runs the convolutions: the GPU, the GPU runtime and PyTorch's convolution library."""
    hip = getattr(torch.version, "hip", None)
    runtime = f"ROCm/HIP {hip}" if hip else f"CUDA {torch.version.cuda}"
    return {"gpu": torch.cuda.get_device_name(), "runtime": runtime, "torch": torch.__version__,
            "library": "MIOpen" if hip else "cuDNN", "nova_library": nova_torch.LIBRARY_PATH}


def events_us(fn, reps):
    """The mean time of `reps` back-to-back calls of fn between two events, in microseconds."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) * 1000 / reps


def timed_us(fn, reps, use_graph):
    """(microseconds, "graph" or "events"): graph replay of fn where capture works, else events."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):  # warm-up: algorithm search, filter transform, lazy initialisation
            fn()
    torch.cuda.synchronize()
    if use_graph and hasattr(torch.cuda, "CUDAGraph"):
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                fn()
            graph.replay()
            torch.cuda.synchronize()
            return events_us(graph.replay, reps), "graph"
        except RuntimeError as e:  # e.g. a library that synchronises or allocates while captured
            torch.cuda.synchronize()
            print(f"note: graph capture failed ({str(e).splitlines()[0]}); timing with events", file=sys.stderr)
    return events_us(fn, reps), "events"


def reference(x, w):
    """FP64 convolution of the (rounded) inputs: on the GPU, else on the CPU where the GPU has no
    float64 convolution."""
    try:
        return F.conv2d(x.double(), w.double(), padding=1)
    except RuntimeError:
        return F.conv2d(x.double().cpu(), w.double().cpu(), padding=1).to(x.device)


def rel_l2(y, ref):
    y = y.double().contiguous(memory_format=torch.contiguous_format)
    return ((y - ref).norm() / ref.norm()).item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--layout", nargs="+", choices=["nhwc", "nchw"], default=["nhwc", "nchw"])
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="fp16")
    parser.add_argument("--reps", type=int, default=50, help="timed repetitions per entry (default 50)")
    parser.add_argument("--no-graph", action="store_true", help="time with events only")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the platform as JSON")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("conv_layers.py: no GPU visible to PyTorch (torch.cuda.is_available() is False)")
    torch.backends.cudnn.benchmark = True
    dtype = DTYPES[args.dtype]
    info = platform()
    lib = info["library"]
    print(f"GPU {info['gpu']}; {info['runtime']}; PyTorch {info['torch']} ({lib}); nova_torch over "
          f"{info['nova_library']}; {args.dtype}; time: mean of {args.reps} "
          f"{'events-timed calls' if args.no_graph else 'graph replays where capture works'}\n")
    print(f"| layer | batch | layout | NOVA transform | {lib} (µs) | NOVA (µs) | NOVA / {lib} | "
          f"rel. error NOVA | rel. error {lib} | timing |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---|", flush=True)
    rows = []
    torch.manual_seed(0)
    for batch in args.batch:
        for model, c, hw in LAYERS:
            x = torch.randn(batch, c, hw, hw, device="cuda").to(dtype)
            w = (torch.randn(c, c, 3, 3, device="cuda") / (3 * c ** 0.5)).to(dtype)
            ref = reference(x, w)
            for layout in args.layout:
                xl = x.to(memory_format=torch.channels_last) if layout == "nhwc" else x.contiguous()
                wl = w.to(memory_format=torch.channels_last) if layout == "nhwc" else w.contiguous()
                described = nova_torch.describe(xl, wl, None, 1)
                row = {"layer": f"{model} {c}@{hw}", "batch": batch, "layout": layout.upper(), "dtype": args.dtype}
                torch_us, torch_timing = timed_us(lambda: F.conv2d(xl, wl, padding=1), args.reps, not args.no_graph)
                row.update(torch_us=torch_us, torch_error=rel_l2(F.conv2d(xl, wl, padding=1), ref))
                if described["runs"] != "nova":
                    row.update(nova="fallback: " + described["reason"])
                    print(f"| {row['layer']} | {batch} | {row['layout']} | PyTorch ran it: {described['reason']} | "
                          f"{torch_us:.1f} | | | | {row['torch_error']:.1e} | {torch_timing} |", flush=True)
                    rows.append(row)
                    continue
                nova_us, nova_timing = timed_us(lambda: nova_torch.conv2d(xl, wl, None, 1), args.reps, not args.no_graph)
                row.update(nova=described["transform"], nova_us=nova_us, ratio=nova_us / torch_us,
                           nova_error=rel_l2(nova_torch.conv2d(xl, wl, None, 1), ref),
                           timing=torch_timing if torch_timing == nova_timing else f"{lib} {torch_timing}, NOVA {nova_timing}")
                rows.append(row)
                print(f"| {row['layer']} | {batch} | {row['layout']} | {row['nova']} | {torch_us:.1f} | {nova_us:.1f} | "
                      f"{row['ratio']:.2f} | {row['nova_error']:.1e} | {row['torch_error']:.1e} | {row['timing']} |",
                      flush=True)
            del x, w, ref
            torch.cuda.empty_cache()
    print()
    for batch in args.batch:
        for layout in args.layout:
            ratios = [r["ratio"] for r in rows if r["batch"] == batch and r["layout"] == layout.upper() and "ratio" in r]
            if ratios:
                mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
                print(f"batch {batch} {layout.upper()}: geometric mean NOVA / {lib} {mean:.2f} over {len(ratios)} layers")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"platform": info, "dtype": args.dtype, "reps": args.reps, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
