# SPDX-License-Identifier: MIT
#
# Draws bench/opencl's results: gnuplot -e "data='FILE'; out='FILE.png'" opencl.gnuplot
# FILE holds one line per kernel: "name" weft/pocl weft_GB/s pocl_GB/s.
set terminal pngcairo size 1100,760 font "sans,10"
set output out
set multiplot layout 2,1 title "The same OpenCL C: Weft GPU (Rusticl, host tier) and PoCL 3.1, medians"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set logscale y
set grid ytics
set xtics rotate by -30 scale 0 nomirror
set key outside top center horizontal

set ylabel "GB/s"
set style histogram clustered gap 1
plot data using 3:xtic(1) title "Weft" lc rgb "#3a6ea5", \
     '' using 4 title "PoCL 3.1 (its local-memory version where it has no builtin)" lc rgb "#c0504d"

set ylabel "Weft / PoCL"
set yrange [0.01:4]
unset key
plot data using 2:xtic(1) lc rgb "#3a6ea5", \
     1.0 with lines dt 2 lc rgb "black", \
     0.5 with lines dt 3 lc rgb "gray40"
unset multiplot
