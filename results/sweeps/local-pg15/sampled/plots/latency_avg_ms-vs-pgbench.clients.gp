# walsim plot: latency_avg_ms against pgbench.clients; points are means over replications, bars their 95% confidence intervals.
set title 'local-pg15-tpcb.json: latency_avg_ms (mean and 95% CI of 3 replications)'
set xlabel 'pgbench.clients'
set ylabel 'latency average (ms)'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set xtics ('8' 8, '16' 16)
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) {
  set terminal pngcairo size 1000,600 font 'sans,11' noenhanced
} else {
  if (strstrt(terms, ' png ') > 0) { set terminal png size 1000,600 noenhanced }
}
if (strstrt(terms, ' pngcairo ') > 0 || strstrt(terms, ' png ') > 0) {
  set output '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.png.tmp'
  plot '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'run.activity_sampling.interval=20ms settings.synchronous_commit=on', \
     '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.dat' index 1 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'run.activity_sampling.interval=20ms settings.synchronous_commit=off'
  unset output
}
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.svg.tmp'
  plot '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'run.activity_sampling.interval=20ms settings.synchronous_commit=on', \
     '/work/main/results/sweeps/local-pg15/sampled/plots/latency_avg_ms-vs-pgbench.clients.dat' index 1 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'run.activity_sampling.interval=20ms settings.synchronous_commit=off'
  unset output
}
