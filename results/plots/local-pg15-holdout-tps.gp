set title 'local-pg15-holdout: tps, simulated (median, 95% CI) and published'
set xlabel 'pgbench clients (-c)'
set ylabel 'tps'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'local-pg15-holdout-tps.png'
plot 'local-pg15-holdout-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated one-cpu-select-only-sync-off', \
     'local-pg15-holdout-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published one-cpu-select-only-sync-off', \
     'local-pg15-holdout-tps.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated one-cpu-simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published one-cpu-simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated select-only-sync-on', \
     'local-pg15-holdout-tps.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published select-only-sync-on', \
     'local-pg15-holdout-tps.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 5 title 'simulated simple-update-sync-on', \
     'local-pg15-holdout-tps.dat' index 9 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 5 title 'published simple-update-sync-on', \
     'local-pg15-holdout-tps.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 6 title 'simulated tpcb-like-sync-off', \
     'local-pg15-holdout-tps.dat' index 11 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 6 title 'published tpcb-like-sync-off', \
     'local-pg15-holdout-tps.dat' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 7 title 'simulated tpcb-like-sync-on', \
     'local-pg15-holdout-tps.dat' index 13 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 7 title 'published tpcb-like-sync-on'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'local-pg15-holdout-tps.svg'
  plot 'local-pg15-holdout-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated one-cpu-select-only-sync-off', \
     'local-pg15-holdout-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published one-cpu-select-only-sync-off', \
     'local-pg15-holdout-tps.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated one-cpu-simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published one-cpu-simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated select-only-sync-on', \
     'local-pg15-holdout-tps.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published select-only-sync-on', \
     'local-pg15-holdout-tps.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published simple-update-sync-off', \
     'local-pg15-holdout-tps.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 5 title 'simulated simple-update-sync-on', \
     'local-pg15-holdout-tps.dat' index 9 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 5 title 'published simple-update-sync-on', \
     'local-pg15-holdout-tps.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 6 title 'simulated tpcb-like-sync-off', \
     'local-pg15-holdout-tps.dat' index 11 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 6 title 'published tpcb-like-sync-off', \
     'local-pg15-holdout-tps.dat' index 12 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 7 title 'simulated tpcb-like-sync-on', \
     'local-pg15-holdout-tps.dat' index 13 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 7 title 'published tpcb-like-sync-on'
  unset output
}
