set title 'walwriter-wakeup-2017: tps, simulated (median, 95% CI) and published'
set xlabel 'variant (1-6: the published table''s order)'
set ylabel 'tps'
set grid
set key top left box opaque
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
terms = ' ' . GPVAL_TERMINALS . ' '
if (strstrt(terms, ' pngcairo ') > 0) { set terminal pngcairo size 1000,600 font 'sans,11' noenhanced } else { set terminal png size 1000,600 noenhanced }
set output 'walwriter-wakeup-2017-tps.png'
plot 'walwriter-wakeup-2017-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated TPS (prose-consistent reading)', \
     'walwriter-wakeup-2017-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published TPS (prose-consistent reading)'
unset output
if (strstrt(terms, ' svg ') > 0) {
  set terminal svg size 1000,600 dynamic font 'sans,11' noenhanced
  set output 'walwriter-wakeup-2017-tps.svg'
  plot 'walwriter-wakeup-2017-tps.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc 1 title 'simulated TPS (prose-consistent reading)', \
     'walwriter-wakeup-2017-tps.dat' index 1 using 1:2 with linespoints dt 2 lw 2 pt 6 ps 1.5 lc 1 title 'published TPS (prose-consistent reading)'
  unset output
}
