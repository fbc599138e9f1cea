#include "models/version.hpp"

#include "walsim_git_describe.h"

#include <simgrid/config.h>
#include <simgrid/version.h>

namespace pg {

std::string walsim_version()
{
  return std::string(WALSIM_VERSION) + " (" + WALSIM_GIT_DESCRIBE + ")";
}

std::string simgrid_version()
{
  return std::to_string(SIMGRID_VERSION_MAJOR) + "." + std::to_string(SIMGRID_VERSION_MINOR) +
         (SIMGRID_VERSION_PATCH ? "." + std::to_string(SIMGRID_VERSION_PATCH) : std::string());
}

} // namespace pg
