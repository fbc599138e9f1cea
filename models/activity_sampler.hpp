/* A client that samples pg_stat_activity while pgbench runs, as the measurements walsim is
 * compared with did: psql's \watch running
 *   SELECT state, wait_event_type, wait_event FROM pg_stat_activity
 * every interval. Its counts are what such a sampler reads, which is not the time-weighted
 * share of each state: the sampler is a process too, and on a machine whose CPUs are all busy it
 * reads the other backends' states only once it has been given a CPU. */
#pragma once

#include "models/postgres.hpp"
#include "models/scenario.hpp"
#include "sim/proc.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pg {

/// What the sampler read over the measured window.
struct ActivitySamples {
  bool sampled                = false; // a sampler ran
  std::uint64_t samples       = 0;
  double mean_interval        = 0; // seconds between successive reads
  double mean_active_backends = 0;
  std::vector<std::pair<std::string, double>> state_shares;       // over client backends' samples
  std::vector<std::pair<std::string, double>> active_wait_shares; // over samples of active backends
};

class ActivitySampler {
public:
  ActivitySampler(const ActivitySampling& spec, sim::Cpu& cpu,
                  const std::vector<std::unique_ptr<Connection>>& connections, sim::WaitEventId sleep_event, int id);

  void main();
  void reset_stats();
  ActivitySamples results(const sim::WaitEventNames& names) const;

private:
  void pg_stat_get_activity();

  ActivitySampling spec_;
  sim::Proc proc_;
  const std::vector<std::unique_ptr<Connection>>& connections_;
  sim::WaitEventId sleep_event_;
  std::uint64_t samples_ = 0;
  double first_read_     = -1;
  double last_read_      = -1;
  std::array<std::uint64_t, 3> states_{};
  std::vector<std::uint64_t> active_events_; // by wait event id
};

} // namespace pg
