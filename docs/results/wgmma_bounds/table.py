#!/usr/bin/env python3
"""Summarises a device.sh output (bounds.txt, bounds_fold.txt) as a Markdown table: for each layer, batch
and layout, each build's graph time over the runs (min-max), its change against the first build the file
names (the base build; mean of the runs) and cuDNN's time over every line of that row.
Usage: table.py BOUNDS.txt > TABLE.txt"""
import collections
import re
import sys

LINE = re.compile(r"run (\d+) (\S+)\s+(.+?) (\d+@\d+) b(\d+) (\S+?)-f graph ([\d.]+) us, cuDNN ([\d.]+)")
times = collections.defaultdict(lambda: collections.defaultdict(list))
cudnn = collections.defaultdict(list)
variants = []
for line in open(sys.argv[1]):
    m = LINE.match(line)
    if not m:
        sys.exit(f"table.py: not a device.sh line: {line.rstrip()}")
    _, variant, net, layer, batch, layout, us, cudnn_us = m.groups()
    row = (f"{net} {layer}", batch, layout)
    times[row][variant].append(float(us))
    cudnn[row].append(float(cudnn_us))
    if variant not in variants:
        variants.append(variant)


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.1f}" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}-{hi:.1f}"


def mean(values):
    return sum(values) / len(values)


print("| layer | batch | layout | " + " | ".join(f"{v} µs" for v in variants) + " | cuDNN µs |")
print("|---|---|---|" + "---|" * (len(variants) + 1))
for row, by_variant in times.items():
    base = mean(by_variant[variants[0]])
    cells = [span(by_variant[variants[0]])] + [
        f"{span(by_variant[v])} ({(mean(by_variant[v]) / base - 1) * 100:+.1f} %)" for v in variants[1:]]
    print(f"| {row[0]} | {row[1]} | {row[2]} | " + " | ".join(cells) + f" | {span(cudnn[row])} |")
