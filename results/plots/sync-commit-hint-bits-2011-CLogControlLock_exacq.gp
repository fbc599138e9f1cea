set title 'sync-commit-hint-bits-2011: CLogControlLock_exacq, simulated (median, 95% CI) and published'
set xlabel 'hint-bit rule: 0 = flushed (9.2devel as released), 1 = always (flush test removed)'
set ylabel 'CLogControlLock_exacq'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'sync-commit-hint-bits-2011-CLogControlLock_exacq.png'
plot 'sync-commit-hint-bits-2011-CLogControlLock_exacq.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated permanent tables', \
     'sync-commit-hint-bits-2011-CLogControlLock_exacq.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published permanent tables'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'sync-commit-hint-bits-2011-CLogControlLock_exacq.svg'
  plot 'sync-commit-hint-bits-2011-CLogControlLock_exacq.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated permanent tables', \
     'sync-commit-hint-bits-2011-CLogControlLock_exacq.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published permanent tables'
  unset output
}
