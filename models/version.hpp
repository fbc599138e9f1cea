/* Versions written into every result file, as Batsim does, so a result says what produced it. */
#pragma once

#include <string>

namespace pg {

std::string walsim_version();  // "0.1.0 (git describe)"
std::string simgrid_version(); // "3.32"

} // namespace pg
