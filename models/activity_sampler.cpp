/* psql's \watch (src/bin/psql/command.c, do_watch; PostgreSQL 15) on pg_stat_activity, whose rows
 * pg_stat_get_activity builds from every backend's PgBackendStatus (backend_status.c). See
 * activity_sampler.hpp. */
#include "models/activity_sampler.hpp"

#include "sim/clock.hpp"

namespace pg {

ActivitySampler::ActivitySampler(const ActivitySampling& spec, sim::Cpu& cpu,
                                 const std::vector<std::unique_ptr<Connection>>& connections,
                                 sim::WaitEventId sleep_event, int id)
    : spec_(spec), proc_("psql sampler", id, cpu), connections_(connections), sleep_event_(sleep_event)
{
}

// do_watch: run the query, print its rows, sleep for the interval, again. The client and its
// backend run as one process here: the client hands the query to its backend and waits, so the
// backend usually takes over the CPU it frees.
void ActivitySampler::main()
{
  for (;;) {
    proc_.block_until(sim::now() + spec_.interval, sleep_event_);
    proc_.work(spec_.client + spec_.query);
    proc_.flush();
    pg_stat_get_activity();
  }
}

// Each backend's state and wait event as they are now, which for a backend whose accrued work
// is still being simulated may be the state before its latest change.
void ActivitySampler::pg_stat_get_activity()
{
  const double t = sim::now();
  for (const auto& c : connections_) {
    const BackendState state = c->state_at(t);
    states_[static_cast<std::size_t>(state)]++;
    if (state != BackendState::Active) continue;
    const sim::WaitEventId event = c->backend().proc.wait_event_at(t);
    if (active_events_.size() <= event) active_events_.resize(event + 1u, 0);
    active_events_[event]++;
  }
  samples_++;
  if (first_read_ < 0) first_read_ = t;
  last_read_ = t;
}

void ActivitySampler::reset_stats()
{
  samples_    = 0;
  first_read_ = -1;
  last_read_  = -1;
  states_.fill(0);
  active_events_.assign(active_events_.size(), 0);
}

ActivitySamples ActivitySampler::results(const sim::WaitEventNames& names) const
{
  ActivitySamples r;
  r.sampled = true;
  r.samples = samples_;
  if (samples_ == 0) return r;
  if (samples_ > 1) r.mean_interval = (last_read_ - first_read_) / static_cast<double>(samples_ - 1);
  std::uint64_t all = 0;
  for (std::uint64_t n : states_) all += n;
  const auto active         = states_[static_cast<std::size_t>(BackendState::Active)];
  r.mean_active_backends    = static_cast<double>(active) / static_cast<double>(samples_);
  const char* state_names[] = {"active", "idle in transaction", "idle"};
  for (std::size_t s = 0; s < states_.size(); s++)
    r.state_shares.emplace_back(state_names[s],
                                all > 0 ? static_cast<double>(states_[s]) / static_cast<double>(all) : 0);
  for (std::size_t e = 0; e < active_events_.size(); e++)
    if (active_events_[e] > 0)
      r.active_wait_shares.emplace_back(names.name(static_cast<sim::WaitEventId>(e)),
                                        static_cast<double>(active_events_[e]) / static_cast<double>(active));
  return r;
}

} // namespace pg
