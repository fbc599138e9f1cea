set title 'local-pg15-onecpu: cpu_over_1_client, simulated (median, 95% CI) and published'
set xlabel 'pgbench clients (-c), all on CPU 0'
set ylabel 'cpu_over_1_client'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
set logscale x 2
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'local-pg15-onecpu-cpu_over_1_client.png'
plot 'local-pg15-onecpu-cpu_over_1_client.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated select-only, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published select-only, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated tpcb-like, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published tpcb-like, over 1 client'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'local-pg15-onecpu-cpu_over_1_client.svg'
  plot 'local-pg15-onecpu-cpu_over_1_client.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated select-only, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published select-only, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated tpcb-like, over 1 client', \
     'local-pg15-onecpu-cpu_over_1_client.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published tpcb-like, over 1 client'
  unset output
}
