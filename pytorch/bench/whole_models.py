"""Whole-model measurement of nova_torch against PyTorch on cuDNN, in one process on one GPU.

For torchvision ResNet-18, ResNet-50, VGG-16 (random initialisation) and a UNet-style model, in eval
mode, channels_last:
  latency  fp16 at each batch: PyTorch (cuDNN) eager, the NOVA model (fuse_conv_bn_relu) with NOVA
           switched off ("folded on cudnn": BatchNorm folded, PyTorch's convolutions), NOVA eager,
           NOVA with the error budget ACCURATE_FP16 ("nova accurate"); with --compile MODE also
           torch.compile of the PyTorch model and of the NOVA model. fp32 at each batch: cuDNN
           with TF32 off and on, NOVA (its fp32 path never uses TF32); compiled: cuDNN with TF32
           off and NOVA.
  accuracy relative L2 error of the logits against the FP64 model (one batch), top-1 agreement with
           the FP32 model (TF32 off) on --images synthetic images, non-finite outputs, for cuDNN fp16,
           NOVA fp16 (default and accurate), cuDNN fp32 (TF32 on) and NOVA fp32.
  overhead host time per call of one small convolution (the GPU kept busy, so only enqueueing is
           timed): F.conv2d, nova_torch.conv2d, torch.ops.nova.conv2d, and the C API call alone.
Times: median of --reps runs after warm-up, CUDA events. Tables print last (report_models.py);
--json writes all numbers.
"""
import argparse
import copy
import ctypes
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F
import torchvision

import nova_torch
from nova_torch import _runtime, functional
import report_models
from unet import UNet

# fp16 error budget of the "accurate" NOVA variant (max_error): the F(4,3) transforms of amp2D < 5.9
# and F(2,3), against the default's 1e-2 (which admits F(4,3) standard and F(6,3) fp16).
ACCURATE_FP16 = 2e-3

MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), 224),
    "resnet50": (lambda: torchvision.models.resnet50(), 224),
    "vgg16": (lambda: torchvision.models.vgg16(), 224),
    "unet": (lambda: UNet(width=64, depth=4), 128),
}


def make_model(name, seed=0):
    torch.manual_seed(seed)
    make, size = MODELS[name]
    model = make().eval()
    with torch.no_grad():  # BatchNorm statistics that are not the identity, as a trained model's
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model.cuda(), size


