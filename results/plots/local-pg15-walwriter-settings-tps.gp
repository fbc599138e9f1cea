set title 'local-pg15-walwriter-settings: tps, simulated (median, 95% CI) and published'
set xlabel 'pgbench clients (-c)'
set ylabel 'tps'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'local-pg15-walwriter-settings-tps.png'
plot 'local-pg15-walwriter-settings-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated wal_writer_delay=1000ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published wal_writer_delay=1000ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated wal_writer_delay=1000ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published wal_writer_delay=1000ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated wal_writer_delay=10ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published wal_writer_delay=10ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated wal_writer_delay=10ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published wal_writer_delay=10ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 5 title 'simulated wal_writer_delay=200ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 9 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 5 title 'published wal_writer_delay=200ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 6 title 'simulated wal_writer_delay=200ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 11 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 6 title 'published wal_writer_delay=200ms, wal_writer_flush_after=128'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'local-pg15-walwriter-settings-tps.svg'
  plot 'local-pg15-walwriter-settings-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated wal_writer_delay=1000ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published wal_writer_delay=1000ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated wal_writer_delay=1000ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published wal_writer_delay=1000ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated wal_writer_delay=10ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published wal_writer_delay=10ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated wal_writer_delay=10ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published wal_writer_delay=10ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 8 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 5 title 'simulated wal_writer_delay=200ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 9 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 5 title 'published wal_writer_delay=200ms, wal_writer_flush_after=0', \
     'local-pg15-walwriter-settings-tps.dat' index 10 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 6 title 'simulated wal_writer_delay=200ms, wal_writer_flush_after=128', \
     'local-pg15-walwriter-settings-tps.dat' index 11 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 6 title 'published wal_writer_delay=200ms, wal_writer_flush_after=128'
  unset output
}
