#!/usr/bin/env bash
# Turns nova-errlab CSV (--format csv or --csv FILE) into three PNG plots with gnuplot
# (Debian package gnuplot-nox):
#   <prefix>_vs_tile.png    measured error against the tile size m, one line per point set
#   <prefix>_vs_kappa.png   measured error against kappa2(V)
#   <prefix>_vs_amp2d.png   measured error against amp2D, with the prediction 0.7 u amp2D
# Rows whose error is not finite (overflow) cannot be drawn on a log axis; they are listed instead.
# Usage: tools/plots/plot_errlab.sh results.csv out/prefix "plot title"
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 results.csv out/prefix \"title\"" >&2; exit 2; }
csv=$1 prefix=$2 title=$3
command -v gnuplot >/dev/null || { echo "plot_errlab: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$(dirname "$prefix")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One whitespace-separated file of the plotted rows (m kappa amp error predicted name), and one per
# point set (the config name without its f<m>x<r>_ prefix) for the lines against tile size.
awk -F, -v work="$work" '
  NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
  {
    name = $col["config"]; err = $col["rel_l2_error"]
    if (err !~ /^[0-9.eE+-]+$/ || err + 0 <= 0) { print "not plotted (error " err "): " name > "/dev/stderr"; next }
    set = name; sub(/^f[0-9]+x[0-9]+_/, "", set)
    predicted = $col["predicted_error"] + 0 > 0 ? $col["predicted_error"] : "NaN"  # int8 models predict nothing
    printf "%s %s %s %s %s %s\n", $col["m"], $col["kappa2_V"], $col["amp2D"], err, predicted, name > (work "/all.dat")
    printf "%s %s\n", $col["m"], err > (work "/set_" set ".dat")
  }' "$csv"
[ -s "$work/all.dat" ] || { echo "plot_errlab: no finite errors in $csv" >&2; exit 1; }
for f in "$work"/set_*.dat; do sort -n -o "$f" "$f"; done

series=""
for f in "$work"/set_*.dat; do
  set=$(basename "$f" .dat); set=${set#set_}
  series+="${series:+, }'$f' using 1:2 with linespoints lw 2 pt 7 title '${set}' noenhanced"
done

gnuplot <<EOF
set terminal pngcairo size 900,600 font ",11"
set datafile separator whitespace
set logscale y
set format y "10^{%L}"
set grid
set ylabel "relative L2 error vs fp64 direct convolution"
set key outside right

set output "${prefix}_vs_tile.png"
set title "${title}: error against tile size F(m,3)" noenhanced
set xlabel "output tile size m"
set xtics 2
plot ${series}

set logscale x
set format x "10^{%L}"
set xtics auto
set key inside left top
set offsets graph 0.02, graph 0.2, graph 0.05, graph 0.05  # room for the labels of the outermost points

set output "${prefix}_vs_kappa.png"
set title "${title}: error against kappa2(V)" noenhanced
set xlabel "kappa2(V)"
plot '$work/all.dat' using 2:4 with points pt 7 ps 1.5 title "measured", \
     '' using 2:4:(stringcolumn(6)) with labels offset 0.8,0.6 left font ",8" noenhanced notitle

set output "${prefix}_vs_amp2d.png"
set title "${title}: error against amp2D" noenhanced
set xlabel "amp2D"
plot '$work/all.dat' using 3:4 with points pt 7 ps 1.5 title "measured", \
     '' using 3:5 with points pt 6 ps 1.5 title "0.7 u amp2D (prediction)", \
     '' using 3:4:(stringcolumn(6)) with labels offset 0.8,0.6 left font ",8" noenhanced notitle
EOF
echo "wrote ${prefix}_vs_tile.png ${prefix}_vs_kappa.png ${prefix}_vs_amp2d.png"
