/* Tests of sim::Nvme: hand-computed schedules, flush ordering, the bandwidth ceiling, and the
 * queueing behaviour under Poisson arrivals against M/D/1 and M/D/c theory. */
#include "sim/nvme.hpp"
#include "sim/rng.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

constexpr double kUs = 1e-6;

struct QueueResult {
  double mean_response = 0; // completion - arrival, averaged over commands
  double utilisation   = 0; // busy slot time / (elapsed * queue_depth)
};

// Poisson arrivals of zero-byte writes (pure service time S = write_latency) at load rho.
QueueResult run_poisson(int queue_depth, double service, double rho, int arrivals)
{
  sim::NvmeParams params;
  params.queue_depth   = queue_depth;
  params.write_latency = service;
  sim::Nvme device(params);
  sim::Rng rng(20240601, "nvme arrivals");

  const double mean_gap = service / (rho * queue_depth);
  double now = 0, total_response = 0, last_completion = 0;
  for (int i = 0; i < arrivals; ++i) {
    now += rng.exponential(mean_gap);
    const double completion = device.write(now, 0);
    total_response += completion - now;
    last_completion = completion;
  }
  QueueResult result;
  result.mean_response = total_response / arrivals;
  result.utilisation   = device.stats().busy_slot_seconds / (last_completion * queue_depth);
  return result;
}

double erlang_c(int servers, double offered_load)
{
  double term = 1, below = 0;
  for (int k = 0; k < servers; ++k) {
    if (k > 0) term *= offered_load / k;
    below += term;
  }
  const double rho = offered_load / servers;
  const double top = term * offered_load / servers / (1 - rho);
  return top / (below + top);
}

// Cosmetatos (1976): M/D/c mean wait from the M/M/c one, accurate to a few percent.
double md_c_mean_response(int servers, double service, double rho)
{
  const double c          = servers;
  const double arrival    = rho * c / service;
  const double wait_mmc   = erlang_c(servers, rho * c) / (c / service - arrival);
  const double correction = 1 + (1 - rho) * (c - 1) * (std::sqrt(4 + 5 * c) - 2) / (16 * rho * c);
  return service + 0.5 * correction * wait_mmc;
}

} // namespace

