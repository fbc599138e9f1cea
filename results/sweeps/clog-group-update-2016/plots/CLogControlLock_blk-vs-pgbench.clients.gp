# walsim plot: CLogControlLock_blk against pgbench.clients; points are means over replications, bars their 95% confidence intervals.
set title 'clog-group-update-2016.json: CLogControlLock_blk (mean and 95% CI of 5 replications)'
set xlabel 'pgbench.clients'
set ylabel 'CLogControlLock_blk'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
set xtics ('1' 1, '64' 64, '128' 128, '256' 256)
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) {
  set terminal pngcairo size 1000,600 font 'sans,11' noenhanced
} else {
  if (strstrt(terms, ' png ') > 0) { set terminal png size 1000,600 noenhanced }
}
if (strstrt(terms, ' pngcairo ') > 0 || strstrt(terms, ' png ') > 0) {
  set output '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.png.tmp'
  plot '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'policies.clog_group_update=false', \
     '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.dat' index 1 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'policies.clog_group_update=true'
  unset output
}
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.svg.tmp'
  plot '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.dat' index 0 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'policies.clog_group_update=false', \
     '/work/main/results/sweeps/clog-group-update-2016/plots/CLogControlLock_blk-vs-pgbench.clients.dat' index 1 using 1:2:3:4 with yerrorlines linewidth 2 pointtype 7 title 'policies.clog_group_update=true'
  unset output
}
