/* Plain-text tables for the terminal: the first column left-aligned, the others right-aligned. */
#pragma once

#include <string>
#include <vector>

namespace cli {

std::string text_table(const std::vector<std::vector<std::string>>& rows);

/// A figure with as many decimals as its size deserves: 12345.6, 123.45, 1.234, 0.01234.
std::string format_figure(double v);
/// A signed figure: +412.30, -0.0123.
std::string format_signed(double v);
/// A p-value: 0.0412, 0.000312, 2.1e-09.
std::string format_p(double p);

} // namespace cli
