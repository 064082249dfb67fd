"""Tables and a bar chart of whole_models.py's results. Prints Markdown tables (latency, accuracy,
host time) from each RESULTS.json given; with --plot OUT.png also draws (gnuplot) fp16 latency
under CUDA-graph replay (torch.compile mode=reduce-overhead) relative to cuDNN and fp32 relative
to cuDNN with TF32 off, from the first file that has compiled times.
Usage: python3 report_models.py RESULTS.json... [--plot OUT.png]"""
import json
import os
import subprocess
import sys
import tempfile


LATENCY_COLUMNS = ["cudnn eager", "folded on cudnn", "nova eager", "nova accurate", "cudnn compile", "nova compile",
                   "nova accurate compile"]
FP32_COLUMNS = ["cudnn strict", "cudnn tf32", "nova eager", "cudnn strict compile", "nova compile"]
ACCURACY_ROWS = ["cudnn fp16", "folded on cudnn fp16", "nova fp16", "nova fp16 accurate", "cudnn fp32 tf32",
                 "nova fp32", "cudnn fp32 strict"]


def latency_table(rows, columns, title, ratio_name, ratio):
    """A Markdown table of the rows' times in the columns any of them has, and a ratio column."""
    columns = [c for c in columns if any(c in r for r in rows)]
    print(f"| {title} | batch | " + " | ".join(columns) + f" | {ratio_name} |")
    print("|---|---:|" + "---:|" * (len(columns) + 1))
    for r in rows:
        cells = " | ".join(f"{r[c]:.2f}" if c in r else "-" for c in columns)
        print(f"| {r['model']} | {r['batch']} | {cells} | {ratio(r)} |")
    print()


def tables(results):
    rows = results["latency"]
    fp16 = [r for r in rows if r["dtype"] == "fp16"]
    if fp16:
        latency_table(fp16, LATENCY_COLUMNS, "model", "NOVA / cuDNN, compiled",
                      lambda r: f"{r['nova compile'] / r['cudnn compile']:.2f}" if "nova compile" in r else "-")
    fp32 = [r for r in rows if r["dtype"] == "fp32"]
    if fp32:
        latency_table(fp32, FP32_COLUMNS, "model (fp32)", "cuDNN strict / NOVA, eager",
                      lambda r: f"{r['cudnn strict'] / r['nova eager']:.2f}")
    if results["accuracy"]:
        print("| model | run | logits rel. L2 vs FP64 | top-1 agreement with FP32 | non-finite |")
        print("|---|---|---:|---:|---:|")
        for row in results["accuracy"]:
            for key in ACCURACY_ROWS:
                r = row[key]
                agree = f"{r['top-1 agreement %']:.2f} %" if "top-1 agreement %" in r else "-"
                print(f"| {row['model']} | {key} | {r['logits rel err']:.2e} | {agree} | {r['non-finite']} |")
        print()
    if results["overhead"]:
        print("| host time per call, GPU busy | µs |")
        print("|---|---:|")
        for key, us in results["overhead"].items():
            print(f"| {key} | {us:.1f} |")
        print()


def plot(results, out):
    rows = results["latency"]
    fp16 = [r for r in rows if r["dtype"] == "fp16" and "nova compile" in r]
    largest = max(r["batch"] for r in rows)
    fp32 = [r for r in rows if r["dtype"] == "fp32" and r["batch"] == largest]  # eager, where NOVA's fp32 pays
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "fp16.dat"), "w") as f:
            for r in fp16:
                base = r["cudnn compile"]
                f.write(f'"{r["model"]} b{r["batch"]}" 1 {r["nova compile"] / base:.4f} '
                        f'{r.get("nova accurate compile", r["nova compile"]) / base:.4f}\n')
        with open(os.path.join(tmp, "fp32.dat"), "w") as f:
            for r in fp32:
                base = r["cudnn strict"]
                f.write(f'"{r["model"]} b{r["batch"]}" 1 {r["cudnn tf32"] / base:.4f} {r["nova eager"] / base:.4f}\n')
        script = f"""
set terminal pngcairo size 1200,520 font ",10" noenhanced
set output "{out}"
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set xtics rotate by -30
set key top left
set yrange [0:1.8]
set title "fp16, channels_last, CUDA-graph replay: time / cuDNN's (lower is faster)"
plot "{tmp}/fp16.dat" using 2:xtic(1) title "cuDNN", "" using 3 title "NOVA", "" using 4 title "NOVA max_error 2e-3"
set yrange [0:1.3]
set title "fp32, eager: time / cuDNN's with TF32 off"
plot "{tmp}/fp32.dat" using 2:xtic(1) title "cuDNN (TF32 off)", "" using 3 title "cuDNN (TF32 on)", \\
     "" using 4 title "NOVA"
unset multiplot
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    args = sys.argv[1:]
    out = None
    if "--plot" in args:
        i = args.index("--plot")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        out = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    loaded = []
    for path in args:
        with open(path) as f:
            loaded.append(json.load(f))
        print(f"### {path}: {loaded[-1]['device']}, torch {loaded[-1]['torch']}\n")
        tables(loaded[-1])
    if out:
        usable = [r for r in loaded if any("nova compile" in row for row in r["latency"])
                  and any(row["dtype"] == "fp32" for row in r["latency"])]
        if not usable:
            sys.exit("--plot needs results with compiled fp16 times (--compile) and fp32 rows")
        plot(usable[0], out)


if __name__ == "__main__":
    main()
