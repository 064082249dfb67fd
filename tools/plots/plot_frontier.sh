#!/usr/bin/env bash
# Turns the frontier.csv of `nova-bench-conv OUT --frontier` into the speed/accuracy frontier: one
# panel per layer (3 x 3), time relative to cuDNN against the measured relative error (log-log),
# every transform on the 3-pass path (circles) and in the fused kernel (triangles), cuDNN (star),
# AUTO's choice (square) and the dtype's default error budget (dashed). Needs gnuplot (Debian:
# gnuplot-nox). Rows whose error is not finite or above 1 cannot be drawn; they are counted instead.
# Usage: tools/plots/plot_frontier.sh frontier.csv out.png [NHWC|NCHW] [budget]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 frontier.csv out.png [NHWC|NCHW] [budget (default 1e-2)]" >&2; exit 2; }
csv=$1 png=$2 layout=${3:-NHWC} budget=${4:-1e-2}
command -v gnuplot >/dev/null || { echo "plot_frontier: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One file per layer and kind of point: "<error> <ratio>" lines.
awk -F, -v work="$work" -v layout="$layout" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  $col["layout"] != layout { next }
  {
    layer = $col["layer"] " " $col["channels"] "@" $col["size"]
    if (!(layer in index_of)) { index_of[layer] = n + 0; names[n++] = layer }
    e = $col["error"] + 0
    if ($col["error"] == "nan" || e <= 0 || e > 1) { ++dropped; next }
    kind = $col["config"] == "cudnn" ? "cudnn" : $col["config"] == "auto" ? "auto" : ($col["path"] == "fused" ? "fused" : "three")
    print $col["error"], $col["ratio"] > (work "/" index_of[layer] "_" kind ".dat")
  }
  END {
    for (i = 0; i < n; ++i) print names[i] > (work "/layers.txt")
    print dropped + 0 > (work "/dropped.txt")
  }' "$csv"
[ -s "$work/layers.txt" ] || { echo "plot_frontier: no $layout rows in $csv" >&2; exit 1; }
for i in $(seq 0 8); do
  for kind in three fused cudnn auto; do [ -e "$work/${i}_$kind.dat" ] || echo "nan nan" >"$work/${i}_$kind.dat"; done
done

{
  echo "set terminal pngcairo noenhanced size 1500,1350 font ',10'"
  echo "set output '$png'"
  echo "set multiplot layout 3,3 title 'NOVA speed/accuracy frontier ($layout, batch 32): time / cuDNN against measured error vs FP64 ($(cat "$work/dropped.txt") configurations off the chart)'"
  echo "set logscale xy; set grid; set key top right font ',8'"
  echo "set xlabel 'relative L2 error'; set ylabel 'time / cuDNN'"
  echo "set arrow 1 from $budget, graph 0 to $budget, graph 1 nohead dashtype 2 lc rgb 'gray40'"
  i=0
  while IFS= read -r layer; do
    echo "set title '$layer'"
    echo "plot '$work/${i}_three.dat' using 1:2 with points pt 6 ps 1.2 lc rgb '#1f77b4' title '3-pass', \
'$work/${i}_fused.dat' using 1:2 with points pt 9 ps 1.4 lc rgb '#d62728' title 'fused', \
'$work/${i}_cudnn.dat' using 1:2 with points pt 3 ps 2.5 lc rgb 'black' title 'cuDNN', \
'$work/${i}_auto.dat' using 1:2 with points pt 4 ps 2.8 lw 2 lc rgb '#2ca02c' title 'AUTO'"
    i=$((i + 1))
  done <"$work/layers.txt"
  echo "unset multiplot"
} >"$work/plot.gp"
gnuplot "$work/plot.gp"
echo "plot_frontier: wrote $png ($(wc -l <"$work/layers.txt") layers, $(cat "$work/dropped.txt") rows off the chart)"
