# walsim plot: latency_avg_ms against settings.NUM_XLOGINSERT_LOCKS; points are means over replications, bars their 95% confidence intervals.
set title 'xloginsert-locks-2024.json: latency_avg_ms (mean and 95% CI of 3 replications)'
set xlabel 'settings.NUM_XLOGINSERT_LOCKS'
set ylabel 'latency average (ms)'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
set xtics ('8' 8, '16' 16, '32' 32, '64' 64, '128' 128)
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) {
  set terminal pngcairo size 1000,600 font 'sans,11' noenhanced
} else {
  if (strstrt(terms, ' png ') > 0) { set terminal png size 1000,600 noenhanced }
}
if (strstrt(terms, ' pngcairo ') > 0 || strstrt(terms, ' png ') > 0) {
  set output '/work/main/results/sweeps/xloginsert-locks-2024/plots/latency_avg_ms-vs-settings.NUM_XLOGINSERT_LOCKS.png.tmp'
  plot '/work/main/results/sweeps/xloginsert-locks-2024/plots/latency_avg_ms-vs-settings.NUM_XLOGINSERT_LOCKS.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'latency_avg_ms'
  unset output
}
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output '/work/main/results/sweeps/xloginsert-locks-2024/plots/latency_avg_ms-vs-settings.NUM_XLOGINSERT_LOCKS.svg.tmp'
  plot '/work/main/results/sweeps/xloginsert-locks-2024/plots/latency_avg_ms-vs-settings.NUM_XLOGINSERT_LOCKS.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'latency_avg_ms'
  unset output
}