def images(batch, size, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(batch, 3, size, size, device="cuda", generator=g)


def median_ms(fn, reps, warmup=3):
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def pytorch_run(model):
    """Runs a (fused) model with NOVA switched off: the folded model on cuDNN."""
    def run(x):
        previous = nova_torch.set_enabled(False)
        try:
            return model(x)
        finally:
            nova_torch.set_enabled(previous)
    return run


def fp(model, dtype):
    """A copy in `dtype`, channels_last (Module.to converts in place)."""
    return copy.deepcopy(model).to(dtype=dtype, memory_format=torch.channels_last)


def channels_last(x, dtype):
    return x.to(dtype=dtype, memory_format=torch.channels_last)


def timed_row(row, eager, compiled, x, reps, compile_mode):
    """Fills `row` with each eager model's median time on x, and each compiled one's (one static-shape
    compile per model and batch) when compile_mode is set; prints it."""
    for key, run in eager.items():
        row[key] = median_ms(lambda: run(x), reps)
    for key, model in (compiled.items() if compile_mode else ()):
        torch._dynamo.reset()
        fn = torch.compile(model, mode=compile_mode, dynamic=False)
        row[key] = median_ms(lambda: fn(x), reps, warmup=3)
    print(f"  {row['model']} {row['dtype']} batch {row['batch']}: " +
          ", ".join(f"{k} {v:.2f}" for k, v in row.items() if isinstance(v, float)), flush=True)
    return row


def strict_fp32(run):
    """run with TF32 off (cuDNN's strict fp32); TF32 on is set around the runs that ask for it."""
    def strict(x):
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        return run(x)
    return strict


def with_tf32(run):
    def tf32(x):
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return run(x)
        finally:
            torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    return tf32


def latency(name, batches, reps, compile_mode, compile_batches):
    rows = []
    base, size = make_model(name)
    model = fp(base, torch.float16)
    fused = nova_torch.fuse_conv_bn_relu(model)
    accurate = nova_torch.fuse_conv_bn_relu(model, max_error=ACCURATE_FP16)
    model32 = fp(base, torch.float32)
    fused32 = nova_torch.fuse_conv_bn_relu(model32)
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    for batch in batches:
        mode = compile_mode if batch in compile_batches else ""
        x = channels_last(images(batch, size, 1), torch.float16)
        rows.append(timed_row({"model": name, "dtype": "fp16", "batch": batch},
                              {"cudnn eager": model, "folded on cudnn": pytorch_run(fused), "nova eager": fused,
                               "nova accurate": accurate},
                              {"cudnn compile": model, "nova compile": fused, "nova accurate compile": accurate},
                              x, reps, mode))
    for batch in batches:  # TF32 off except for "cudnn tf32"
        mode = compile_mode if batch in compile_batches else ""
        x = channels_last(images(batch, size, 1), torch.float32)
        rows.append(timed_row({"model": name, "dtype": "fp32", "batch": batch},
                              {"cudnn strict": strict_fp32(model32), "cudnn tf32": with_tf32(model32),
                               "nova eager": strict_fp32(fused32)},
                              {"cudnn strict compile": model32, "nova compile": fused32}, x, reps, mode))
    return rows


def rel_l2(y, ref):
    y = y.double()
    return ((y - ref).norm() / ref.norm()).item()


def accuracy(name, count, batch=8, agree_batch=32):
    base, size = make_model(name)
    x = images(batch, size, 2)
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    with torch.no_grad():
        strict = fp(base, torch.float32)
        ref = base.double()(x.double())
        folded = nova_torch.fuse_conv_bn_relu(fp(strict, torch.float16))
        variants = {
            "cudnn fp16": (fp(strict, torch.float16), torch.float16, False),
            "folded on cudnn fp16": (pytorch_run(folded), torch.float16, False),
            "nova fp16": (nova_torch.fuse_conv_bn_relu(fp(strict, torch.float16)), torch.float16, False),
            "nova fp16 accurate": (nova_torch.fuse_conv_bn_relu(fp(strict, torch.float16), max_error=ACCURATE_FP16),
                                   torch.float16, False),
            "cudnn fp32 tf32": (strict, torch.float32, True),
            "nova fp32": (nova_torch.fuse_conv_bn_relu(strict), torch.float32, False),
        }
        out = {}
        for key, (model, dtype, tf32) in variants.items():
            torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = tf32
            y = model(channels_last(x, dtype))
            out[key] = {"logits rel err": rel_l2(y, ref), "non-finite": int((~torch.isfinite(y)).sum())}
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        out["cudnn fp32 strict"] = {"logits rel err": rel_l2(strict(channels_last(x, torch.float32)), ref),
                                    "non-finite": 0}
        # Top-1 (per pixel for the UNet) against the FP32 model, TF32 off.
        agree = {key: 0 for key in variants}
        total = 0
        for i in range((count + agree_batch - 1) // agree_batch):
            xi = images(agree_batch, size, 100 + i)
            torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
            top = strict(channels_last(xi, torch.float32)).argmax(1)
            total += top.numel()
            for key, (model, dtype, tf32) in variants.items():
                torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = tf32
                y = model(channels_last(xi, dtype))
                out[key]["non-finite"] += int((~torch.isfinite(y)).sum())
                agree[key] += int((y.argmax(1) == top).sum())
        for key in variants:
            out[key]["top-1 agreement %"] = 100.0 * agree[key] / total
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    print(f"  {name}: " + "; ".join(f"{k} {v}" for k, v in out.items()), flush=True)
    return {"model": name, "images": total, **out}


def host_overhead(calls=200):
    """Host microseconds per call while the GPU sleeps: enqueueing only."""
    x = torch.randn(1, 16, 8, 8, device="cuda").half().to(memory_format=torch.channels_last)
    w = torch.randn(16, 16, 3, 3, device="cuda").half()
    b = torch.randn(16, device="cuda").half()
    y = torch.empty_like(x)
    handle = _runtime.handle_for(x.device)
    functional._conv2d_impl(x, w, b, 1, "auto", 0.0, False, False)
    plan = functional._plan(handle, x, 16, 3, 1, True, "auto", 0.0, _runtime.ALGO_AUTO)
    u = functional._derived.get(w, (plan.filter.layout, plan.filter.bytes, False), None)
    b32 = functional._fp32_bias(x, b)
    lib = _runtime._lib
    stream = torch.cuda.current_stream().cuda_stream

    def c_api():
        lib.nova_set_stream(handle.ptr, stream)
        lib.nova_conv_forward_with_filter(handle.ptr, ctypes.byref(plan.desc), x.data_ptr(), ctypes.byref(plan.filter),
                                          u.data_ptr(), b32.data_ptr(), 0, y.data_ptr(), None, 0)

    fns = {"F.conv2d (cuDNN)": lambda: F.conv2d(x, w, b, padding=1),
           "nova_torch.conv2d": lambda: nova_torch.conv2d(x, w, b),
           "torch.ops.nova.conv2d": lambda: torch.ops.nova.conv2d(x, w, b, 1, "auto", 0.0, False, False),
           "C API call alone": c_api}
    out = {}
    with torch.no_grad():
        for key, fn in fns.items():
            best = float("inf")
            for _ in range(5):
                torch.cuda.synchronize()
                torch.cuda._sleep(200_000_000)
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                best = min(best, (time.perf_counter() - start) / calls * 1e6)
            out[key] = best
    torch.cuda.synchronize()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    p.add_argument("--batches", default="1,8,32")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--images", type=int, default=2048, help="synthetic images for top-1 agreement")
    p.add_argument("--compile", default="", metavar="MODE",
                   help="also time torch.compile(mode=MODE) of the PyTorch and the NOVA model (e.g. default, "
                        "reduce-overhead), one static-shape compile per model and batch")
    p.add_argument("--compile-batches", default="32", help="batches to compile at (default 32)")
    p.add_argument("--skip", default="", help="comma-separated parts to skip: latency, accuracy, overhead")
    p.add_argument("--json", help="write every number here")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("whole_models.py needs a CUDA GPU")
    names = args.models.split(",")
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"unknown models {unknown}; choose from {list(MODELS)}")
    batches = [int(b) for b in args.batches.split(",")]
    skip = set(filter(None, args.skip.split(",")))
    torch.backends.cudnn.benchmark = True  # cuDNN's fastest algorithm per layer, as a tuned deployment
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version()}, library {nova_torch.LIBRARY_PATH}", flush=True)
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "latency": [], "accuracy": [],
               "overhead": {}}
    if "overhead" not in skip:
        results["overhead"] = host_overhead()
    for name in names:
        if "latency" not in skip:
            results["latency"] += latency(name, batches, args.reps, args.compile,
                                          [int(b) for b in args.compile_batches.split(",")])
        if "accuracy" not in skip:
            results["accuracy"].append(accuracy(name, args.images))
    results["fallbacks"] = {k: v for k, v in nova_torch.fallback_counts().items()}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print()
    report_models.tables(results)


if __name__ == "__main__":
    main()
