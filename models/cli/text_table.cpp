/* Text tables. */
#include "models/cli/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cli {

std::string text_table(const std::vector<std::vector<std::string>>& rows)
{
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string format_figure(double v)
{
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1000)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 10)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else if (a >= 1 || a == 0)
    std::snprintf(buf, sizeof buf, "%.3f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string format_signed(double v)
{
  return (v >= 0 ? "+" : "") + format_figure(v);
}

std::string format_p(double p)
{
  char buf[64];
  if (p >= 0.001)
    std::snprintf(buf, sizeof buf, "%.4f", p);
  else
    std::snprintf(buf, sizeof buf, "%.2g", p);
  return buf;
}

} // namespace cli
