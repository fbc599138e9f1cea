set title 'hint-bit-io-2011: scan_time_ms, simulated (median, 95% CI) and published'
set xlabel 'run (scan number)'
set ylabel 'scan_time_ms'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'hint-bit-io-2011-scan_time_ms.png'
plot 'hint-bit-io-2011-scan_time_ms.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated hint-bit I/O limited (patch)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published hint-bit I/O limited (patch)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated unpatched (after compaction)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published unpatched (after compaction)'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'hint-bit-io-2011-scan_time_ms.svg'
  plot 'hint-bit-io-2011-scan_time_ms.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated hint-bit I/O limited (patch)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published hint-bit I/O limited (patch)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 2 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 2 title 'simulated unpatched (after compaction)', \
     'hint-bit-io-2011-scan_time_ms.dat' index 3 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 2 title 'published unpatched (after compaction)'
  unset output
}
