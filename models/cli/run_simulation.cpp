/* The exit status of a simulation run: see cli.hpp. */
#include "models/cli/cli.hpp"

#include "sim/simulation.hpp"

#include <iostream>
#include <stdexcept>

namespace cli {

int run_simulation(const std::function<void()>& simulate)
{
  try {
    simulate();
  } catch (const sim::EngineOptionError& e) {
    std::cerr << "walsim: --sg-cfg: " << e.what() << "\n";
    return kBadInput;
  } catch (const std::logic_error& e) {
    std::cerr << "walsim: internal error: " << e.what() << "\n";
    return kInternalError;
  } catch (const std::exception& e) {
    // The model's runtime errors (a configuration PostgreSQL would fail on too), or out of memory.
    std::cerr << "walsim: run failed: " << e.what() << "\n";
    return kFailed;
  }
  return kOk;
}

} // namespace cli