TEST_CASE("Nvme rejects impossible parameters", "[nvme]")
{
  const sim::NvmeParams good;
  CHECK_NOTHROW(sim::Nvme(good));

  auto with = [&](auto change) {
    sim::NvmeParams p = good;
    change(p);
    return p;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.queue_depth = 0; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.read_latency = -1e-6; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.write_latency = -1e-6; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([&](auto& p) { p.flush_latency = nan; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.bandwidth = 0; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([&](auto& p) { p.bandwidth = nan; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.latency_sigma = -0.1; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([&](auto& p) { p.latency_sigma = nan; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([](auto& p) { p.stall_every = -1; })), std::invalid_argument);
  CHECK_THROWS_AS(sim::Nvme(with([&](auto& p) { p.stall_duration = nan; })), std::invalid_argument);
  CHECK_NOTHROW(sim::Nvme(with([](auto& p) {
    p.queue_depth   = 1;
    p.flush_latency = 0;
  })));
}

TEST_CASE("Nvme completion times of a hand-computed schedule", "[nvme]")
{
  sim::NvmeParams params;
  params.queue_depth   = 2;
  params.read_latency  = 80 * kUs;
  params.write_latency = 10 * kUs;
  params.flush_latency = 100 * kUs;
  params.bandwidth     = 1e9; // 1 byte per ns
  sim::Nvme device(params);

  // Slot A: 10us latency, then 1us of transfer.
  CHECK(device.write(0, 1000) == Approx(11 * kUs).margin(1e-12));
  // Slot B: latency ends at 10us but the channel is busy until 11us, then 2us of transfer.
  CHECK(device.write(0, 2000) == Approx(13 * kUs).margin(1e-12));
  // Both slots taken: waits for slot A (11us), then 10us, no transfer.
  CHECK(device.write(1 * kUs, 0) == Approx(21 * kUs).margin(1e-12));
  // Gets slot B at 13us, must wait for every earlier command (21us), then 100us.
  CHECK(device.flush(2 * kUs) == Approx(121 * kUs).margin(1e-12));
  // Gets the slot freed at 21us, 80us latency, then 0.5us on the idle channel.
  CHECK(device.read(3 * kUs, 500) == Approx(101.5 * kUs).margin(1e-12));

  const sim::NvmeStats& stats = device.stats();
  CHECK(stats.writes == 3);
  CHECK(stats.flushes == 1);
  CHECK(stats.reads == 1);
  CHECK(stats.bytes_written == 3000);
  CHECK(stats.bytes_read == 500);
  // 11 + 13 + 10 + (121 - 13) + 80.5
  CHECK(stats.busy_slot_seconds == Approx(222.5 * kUs).margin(1e-12));

  device.stats().reset();
  CHECK(device.stats().writes == 0);
  CHECK(device.stats().busy_slot_seconds == 0);
}

TEST_CASE("Nvme isolated commands cost latency plus transfer", "[nvme]")
{
  sim::NvmeParams params;
  sim::Nvme device(params);
  const double t = 1.0;
  CHECK(device.write(t, 8192) == Approx(t + params.write_latency + 8192 / params.bandwidth).epsilon(1e-12));
  CHECK(device.read(2 * t, 8192) == Approx(2 * t + params.read_latency + 8192 / params.bandwidth).epsilon(1e-12));
  CHECK(device.flush(3 * t) == Approx(3 * t + params.flush_latency).epsilon(1e-12));
}

TEST_CASE("Nvme flush completes after every earlier command plus flush_latency", "[nvme]")
{
  sim::NvmeParams params;
  params.queue_depth   = 8;
  params.write_latency = 10 * kUs;
  params.flush_latency = 50 * kUs;
  params.bandwidth     = 1e9;
  sim::Nvme device(params);

  double last_write = 0;
  for (int i = 0; i < 4; ++i) last_write = std::max(last_write, device.write(0, 1e6)); // 1ms each
  REQUIRE(last_write == Approx(10 * kUs + 4e-3).margin(1e-12));

  const double flushed = device.flush(500 * kUs);
  CHECK(flushed == Approx(last_write + params.flush_latency).margin(1e-12));

  // A write submitted after the flush is not ordered behind it, and does not delay it.
  const double later_write = device.write(600 * kUs, 0);
  CHECK(later_write == Approx(610 * kUs).margin(1e-12));

  // Once everything has completed, a flush costs only flush_latency.
  CHECK(device.flush(1.0) == Approx(1.0 + params.flush_latency).margin(1e-12));
}

TEST_CASE("Nvme flush on a full queue waits for a slot and then for the barrier", "[nvme]")
{
  sim::NvmeParams params;
  params.queue_depth   = 2;
  params.write_latency = 10 * kUs;
  params.flush_latency = 30 * kUs;
  params.bandwidth     = 1e12;
  sim::Nvme device(params);

  CHECK(device.write(0, 0) == Approx(10 * kUs).margin(1e-12));
  CHECK(device.write(5 * kUs, 0) == Approx(15 * kUs).margin(1e-12));
  // Slot free at 10us; earlier commands done at 15us; 15 + 30.
  CHECK(device.flush(6 * kUs) == Approx(45 * kUs).margin(1e-12));
  // The flush holds its slot from 10us to 45us, so this write gets the slot freed at 15us.
  CHECK(device.write(7 * kUs, 0) == Approx(25 * kUs).margin(1e-12));
  CHECK(device.stats().busy_slot_seconds == Approx((10 + 10 + 35 + 10) * kUs).margin(1e-12));
}

TEST_CASE("Nvme large writes saturate at the device bandwidth", "[nvme]")
{
  sim::NvmeParams params;
  params.queue_depth   = 32;
  params.write_latency = 15 * kUs;
  params.bandwidth     = 2e9;
  sim::Nvme device(params);

  const double bytes = 1 << 20;
  const int n        = 20000;
  double previous = 0, last = 0;
  for (int i = 0; i < n; ++i) {
    last = device.write(0, bytes);
    REQUIRE(last > previous); // one FIFO channel: transfers finish in submission order
    previous = last;
  }
  const double throughput = n * bytes / last;
  INFO("throughput " << throughput << " B/s for bandwidth " << params.bandwidth);
  CHECK(throughput == Approx(params.bandwidth).epsilon(0.01));
  CHECK(throughput <= params.bandwidth);
}

TEST_CASE("Nvme with one slot behaves as M/D/1", "[nvme][queueing]")
{
  const double service = 100 * kUs;
  const int arrivals   = 500000;
  for (double rho : {0.5, 0.8}) {
    const QueueResult r = run_poisson(1, service, rho, arrivals);
    const double theory = service + rho * service / (2 * (1 - rho)); // Pollaczek-Khinchine
    INFO("rho " << rho << ": mean response " << r.mean_response << " (M/D/1 " << theory << "), utilisation "
                << r.utilisation);
    CHECK(r.mean_response == Approx(theory).epsilon(0.03));
    CHECK(r.utilisation == Approx(rho).epsilon(0.02));
  }
}

TEST_CASE("Nvme with four slots behaves as M/D/4", "[nvme][queueing]")
{
  const double service = 100 * kUs;
  const int servers    = 4;
  const int arrivals   = 500000;
  for (double rho : {0.5, 0.8}) {
    const QueueResult r = run_poisson(servers, service, rho, arrivals);
    const double theory = md_c_mean_response(servers, service, rho);
    const double split  = service + rho * service / (2 * (1 - rho)); // four separate M/D/1 queues
    INFO("rho " << rho << ": mean response " << r.mean_response << " (Cosmetatos " << theory << "), utilisation "
                << r.utilisation);
    CHECK(r.mean_response == Approx(theory).epsilon(0.05));
    CHECK(r.mean_response > service);
    CHECK(r.mean_response < split);
    CHECK(r.utilisation == Approx(rho).epsilon(0.02));
  }
}

namespace {

// Flushes far enough apart that none waits for another: each one's time is its own latency.
std::vector<double> isolated_flushes(const sim::NvmeParams& params, std::uint64_t seed, int n)
{
  sim::Nvme device(params, seed, "wal_device");
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    const double now = i * 10e-3;
    times.push_back(device.flush(now) - now);
  }
  return times;
}

} // namespace

TEST_CASE("Nvme latency spread is log-normal around the configured mean", "[nvme]")
{
  sim::NvmeParams params;
  params.flush_latency = 100 * kUs;
  params.latency_sigma = 0.3;
  const auto times     = isolated_flushes(params, 7, 40000);

  double sum = 0, sum_log = 0, sum_log2 = 0;
  for (double t : times) {
    sum += t;
    sum_log += std::log(t);
    sum_log2 += std::log(t) * std::log(t);
  }
  const double n        = static_cast<double>(times.size());
  const double mean_log = sum_log / n;
  // The mean is the configured latency, so a scenario fitted on a mean keeps it.
  CHECK(sum / n == Approx(100 * kUs).epsilon(0.01));
  CHECK(std::sqrt(sum_log2 / n - mean_log * mean_log) == Approx(0.3).epsilon(0.02));
  CHECK(std::exp(mean_log) == Approx(100 * kUs * std::exp(-0.045)).epsilon(0.01)); // the median
}

TEST_CASE("Nvme without spread or stalls takes exactly the configured latency", "[nvme]")
{
  sim::NvmeParams params;
  params.flush_latency = 100 * kUs;
  sim::Nvme device(params, 7, "wal_device");
  for (int i = 0; i < 100; ++i) CHECK(device.flush(i * 1e-3) == i * 1e-3 + 100 * kUs);
}

TEST_CASE("Nvme stall episodes hold up the commands they overlap", "[nvme]")
{
  sim::NvmeParams params;
  params.queue_depth    = 1;
  params.write_latency  = 10 * kUs;
  params.stall_every    = 10e-3;
  params.stall_duration = 1e-3;
  sim::Nvme device(params, 3, "wal_device");

  // Back to back on one slot: the device is frozen 1 part in 11 of the time on average, so the
  // same work takes 11/10 as long, and every episode (one per 11 ms) holds a command up.
  const int n = 200000; // 2 s of device time, about 200 episodes
  double last = 0;
  for (int i = 0; i < n; ++i) last = device.write(0, 0);
  CHECK(last == Approx(n * 10 * kUs * 1.1).epsilon(0.03));
  CHECK(static_cast<double>(device.stats().stalls) == Approx(last / 11e-3).epsilon(0.15));

  // A command's time is its latency plus whatever part of an episode falls inside it.
  bool saw_stalled = false, saw_clear = false;
  sim::Nvme again(params, 3, "wal_device");
  for (int i = 0; i < 5000; ++i) {
    const double now  = i * 100 * kUs;
    const double took = again.write(now, 0) - now;
    CHECK(took >= 10 * kUs - 1e-12);
    (took > 10 * kUs + 1e-12 ? saw_stalled : saw_clear) = true;
  }
  CHECK(saw_stalled);
  CHECK(saw_clear);
}

TEST_CASE("Nvme spread and stalls are the same for the same seed and device", "[nvme]")
{
  sim::NvmeParams params;
  params.flush_latency  = 100 * kUs;
  params.latency_sigma  = 0.5;
  params.stall_every    = 5e-3;
  params.stall_duration = 2e-3;
  CHECK(isolated_flushes(params, 11, 500) == isolated_flushes(params, 11, 500));
  CHECK(isolated_flushes(params, 11, 500) != isolated_flushes(params, 12, 500));
  sim::Nvme wal(params, 11, "wal_device"), data(params, 11, "data_device");
  bool differ = false;
  for (int i = 0; i < 100; ++i) differ = differ || wal.flush(i * 1e-3) != data.flush(i * 1e-3);
  CHECK(differ);
}
