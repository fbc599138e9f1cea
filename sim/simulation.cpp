/* Run control: see simulation.hpp. */
#include "sim/simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <chrono>
#include <fstream>
#include <vector>

namespace sim {

Simulation::Simulation(const std::vector<std::string>& args)
{
  std::vector<std::string> argv_store{"walsim", "--log=root.thresh:critical", "--cfg=contexts/factory:raw"};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  engine_    = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  auto* zone = simgrid::s4u::create_full_zone("machine");
  host_      = zone->create_host("server", 1e9);
  zone->seal();
}

Simulation::~Simulation() = default;

double Simulation::now()
{
  return simgrid::s4u::Engine::get_clock();
}

void Simulation::spawn(const std::string& name, std::function<void()> body)
{
  simgrid::s4u::Actor::create(name, host_, std::move(body))->daemonize();
}

void Simulation::run(const Window& window, const std::function<void()>& on_measure,
                     const std::function<void(double)>& on_progress, const std::function<void()>& on_end)
{
  simgrid::s4u::Actor::create("control", host_, [&window, &on_measure, &on_progress, &on_end]() {
    simgrid::s4u::this_actor::sleep_for(window.warmup);
    if (on_measure) on_measure();
    const double start = now();
    const double end   = start + window.duration;
    if (window.progress > 0 && on_progress) {
      for (double t = start + window.progress; t < end - 1e-12; t += window.progress) {
        simgrid::s4u::this_actor::sleep_until(t);
        on_progress(t - start);
      }
    }
    simgrid::s4u::this_actor::sleep_until(end);
    if (on_end) on_end();
  });
  const auto t0 = std::chrono::steady_clock::now();
  engine_->run();
  wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kb()
{
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      long kb = 0;
      status >> kb;
      return kb;
    }
    std::getline(status, key);
  }
  return 0;
}

} // namespace sim
