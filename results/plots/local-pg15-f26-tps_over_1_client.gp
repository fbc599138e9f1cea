set title 'local-pg15-f26: tps_over_1_client, simulated (median, 95% CI) and published'
set xlabel 'pgbench clients (-c)'
set ylabel 'tps_over_1_client'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'local-pg15-f26-tps_over_1_client.png'
plot 'local-pg15-f26-tps_over_1_client.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated unpinned over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published unpinned over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated unpinned over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published unpinned over 1 client, synchronous_commit=on'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'local-pg15-f26-tps_over_1_client.svg'
  plot 'local-pg15-f26-tps_over_1_client.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published server on CPU 1, pgbench on CPU 0 over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 4 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 3 title 'simulated unpinned over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 5 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 3 title 'published unpinned over 1 client, synchronous_commit=off', \
     'local-pg15-f26-tps_over_1_client.dat' index 6 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 4 title 'simulated unpinned over 1 client, synchronous_commit=on', \
     'local-pg15-f26-tps_over_1_client.dat' index 7 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 4 title 'published unpinned over 1 client, synchronous_commit=on'
  unset output
}
