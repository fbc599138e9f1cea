/* walsim-probe: measure the operating-system costs of a hardware profile's "os" block on the
 * machine it runs on, so that a profile of one's own machine starts from measurements rather than
 * guesses.
 *
 * Each figure is what the model charges, measured the way the model uses it:
 *   socket_send, socket_recv  a 1-byte write and read on a Unix socket pair, nobody waiting;
 *   context_switch            a ping-pong between two processes pinned to one CPU: each half
 *                             trip is a send, a switch to the other process and its receive;
 *   idle_wakeup(_cpu)         the same ping-pong across two CPUs, each waking the other from
 *                             idle: the half trip's latency and CPU time beyond send and receive;
 *   busy_wakeup_cpu           the cross-CPU ping-pong again, with both CPUs kept busy by
 *                             lowest-priority spinners: the CPU time it takes from them per
 *                             half trip (kernel, interrupt and hypervisor work included), beyond
 *                             send, receive and the two context switches each wake-up brings
 *                             there (spinner out, ping-pong process in, and back);
 *   fdatasync_cpu             8 kB pwrite + fdatasync on a file in --dir: the caller's own CPU
 *                             time per call (getrusage; the pwrite's microsecond included);
 *   busy_io_delay             the same pwrite + fdatasync with nothing else running and while
 *                             lowest-priority spinners keep every CPU busy (alternating, five
 *                             rounds each): half the rise in its mean wall time per call
 *                             (an fdatasync is two device requests, the data write and the
 *                             cache flush), less a context_switch and a busy_wakeup_cpu for each
 *                             request's completion waking the caller onto a busy CPU, which the
 *                             model charges apart. In a VM the host serves the virtual device on
 *                             the physical CPUs that run the vCPUs, so an I/O completes later
 *                             when they are all busy;
 *   io_interrupt_cpu,         the same pwrite + fdatasync in a child pinned to one CPU while a
 *   busy_io_interrupt         lowest-priority spinner keeps another busy, each CPU in turn as the
 *                             spinner's: the CPU whose device interrupts (/proc/interrupts)
 *                             rise by one or more per call takes the completions, and the turns
 *                             its spinner loses per interrupt are what a completion costs a busy
 *                             CPU (the guest's handler; in a VM the host's work on that vCPU),
 *                             time the interrupted process's own clock still counts;
 *   pread(_per_kB),           read() and write() of 8 kB and of 1 kB at random page offsets of
 *   pwrite(_per_kB)           a 64 MB file in --dir that the page cache holds: the two sizes
 *                             split each call into a fixed part and a copy per kB, as the model
 *                             charges a data page read into, or written out of, shared_buffers;
 *   page_fault_read,          a child forked after its parent populated 384 MB of shared
 *   page_fault_write,         anonymous memory, as a backend is forked after the postmaster
 *   page_first_touch,         populated shared memory: a read of one byte per fault-around
 *   fault_around              window (random order), then of every other page of those windows,
 *                             then a write of each page of untouched memory; fault_around is the
 *                             run of pages the first read mapped (minor faults unchanged);
 *   scheduler, time_slice     not measured: the kernel's release says which scheduler runs
 *                             (EEVDF since Linux 6.6), and EEVDF's base slice follows from the
 *                             number of CPUs, as the kernel sets it;
 *   cpu.cache                 the core's private (level 2) cache size from sysfs, or from
 *                             --cache-size where the machine does not describe its caches (a
 *                             virtual machine often shows none), and what it costs to bring data
 *                             back into it (refill_per_kB): a random pointer chase through half
 *                             the cache, timed after a larger buffer pushed it out, less the same
 *                             chase with the data in place. A chase waits for each miss in turn,
 *                             so this is the slow end: misses a program can overlap cost less
 *                             (the chase with independent loads is printed). Beside it, the time
 *                             per load of a chase through buffers of 16 kB to 64 MB held in place:
 *                             it jumps where a buffer outgrows a cache level, which tells the
 *                             size to give --cache-size on such a machine.
 *   cpu.address_spaces        2 to 8 processes pinned to one CPU pass a byte round a ring of
 *                             pipes, touching almost no memory: the time per hop is flat while
 *                             the CPU keeps every process's address space ready and jumps once it
 *                             cannot (under shadow paging a hypervisor keeps a few page-table
 *                             roots per virtual CPU, and page-table isolation gives each process
 *                             two). entries is the most processes before the jump, reload the
 *                             jump: the time per hop just past it over the time with 2;
 *   cpu.shared_cache          with --shared-cache-size (the last-level cache as this machine's
 *                             processes get it: where the chase scan jumps to memory's latency;
 *                             a virtual machine shares its host's with other guests): the same
 *                             refill measurement with that size, whose data in place now sits
 *                             in the shared cache, so refill_per_kB is what a byte costs from
 *                             memory beyond its cost from the shared cache.
 * Printed beside them: fdatasync's system-wide CPU (/proc/stat, which adds the kernel threads and
 * interrupts that serve it) and context switches per call (/proc/stat ctxt, theirs included).
 * Linux only (sched_setaffinity, /proc/stat). The machine should be otherwise idle.
 */
#include "sim/units.hpp"

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace po = boost::program_options;

namespace {

double wall_now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds_of(const timeval& tv)
{
  return static_cast<double>(tv.tv_sec) + 1e-6 * static_cast<double>(tv.tv_usec);
}

double cpu_seconds(int who)
{
  rusage ru{};
  getrusage(who, &ru);
  return seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime);
}

struct SystemTicks {
  long long busy     = 0;
  long long total    = 0;
  long long switches = 0; // ctxt
};

// /proc/stat: the aggregate "cpu" line (busy is all but idle, iowait and steal, the time the
// hypervisor gave to others) and the "ctxt" count of context switches.
SystemTicks system_ticks()
{
  std::ifstream in("/proc/stat");
  std::string label;
  std::array<long long, 8> v{};
  in >> label;
  for (auto& x : v) in >> x;
  if (!in || label != "cpu") throw std::runtime_error("cannot read /proc/stat");
  SystemTicks t;
  for (auto x : v) t.total += x;
  t.busy = t.total - v[3] - v[4] - v[7];
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("ctxt ", 0) == 0) t.switches = std::stoll(line.substr(5));
  return t;
}

void pin_to(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("cannot pin to CPU " + std::to_string(cpu));
}

// The CPUs this process may run on (a container may allow a few only), in order.
std::vector<int> allowed_cpus()
{
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("cannot read the CPU affinity");
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void must(bool ok, const char* what)
{
  if (!ok) throw std::runtime_error(std::string(what) + " failed");
}

struct SocketCosts {
  double send = 0;
  double recv = 0;
};

// Writes in batches that fit the socket buffer, then reads them back: no process ever waits.
SocketCosts socket_costs(int n)
{
  std::array<int, 2> sv{};
  must(socketpair(AF_UNIX, SOCK_STREAM, 0, sv.data()) == 0, "socketpair");
  char byte            = 0;
  double sends         = 0;
  double recvs         = 0;
  constexpr int kBatch = 64;
  for (int k = 0; k < n / kBatch; k++) {
    const double t0 = wall_now();
    for (int i = 0; i < kBatch; i++) must(write(sv[0], &byte, 1) == 1, "write");
    const double t1 = wall_now();
    for (int i = 0; i < kBatch; i++) must(read(sv[1], &byte, 1) == 1, "read");
    sends += t1 - t0;
    recvs += wall_now() - t1;
  }
  close(sv[0]);
  close(sv[1]);
  const double count = static_cast<double>(n / kBatch * kBatch);
  return {sends / count, recvs / count};
}

double median(std::vector<double> v);

// Seconds per hop of a byte passed round a ring of `processes` pipes, each process pinned to `cpu`
// and touching nothing but its pipes: a hop is a read, a write and a switch to the next process.
double ring_hop(int cpu, int processes, double seconds)
{
  auto* hops = static_cast<std::atomic<long long>*>(
      mmap(nullptr, sizeof(std::atomic<long long>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  must(hops != MAP_FAILED, "mmap");
  new (hops) std::atomic<long long>(0);
  std::vector<std::array<int, 2>> pipes(static_cast<std::size_t>(processes));
  for (auto& fds : pipes) must(pipe(fds.data()) == 0, "pipe");
  std::vector<pid_t> pids;
  for (int i = 0; i < processes; i++) {
    const pid_t pid = fork();
    must(pid >= 0, "fork");
    if (pid == 0) {
      pin_to(cpu);
      const int in  = pipes[static_cast<std::size_t>(i)][0];
      const int out = pipes[static_cast<std::size_t>((i + 1) % processes)][1];
      for (char byte = 0;;) {
        if (read(in, &byte, 1) != 1) _exit(0);
        hops->fetch_add(1, std::memory_order_relaxed);
        if (write(out, &byte, 1) != 1) _exit(0);
      }
    }
    pids.push_back(pid);
  }
  const char token = 1;
  must(write(pipes[0][1], &token, 1) == 1, "ring");
  usleep(100000);
  const long long h0 = hops->load();
  const double t0    = wall_now();
  usleep(static_cast<useconds_t>(seconds * 1e6));
  const long long h1 = hops->load();
  const double t1    = wall_now();
  for (auto& fds : pipes) {
    close(fds[0]);
    close(fds[1]);
  }
  for (const pid_t pid : pids) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  munmap(hops, sizeof(std::atomic<long long>));
  must(h1 > h0, "ring: no hops");
  return (t1 - t0) / static_cast<double>(h1 - h0);
}

struct AddressSpaces {
  std::vector<double> hop; // seconds per hop with 2, 3, ... kMaxRing processes
  int entries   = 0;       // 0: no jump found
  double reload = 0;
};

// The ring with 2 to kMaxRing processes, each size measured three times in turn (a shared host's
// speed drifts), the median kept. A jump of more than a third of the 2-process hop marks where the
// CPU stopped keeping every address space.
AddressSpaces address_spaces(int cpu)
{
  constexpr int kMaxRing = 8;
  std::vector<std::vector<double>> runs(kMaxRing - 1);
  for (int round = 0; round < 3; round++)
    for (int n = 2; n <= kMaxRing; n++) runs[static_cast<std::size_t>(n - 2)].push_back(ring_hop(cpu, n, 0.3));
  AddressSpaces a;
  for (auto& r : runs) a.hop.push_back(median(r));
  for (std::size_t i = 1; i < a.hop.size(); i++)
    if (a.hop[i] - a.hop[0] > a.hop[0] / 3) {
      a.entries = static_cast<int>(i) + 1;
      a.reload  = a.hop[i] - a.hop[0];
      break;
    }
  return a;
}

struct PingPong {
  double half_trip = 0; // seconds
  double half_cpu  = 0; // CPU seconds of both processes per half trip (without an idle gap)
  double child_cpu = 0; // CPU seconds of the answering process per round trip
};

// With an idle gap, the asking process spins that long before each question, so the answering
// one's CPU has been idle about that long when the question wakes it.
PingPong ping_pong(int parent_cpu, int child_cpu, int n, double idle_gap = 0)
{
  std::array<int, 2> sv{};
  must(socketpair(AF_UNIX, SOCK_STREAM, 0, sv.data()) == 0, "socketpair");
  const double reaped = cpu_seconds(RUSAGE_CHILDREN); // earlier tests' children
  const pid_t child   = fork();
  must(child >= 0, "fork");
  char byte = 0;
  if (child == 0) {
    pin_to(child_cpu);
    for (int i = 0; i < n; i++)
      if (read(sv[1], &byte, 1) != 1 || write(sv[1], &byte, 1) != 1) _exit(1);
    _exit(0);
  }
  pin_to(parent_cpu);
  const double cpu0 = cpu_seconds(RUSAGE_SELF);
  double elapsed    = 0;
  for (int i = 0; i < n; i++) {
    for (const double until = wall_now() + idle_gap; wall_now() < until;) {
    }
    const double t0 = wall_now();
    must(write(sv[0], &byte, 1) == 1 && read(sv[0], &byte, 1) == 1, "ping-pong");
    elapsed += wall_now() - t0;
  }
  const double mine = cpu_seconds(RUSAGE_SELF) - cpu0;
  int status        = 0;
  waitpid(child, &status, 0);
  must(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ping-pong child");
  const double theirs = cpu_seconds(RUSAGE_CHILDREN) - reaped;
  close(sv[0]);
  close(sv[1]);
  return {elapsed / (2.0 * n), (mine + theirs) / (2.0 * n), theirs / n};
}

// Processes that keep CPUs busy at the lowest priority (SCHED_IDLE) and count their loop turns in
// shared memory. The turns they lose while something else runs on their CPUs measure that
// something's whole CPU cost, kernel and hypervisor work included, which no per-process clock sees.
class Spinners {
public:
  explicit Spinners(const std::vector<int>& cpus) : n_(cpus.size())
  {
    void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    must(mem != MAP_FAILED, "mmap");
    shared_ = new (mem) Shared{};
    for (std::size_t i = 0; i < n_; i++) {
      const pid_t pid = fork();
      must(pid >= 0, "fork");
      if (pid == 0) spin(cpus[i], shared_->turns[i]);
      pids_.push_back(pid);
    }
  }
  ~Spinners()
  {
    shared_->stop.store(true);
    for (const pid_t pid : pids_) waitpid(pid, nullptr, 0);
    munmap(shared_, sizeof(Shared));
  }
  Spinners(const Spinners&)            = delete;
  Spinners& operator=(const Spinners&) = delete;

  double turns() const
  {
    double sum = 0;
    for (std::size_t i = 0; i < n_; i++) sum += static_cast<double>(shared_->turns[i].load());
    return sum;
  }
  /// Turns per second of one busy CPU, over `seconds` with nothing else running.
  double rate(double seconds) const
  {
    const double k0 = turns();
    const double t0 = wall_now();
    while (wall_now() - t0 < seconds) usleep(1000);
    return (turns() - k0) / (wall_now() - t0) / static_cast<double>(n_);
  }

private:
  static constexpr std::size_t kMax = CPU_SETSIZE;
  struct Shared {
    std::array<std::atomic<long long>, kMax> turns{};
    std::atomic<bool> stop{false};
  };
  [[noreturn]] void spin(int cpu, std::atomic<long long>& turns) const
  {
    pin_to(cpu);
    sched_param none{};
    if (sched_setscheduler(0, SCHED_IDLE, &none) != 0) setpriority(PRIO_PROCESS, 0, 19);
    for (long long k = 1; !shared_->stop.load(std::memory_order_relaxed); k++) {
      for (volatile int j = 0; j < 200; j = j + 1) {
      }
      turns.store(k, std::memory_order_relaxed);
    }
    _exit(0);
  }
  std::size_t n_;
  Shared* shared_ = nullptr;
  std::vector<pid_t> pids_;
};

// The cross-CPU ping-pong with both CPUs busy: CPU seconds it costs per half trip, from the turns
// the spinners lost, against their rate just before and after.
double busy_half_trip_cpu(int cpu_a, int cpu_b, int n)
{
  const Spinners spinners({cpu_a, cpu_b});
  const double before = spinners.rate(0.3);
  const double k0     = spinners.turns();
  const double t0     = wall_now();
  ping_pong(cpu_a, cpu_b, n);
  const double elapsed = wall_now() - t0;
  const double done    = spinners.turns() - k0;
  const double rate    = (before + spinners.rate(0.3)) / 2;
  const double lost    = 2 * elapsed - done / rate; // CPU seconds of the two CPUs
  return std::max(0.0, lost) / (2.0 * n);
}

struct SyncCosts {
  double latency    = 0; // mean wall time per call
  double own_cpu    = 0;
  double system_cpu = 0;
  double switches   = 0;     // context switches system-wide, per call
  std::vector<double> calls; // wall time of each call
};

double median(std::vector<double> v)
{
  if (v.empty()) return 0;
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  return *middle;
}

// One process overwriting a preallocated 8 kB block and syncing it, as a WAL flush of one page.
SyncCosts fdatasync_costs(const std::string& dir, int n)
{
  const std::string path = dir + "/walsim-probe.tmp";
  const int fd           = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  std::vector<char> page(8192, 1);
  must(pwrite(fd, page.data(), page.size(), 0) == static_cast<ssize_t>(page.size()), "pwrite");
  must(fsync(fd) == 0, "fsync");
  const SystemTicks s0 = system_ticks();
  const double cpu0    = cpu_seconds(RUSAGE_SELF);
  std::vector<double> calls(static_cast<std::size_t>(n));
  const double t0 = wall_now();
  for (auto& call : calls) {
    const double c0 = wall_now();
    must(pwrite(fd, page.data(), page.size(), 0) == static_cast<ssize_t>(page.size()), "pwrite");
    must(fdatasync(fd) == 0, "fdatasync");
    call = wall_now() - c0;
  }
  const double elapsed = wall_now() - t0;
  const double own     = cpu_seconds(RUSAGE_SELF) - cpu0;
  const SystemTicks s1 = system_ticks();
  close(fd);
  unlink(path.c_str());
  const double cpus      = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  const double busy_frac = static_cast<double>(s1.busy - s0.busy) / static_cast<double>(s1.total - s0.total);
  return {elapsed / n, own / n, busy_frac * cpus * elapsed / n, static_cast<double>(s1.switches - s0.switches) / n,
          std::move(calls)};
}

struct BusySync {
  double idle_mean = 0, idle_median = 0, busy_mean = 0, busy_median = 0; // wall time per call
};

// pwrite + fdatasync as above with nothing else running and with a lowest-priority spinner on each
// of these CPUs, so that every device request completes while all of them are busy. The two
// alternate in rounds: on a shared host the device's latency drifts by tens of percent within
// seconds, and alternating puts the same drift into both.
BusySync busy_sync_latency(const std::string& dir, const std::vector<int>& cpus, int n, int rounds)
{
  const int per_round = std::max(1, n / rounds);
  std::vector<double> idle, busy;
  for (int r = 0; r < rounds; r++) {
    const SyncCosts quiet = fdatasync_costs(dir, per_round);
    idle.insert(idle.end(), quiet.calls.begin(), quiet.calls.end());
    const Spinners spinners(cpus);
    spinners.rate(0.1); // until they all spin
    const SyncCosts loaded = fdatasync_costs(dir, per_round);
    busy.insert(busy.end(), loaded.calls.begin(), loaded.calls.end());
  }
  const auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  return {mean(idle), median(idle), mean(busy), median(busy)};
}

// /proc/interrupts: device interrupts (the numbered lines; the kernel's own, such as timer and
// reschedule interrupts, are named) taken by each CPU since boot, by CPU number.
std::vector<long long> device_interrupts()
{
  std::ifstream in("/proc/interrupts");
  std::string header;
  if (!std::getline(in, header)) throw std::runtime_error("cannot read /proc/interrupts");
  std::vector<int> cpu_of_column;
  std::istringstream names(header);
  for (std::string name; names >> name;) cpu_of_column.push_back(std::stoi(name.substr(3)));
  std::vector<long long> count(static_cast<std::size_t>(CPU_SETSIZE), 0);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string label;
    fields >> label;
    if (label.empty() || !std::isdigit(static_cast<unsigned char>(label[0]))) continue;
    for (const int cpu : cpu_of_column) {
      long long n = 0;
      if (!(fields >> n)) break;
      count[static_cast<std::size_t>(cpu)] += n;
    }
  }
  return count;
}

struct InterruptCosts {
  int cpu         = -1;        // the CPU that takes the device's completions (-1: none found)
  double per_call = 0;         // its device interrupts per pwrite + fdatasync
  double busy     = 0;         // what each costs it while busy (seconds)
  std::vector<double> per_cpu; // device interrupts per call, by position in the CPU list
};

// pwrite + fdatasync in a child pinned to one CPU while a lowest-priority spinner keeps another
// busy, for each CPU in turn as the spinner's. The CPU whose device interrupts rise by about one
// per device request takes the completions (a virtio queue's interrupt is bound to one vCPU); the
// turns its spinner loses per interrupt are what a completion costs a busy CPU: the guest's
// handler and, in a VM, the host's work on that vCPU, which the interrupted process is never told
// of (its CPU clock runs on).
// One round: the calls in a child pinned to sync_cpu; returns the wall time they took and adds the
// spinner's turns and the device interrupts on its CPU meanwhile.
double sync_round(const std::string& dir, int sync_cpu, int n, const Spinners& spinner, int busy_cpu, double* turns,
                  double* irqs)
{
  const auto irq0 = device_interrupts();
  const double k0 = spinner.turns();
  const double t0 = wall_now();
  const pid_t pid = fork();
  must(pid >= 0, "fork");
  if (pid == 0) {
    try {
      pin_to(sync_cpu);
      fdatasync_costs(dir, n);
    } catch (const std::exception&) {
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  must(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the fdatasync child");
  const double elapsed = wall_now() - t0;
  *turns += spinner.turns() - k0;
  const auto b = static_cast<std::size_t>(busy_cpu);
  *irqs += static_cast<double>(device_interrupts()[b] - irq0[b]);
  return elapsed;
}

InterruptCosts busy_interrupt_costs(const std::string& dir, const std::vector<int>& cpus, int n, int rounds)
{
  InterruptCosts found;
  const int per_round = std::max(1, n / rounds);
  for (std::size_t i = 0; i < cpus.size(); i++) {
    const int busy_cpu = cpus[i];
    const Spinners spinner({busy_cpu});
    // The spinner's rate drifts on a shared host: each round is set against the rate measured just
    // before and just after it.
    double lost = 0, irqs = 0;
    double rate = spinner.rate(0.2);
    for (int r = 0; r < rounds; r++) {
      double turns         = 0;
      const double elapsed = sync_round(dir, cpus[(i + 1) % cpus.size()], per_round, spinner, busy_cpu, &turns, &irqs);
      const double after   = spinner.rate(0.2);
      lost += elapsed - turns / ((rate + after) / 2);
      rate = after;
    }
    const double calls = static_cast<double>(per_round) * rounds;
    found.per_cpu.push_back(irqs / calls);
    if (irqs / calls > found.per_call) {
      found.per_call = irqs / calls;
      found.busy     = irqs > 0 ? std::max(0.0, lost) / irqs : 0;
      found.cpu      = busy_cpu;
    }
  }
  // Fewer than one interrupt per request: completions are spread over CPUs, or polled.
  if (found.per_call < 1) found = InterruptCosts{-1, found.per_call, 0, found.per_cpu};
  return found;
}

struct PageCacheCosts {
  double read = 0, read_per_kb = 0, write = 0, write_per_kb = 0; // seconds
};

// Random 8 kB and 1 kB reads and writes of a file the page cache holds (it was just written):
// the difference per kB is the copy, the rest the system call.
PageCacheCosts page_cache_costs(const std::string& dir, int n)
{
  constexpr std::size_t kPages = 8192; // 64 MB
  const std::string path       = dir + "/walsim-probe-cache.tmp";
  const int fd                 = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  std::vector<char> page(8192, 1);
  for (std::size_t i = 0; i < kPages; i++)
    must(pwrite(fd, page.data(), page.size(), static_cast<off_t>(i * page.size())) == static_cast<ssize_t>(page.size()),
         "pwrite");
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::size_t> pick(0, kPages - 1);
  const auto timed = [&](bool write_call, std::size_t bytes) {
    const double t0 = wall_now();
    for (int i = 0; i < n; i++) {
      const auto at   = static_cast<off_t>(pick(rng) * page.size());
      const auto done = write_call ? pwrite(fd, page.data(), bytes, at) : pread(fd, page.data(), bytes, at);
      must(done == static_cast<ssize_t>(bytes), write_call ? "pwrite" : "pread");
    }
    return (wall_now() - t0) / n;
  };
  timed(false, 8192); // warm the path and the page tables
  const double r8 = timed(false, 8192), r1 = timed(false, 1024);
  const double w8 = timed(true, 8192), w1 = timed(true, 1024);
  close(fd);
  unlink(path.c_str());
  PageCacheCosts c;
  c.read_per_kb  = std::max(0.0, (r8 - r1) / 7);
  c.read         = std::max(0.0, r1 - c.read_per_kb);
  c.write_per_kb = std::max(0.0, (w8 - w1) / 7);
  c.write        = std::max(0.0, w1 - c.write_per_kb);
  return c;
}

struct FaultCosts {
  double read = 0, write = 0, first_touch = 0; // seconds
  int fault_around_pages = 0;                  // pages a read fault mapped
  double faults_per_read = 0;                  // the guest's minor faults per timed read (1 expected)
};

long minor_faults()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// A process forked after its parent populated shared anonymous memory, as a backend is forked after
// the postmaster populated shared memory, touches it as a backend first does. One byte read per
// 2 MB-aligned block first: the pages after it that fault in none (minor faults unchanged) are
// fault-around's window. Then one read per window, in a random order (page_fault_read), a read of
// each other page of those windows (page_first_touch: the guest takes no fault, yet the first access
// through an entry fault-around made may cost time in a VM), and a write of each page of memory
// not yet touched (page_fault_write). The child reports through a pipe.
FaultCosts page_fault_costs()
{
  constexpr std::size_t kPage = 4096, kBlock = 2 << 20, kBytes = 3 * 64 * kBlock; // 384 MB
  void* const mem = mmap(nullptr, kBytes + kBlock, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) throw std::runtime_error("cannot map shared memory");
  auto* const base =
      reinterpret_cast<volatile char*>((reinterpret_cast<std::uintptr_t>(mem) + kBlock - 1) / kBlock * kBlock);
  for (std::size_t i = 0; i < kBytes; i += kPage) base[i] = 1;
  int fds[2];
  must(pipe(fds) == 0, "pipe");
  const pid_t child = fork();
  must(child >= 0, "fork");
  if (child == 0) {
    FaultCosts c;
    volatile char sink = 0;
    sink += base[0];
    const long before = minor_faults();
    for (std::size_t p = 1; p < kBlock / kPage && minor_faults() == before; p++, c.fault_around_pages++)
      sink += base[p * kPage];
    c.fault_around_pages       = std::max(1, c.fault_around_pages);
    const std::size_t window   = static_cast<std::size_t>(c.fault_around_pages) * kPage;
    volatile char* const reads = base + kBlock;
    const std::size_t windows  = (kBytes / 3 - kBlock) / window;
    std::vector<std::size_t> order(windows);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
    long f0   = minor_faults();
    double t0 = wall_now();
    for (std::size_t w : order) sink += reads[w * window];
    c.read              = (wall_now() - t0) / static_cast<double>(windows);
    c.faults_per_read   = static_cast<double>(minor_faults() - f0) / static_cast<double>(windows);
    std::size_t touched = 0;
    t0                  = wall_now();
    for (std::size_t w : order)
      for (std::size_t p = kPage; p < window; p += kPage, touched++) sink += reads[w * window + p];
    c.first_touch               = touched > 0 ? (wall_now() - t0) / static_cast<double>(touched) : 0;
    volatile char* const writes = base + kBytes / 3;
    const std::size_t pages     = kBytes / 3 / kPage;
    f0                          = minor_faults();
    t0                          = wall_now();
    for (std::size_t p = 0; p < pages; p++) writes[p * kPage] = 2;
    c.write       = (wall_now() - t0) / static_cast<double>(pages);
    const bool ok = write(fds[1], &c, sizeof c) == static_cast<ssize_t>(sizeof c);
    _exit(ok && sink >= 0 ? 0 : 1);
  }
  close(fds[1]);
  FaultCosts c;
  const bool got = read(fds[0], &c, sizeof c) == static_cast<ssize_t>(sizeof c);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  munmap(mem, kBytes + kBlock);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("page-fault test failed");
  return c;
}

// Other processes' CPU use while the probe ran, in CPUs: every figure here assumes an otherwise
// idle machine (a busy one turns idle wake-ups into run-queue waits and slows the rest), so the
// probe says when that did not hold rather than print figures that look fine.
class OtherLoad {
public:
  OtherLoad() : ticks_(system_ticks()), own_(own_cpu()), start_(wall_now()) {}
  double cpus() const
  {
    const double elapsed   = wall_now() - start_;
    const SystemTicks now  = system_ticks();
    const double total     = static_cast<double>(now.total - ticks_.total);
    const double busy_frac = total > 0 ? static_cast<double>(now.busy - ticks_.busy) / total : 0;
    const double busy      = busy_frac * static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN)) * elapsed;
    return elapsed > 0 ? std::max(0.0, busy - (own_cpu() - own_)) / elapsed : 0;
  }

private:
  static double own_cpu() { return cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN); }
  SystemTicks ticks_;
  double own_;
  double start_;
};

constexpr double kBusyMachine = 0.25; // CPUs of other load above which the figures are suspect

// The level-2 cache of the CPU this process may first run on, in bytes (0 if sysfs does not say).
double private_cache_bytes(int cpu)
{
  for (int index = 0; index < 8; index++) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index);
    std::ifstream level(dir + "/level"), size(dir + "/size");
    int l = 0;
    std::string text;
    if (!(level >> l) || !(size >> text)) continue;
    if (l != 2 || text.empty()) continue;
    const double unit = text.back() == 'K' ? 1024.0 : text.back() == 'M' ? 1024.0 * 1024 : 1.0;
    return std::stod(text) * unit;
  }
  return 0;
}

// The scheduler the running kernel uses, read from its release: EEVDF since Linux 6.6, CFS before.
// EEVDF's base slice is 0.75 ms times 1 + log2 of the online CPUs (at most 8), as the kernel sets
// it at boot, unless debugfs is readable and says otherwise.
struct KernelScheduler {
  std::string release;
  std::string name;
  double slice = 0; // seconds; EEVDF only
};

KernelScheduler kernel_scheduler()
{
  utsname u{};
  must(uname(&u) == 0, "uname");
  KernelScheduler k{u.release, "cfs", 0};
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return k;
  if (major < 6 || (major == 6 && minor < 6)) return k;
  k.name          = "eevdf";
  const long cpus = std::clamp(sysconf(_SC_NPROCESSORS_ONLN), 1L, 8L);
  int log2        = 0;
  while ((2L << log2) <= cpus) log2++;
  k.slice = 0.75e-3 * (1 + log2);
  std::ifstream tuned("/sys/kernel/debug/sched/base_slice_ns");
  long long base_ns = 0;
  if (tuned >> base_ns && base_ns > 0) k.slice = static_cast<double>(base_ns) * 1e-9;
  return k;
}

struct RefillCosts {
  double chase           = 0; // seconds per kB, each miss waited for in turn
  double independent     = 0; // seconds per kB, misses free to overlap
  double chase_warm_line = 0; // seconds per line of the chase, in place and pushed out
  double chase_cold_line = 0;
};

// Where the refill passes leave their result, so that their loads are not optimised away.
volatile std::size_t refill_sink = 0;

// One pass over the buffer's lines in a random order, as a chain of dependent loads or as
// independent loads; returns seconds per line.
double pass_seconds(const std::vector<std::size_t>& next, const std::vector<std::size_t>& order, bool chase)
{
  const double t0 = wall_now();
  std::size_t at  = 0;
  if (chase) {
    for (std::size_t i = 0; i < order.size(); i++) at = next[at * 8];
  } else {
    for (const std::size_t line : order) at += next[line * 8];
  }
  refill_sink = at;
  return (wall_now() - t0) / static_cast<double>(order.size());
}

// A guest's share of a last-level cache is smaller than the cache its host has: pushing the data
// out of it takes a buffer the size of the host's caches, not four times the share.
constexpr double kSharedEvict = 128.0 * 1024 * 1024;

// Pinned to one CPU: a buffer of half its private cache, walked in a random line order, timed
// after evict_bytes were written (four times the private cache pushes it out to the shared cache) and
// with it in place; the difference per kB is the refill.
RefillCosts refill_costs(int cpu, double cache_bytes, double evict_bytes, int passes)
{
  cpu_set_t saved;
  CPU_ZERO(&saved);
  must(sched_getaffinity(0, sizeof saved, &saved) == 0, "sched_getaffinity");
  pin_to(cpu);
  const std::size_t lines = static_cast<std::size_t>(cache_bytes / 2 / 64);
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::mt19937_64 rng(12345);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::size_t> next(lines * 8); // 8 words per 64-byte line; the first links the chain
  for (std::size_t i = 0; i < lines; i++) next[order[i] * 8] = order[(i + 1) % lines];
  std::vector<char> evict(static_cast<std::size_t>(evict_bytes));
  RefillCosts r;
  // The data in place is timed at its 10th percentile over passes, pushed out at its median: on
  // a virtual CPU whose core another guest shares, the warm pass too often finds its data gone,
  // and the fastest passes are the ones that show the cache as this process has it.
  const auto quantile = [](std::vector<double> v, double q) {
    const auto k = static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return v[static_cast<std::size_t>(k)];
  };
  for (const bool chase : {true, false}) {
    std::vector<double> warm, cold;
    for (int k = 0; k < passes; k++) {
      pass_seconds(next, order, chase);
      warm.push_back(pass_seconds(next, order, chase));
      for (std::size_t i = 0; i < evict.size(); i += 64) evict[i] = static_cast<char>(evict[i] + 1);
      cold.push_back(pass_seconds(next, order, chase));
    }
    const double in_place = quantile(warm, 0.1), pushed_out = quantile(cold, 0.5);
    (chase ? r.chase : r.independent) = std::max(0.0, pushed_out - in_place) * 16;
    if (chase) {
      r.chase_warm_line = in_place;
      r.chase_cold_line = pushed_out;
    }
  }
  must(sched_setaffinity(0, sizeof saved, &saved) == 0, "sched_setaffinity");
  return r;
}

// A dependent chase through `bytes` in a random line order, with the data left in place by the
// passes before: the median time per load. Pinned to one CPU.
double chase_in_place(std::size_t bytes, std::mt19937_64& rng)
{
  const std::size_t lines = std::max<std::size_t>(2, bytes / 64);
  std::vector<std::size_t> order(lines);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::size_t> next(lines * 8);
  for (std::size_t i = 0; i < lines; i++) next[order[i] * 8] = order[(i + 1) % lines];
  // Enough passes that each size is timed over at least about a million loads.
  const int passes = static_cast<int>(std::clamp<std::size_t>((1u << 20) / lines, 5, 201));
  std::vector<double> per_load;
  pass_seconds(next, order, true);
  for (int k = 0; k < passes; k++) per_load.push_back(pass_seconds(next, order, true));
  std::nth_element(per_load.begin(), per_load.begin() + passes / 2, per_load.end());
  return per_load[static_cast<std::size_t>(passes / 2)];
}

struct ChasePoint {
  std::size_t bytes;
  double per_load; // seconds
};

std::vector<ChasePoint> chase_scan(int cpu)
{
  cpu_set_t saved;
  CPU_ZERO(&saved);
  must(sched_getaffinity(0, sizeof saved, &saved) == 0, "sched_getaffinity");
  pin_to(cpu);
  std::mt19937_64 rng(54321);
  std::vector<ChasePoint> points;
  for (std::size_t bytes = 16 * 1024; bytes <= 64 * 1024 * 1024; bytes *= 2)
    points.push_back({bytes, chase_in_place(bytes, rng)});
  must(sched_setaffinity(0, sizeof saved, &saved) == 0, "sched_setaffinity");
  return points;
}

std::string kb(double bytes)
{
  return std::to_string(static_cast<long long>(bytes / 1024)) + "kB";
}

std::string us(double seconds)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fus", seconds * 1e6);
  return buf;
}

std::string ns(double seconds)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fns", seconds * 1e9);
  return buf;
}

// Round trips across two CPUs after the answering CPU has idled for longer and longer: a CPU
// that idles past its shallow idle state (a deeper C-state; in a virtual machine, the end of the
// hypervisor's halt polling) wakes much more slowly, and the profile's one idle_wakeup can only
// stand for the gaps a workload mostly sees.
nlohmann::json idle_gap_scan(int asking_cpu, int answering_cpu, int n)
{
  nlohmann::json rows = nlohmann::json::array();
  for (const double gap : {0.0, 25e-6, 50e-6, 100e-6, 150e-6, 200e-6, 400e-6, 1000e-6}) {
    const PingPong p = ping_pong(asking_cpu, answering_cpu, n, gap);
    rows.push_back({{"idle_gap", us(gap)}, {"round_trip", us(2 * p.half_trip)}, {"answer_cpu", us(p.child_cpu)}});
  }
  return rows;
}

} // namespace

int main(int argc, char** argv)
{
  po::options_description opts("walsim-probe: measure a hardware profile's OS costs on this machine.\n\n"
                               "usage: walsim-probe [options]\n\noptions");
  std::string dir;
  std::string cache_size;
  std::string shared_cache_size;
  int iterations = 0;
  opts.add_options()("help,h",
                     "this help")("dir", po::value(&dir)->default_value("."),
                                  "directory for the fdatasync and page-cache tests (put it on the WAL's file system)")(
      "iterations", po::value(&iterations)->default_value(100000),
      "round trips per ping-pong test (fdatasync runs a twentieth of them)")(
      "cache-size", po::value(&cache_size),
      "the core's private (level 2) cache, e.g. 1MB, where sysfs does not describe it (a virtual machine "
      "often hides its caches); it overrides sysfs. The chase scan the probe prints shows where the cache "
      "ends")("shared-cache-size", po::value(&shared_cache_size),
              "the last-level cache as this machine's processes get it, e.g. 8MB (where the chase scan "
              "jumps to memory's latency): also measure its refill from memory (cpu.shared_cache)")(
      "json", "print only the measured figures as JSON (a profile's \"os\" block and the sync latency)");
  po::variables_map vm;
  double given_cache  = 0;
  double given_shared = 0;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
    if (iterations < 100) throw po::error("--iterations must be at least 100");
    if (vm.count("cache-size")) {
      const sim::units::Parsed size = sim::units::parse_size(cache_size);
      if (!size.value) throw po::error("--cache-size " + cache_size + ": " + size.error);
      if (*size.value < 64 * 1024 || *size.value > 1024.0 * 1024 * 1024)
        throw po::error("--cache-size " + cache_size + ": expected a size between 64kB and 1GB");
      given_cache = *size.value;
    }
    if (vm.count("shared-cache-size")) {
      const sim::units::Parsed size = sim::units::parse_size(shared_cache_size);
      if (!size.value) throw po::error("--shared-cache-size " + shared_cache_size + ": " + size.error);
      if (*size.value < 256 * 1024 || *size.value > 4096.0 * 1024 * 1024)
        throw po::error("--shared-cache-size " + shared_cache_size + ": expected a size between 256kB and 4GB");
      if (*size.value <= given_cache)
        throw po::error("--shared-cache-size " + shared_cache_size + ": expected more than --cache-size " + cache_size);
      given_shared = *size.value;
    }
  } catch (const po::error& e) {
    std::cerr << "walsim-probe: " << e.what() << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts << "\nEach figure is measured as the model charges it: see the top of scripts/host_probe.cpp.\n"
              << "Exit status: 0 success, 1 a measurement failed, 2 bad usage.\n";
    return 0;
  }
  try {
    const OtherLoad load;
    const SocketCosts sock      = socket_costs(iterations);
    const std::vector<int> cpus = allowed_cpus();
    const PingPong same         = ping_pong(cpus.at(0), cpus.at(0), iterations);
    const bool two_cpus         = cpus.size() >= 2;
    const PingPong across       = two_cpus ? ping_pong(cpus[0], cpus[1], iterations) : PingPong{};
    const double busy_half_cpu  = two_cpus ? busy_half_trip_cpu(cpus[0], cpus[1], iterations) : 0;
    const SyncCosts sync        = fdatasync_costs(dir, std::max(10, iterations / 20));
    const BusySync busy_sync = two_cpus ? busy_sync_latency(dir, cpus, std::max(10, iterations / 20), 5) : BusySync{};
    const InterruptCosts irq =
        two_cpus ? busy_interrupt_costs(dir, cpus, std::max(10, iterations / 10), 5) : InterruptCosts{};
    const PageCacheCosts cache = page_cache_costs(dir, std::max(100, iterations / 5));
    const FaultCosts faults    = page_fault_costs();
    const nlohmann::json gaps  = two_cpus ? idle_gap_scan(cpus[0], cpus[1], std::max(20, iterations / 200)) : nullptr;
    const double sysfs_cache   = private_cache_bytes(cpus.at(0));
    const double cache_bytes   = given_cache > 0 ? given_cache : sysfs_cache;
    const RefillCosts refill =
        cache_bytes > 0 ? refill_costs(cpus[0], cache_bytes, cache_bytes * 4, 201) : RefillCosts{};
    const RefillCosts shared_refill =
        given_shared > 0 ? refill_costs(cpus[0], given_shared, std::max(given_shared * 4, kSharedEvict), 41)
                         : RefillCosts{};
    const std::vector<ChasePoint> chase = chase_scan(cpus[0]);
    const AddressSpaces spaces          = address_spaces(cpus[0]);
    const KernelScheduler sched         = kernel_scheduler();
    const double other                  = load.cpus();
    const double io                     = sock.send + sock.recv;
    const double context_switch         = same.half_trip - io;
    const double busy_wakeup            = std::max(0.0, busy_half_cpu - io - 2 * context_switch);
    nlohmann::json os                   = {{"socket_send", us(sock.send)},
                                           {"socket_recv", us(sock.recv)},
                                           {"context_switch", us(context_switch)},
                                           {"fdatasync_cpu", us(sync.own_cpu)},
                                           {"pread", ns(cache.read)},
                                           {"pread_per_kB", ns(cache.read_per_kb)},
                                           {"pwrite", ns(cache.write)},
                                           {"pwrite_per_kB", ns(cache.write_per_kb)},
                                           {"page_fault_read", ns(faults.read)},
                                           {"page_fault_write", ns(faults.write)},
                                           {"page_first_touch", ns(faults.first_touch)},
                                           {"fault_around", std::to_string(faults.fault_around_pages * 4) + "kB"},
                                           {"scheduler", sched.name}};
    if (sched.slice > 0) os["time_slice"] = us(sched.slice);
    if (two_cpus) {
      os["idle_wakeup"]     = us(across.half_trip - io);
      os["idle_wakeup_cpu"] = us(across.half_cpu - io);
      os["busy_wakeup_cpu"] = us(busy_wakeup);
      // Two device requests per call, each completion waking the caller onto a busy CPU.
      os["busy_io_delay"] =
          us(std::max(0.0, (busy_sync.busy_mean - busy_sync.idle_mean) / 2 - (context_switch + busy_wakeup)));
      os["io_interrupt_cpu"]  = irq.cpu;
      os["busy_io_interrupt"] = us(irq.busy);
    }
    nlohmann::json cpu = nlohmann::json::object();
    if (cache_bytes > 0) cpu["cache"] = {{"size", kb(cache_bytes)}, {"refill_per_kB", ns(refill.chase)}};
    if (given_shared > 0)
      cpu["shared_cache"] = {{"size", kb(given_shared)}, {"refill_per_kB", ns(shared_refill.chase)}};
    if (spaces.entries > 0) cpu["address_spaces"] = {{"entries", spaces.entries}, {"reload", us(spaces.reload)}};
    nlohmann::json ring_rows = nlohmann::json::array();
    for (std::size_t i = 0; i < spaces.hop.size(); i++)
      ring_rows.push_back({{"processes", i + 2}, {"per_hop", us(spaces.hop[i])}});
    nlohmann::json chase_rows = nlohmann::json::array();
    for (const ChasePoint& p : chase) chase_rows.push_back({{"size", kb(p.bytes)}, {"per_load", ns(p.per_load)}});
    const nlohmann::json out = {
        {"cpu", cpu},
        {"os", os},
        {"measured",
         {{"same_cpu_half_trip", us(same.half_trip)},
          {"cross_cpu_half_trip", us(across.half_trip)},
          {"cross_cpu_half_trip_cpu", us(across.half_cpu)},
          {"busy_cross_cpu_half_trip_cpu", us(busy_half_cpu)},
          {"fdatasync_latency", us(sync.latency)},
          {"fdatasync_latency_median", us(median(sync.calls))},
          {"fdatasync_every_cpu_busy",
           {{"idle_mean", us(busy_sync.idle_mean)},
            {"idle_median", us(busy_sync.idle_median)},
            {"busy_mean", us(busy_sync.busy_mean)},
            {"busy_median", us(busy_sync.busy_median)}}},
          {"fdatasync_system_cpu", us(sync.system_cpu)},
          {"device_interrupts_per_fdatasync_by_cpu", irq.per_cpu},
          {"fdatasync_context_switches", sync.switches},
          {"idle_gap_scan", gaps},
          {"cache_size_from", given_cache > 0   ? "--cache-size"
                              : sysfs_cache > 0 ? "sysfs"
                                                : "unknown"},
          {"sysfs_cache_size", sysfs_cache > 0 ? nlohmann::json(kb(sysfs_cache)) : nlohmann::json(nullptr)},
          {"chase_in_place_by_size", chase_rows},
          {"ring_hop_by_processes", ring_rows},
          {"refill_per_kB_independent_loads", ns(refill.independent)},
          {"refill_chase_per_line",
           {{"in_place", ns(refill.chase_warm_line)}, {"pushed_out", ns(refill.chase_cold_line)}}},
          {"shared_refill_chase_per_line", given_shared > 0
                                               ? nlohmann::json{{"in_place", ns(shared_refill.chase_warm_line)},
                                                                {"pushed_out", ns(shared_refill.chase_cold_line)}}
                                               : nlohmann::json(nullptr)},
          {"minor_faults_per_read_fault", faults.faults_per_read},
          {"kernel", sched.release},
          {"other_load_cpus", std::round(other * 100) / 100}}}};
    if (other > kBusyMachine)
      std::cerr << "walsim-probe: warning: other processes kept " << std::fixed << std::setprecision(2) << other
                << " CPUs busy while the probe ran; the figures assume an otherwise idle machine and are not "
                   "reliable\n";
    if (vm.count("json")) {
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << "socket send / receive (nobody waiting): " << us(sock.send) << " / " << us(sock.recv) << "\n"
              << "same CPU ping-pong: half trip " << us(same.half_trip) << " -> context_switch "
              << os["context_switch"].get<std::string>() << "\n";
    if (two_cpus)
      std::cout << "CPU-to-CPU ping-pong: half trip " << us(across.half_trip) << ", CPU " << us(across.half_cpu)
                << " -> idle_wakeup " << os["idle_wakeup"].get<std::string>() << ", idle_wakeup_cpu "
                << os["idle_wakeup_cpu"].get<std::string>() << "\n"
                << "CPU-to-CPU ping-pong with both CPUs busy: CPU " << us(busy_half_cpu)
                << " per half trip -> busy_wakeup_cpu " << os["busy_wakeup_cpu"].get<std::string>() << "\n";
    std::cout << "8kB pwrite + fdatasync in " << dir << ": " << us(sync.latency) << ", own CPU " << us(sync.own_cpu)
              << " (fdatasync_cpu), system-wide CPU " << us(sync.system_cpu) << ", " << std::fixed
              << std::setprecision(1) << sync.switches << " context switches system-wide\n";
    if (two_cpus)
      std::cout << "8kB pwrite + fdatasync with every CPU busy: mean " << us(busy_sync.busy_mean) << " (idle "
                << us(busy_sync.idle_mean) << "), median " << us(busy_sync.busy_median) << " (idle "
                << us(busy_sync.idle_median) << ") per call -> busy_io_delay " << os["busy_io_delay"].get<std::string>()
                << "\n";
    if (two_cpus) {
      std::cout << "8kB pwrite + fdatasync on one CPU, a spinner on another: device interrupts per call on the "
                   "spinner's CPU";
      for (std::size_t i = 0; i < irq.per_cpu.size(); i++)
        std::cout << (i == 0 ? " " : ", ") << "CPU " << cpus[i] << " " << std::fixed << std::setprecision(2)
                  << irq.per_cpu[i];
      std::cout << " -> io_interrupt_cpu " << irq.cpu << ", busy_io_interrupt "
                << os["busy_io_interrupt"].get<std::string>() << " (the spinner's loss per interrupt)\n";
    }
    std::cout << "page cache, random pages of a cached file in " << dir << ": read() " << ns(cache.read) << " + "
              << ns(cache.read_per_kb) << " per kB (pread, pread_per_kB), write() " << ns(cache.write) << " + "
              << ns(cache.write_per_kb) << " per kB (pwrite, pwrite_per_kB)\n";
    std::cout << "shared memory a forked child first touches: read fault " << ns(faults.read) << " (maps "
              << faults.fault_around_pages * 4
              << " kB: page_fault_read, fault_around), first touch of a page it mapped " << ns(faults.first_touch)
              << " (page_first_touch), write fault " << ns(faults.write) << " (page_fault_write)\n";
    std::cout << "kernel " << sched.release << " -> scheduler " << sched.name;
    if (sched.slice > 0) std::cout << ", time_slice " << os["time_slice"].get<std::string>() << " (its base slice)";
    std::cout << "\n";
    if (cache_bytes > 0)
      std::cout << "private cache " << cpu["cache"]["size"].get<std::string>() << " ("
                << (given_cache > 0 ? "--cache-size" : "sysfs") << "): refilling it costs " << ns(refill.chase)
                << " per kB (a pointer chase: refill_per_kB), " << ns(refill.independent)
                << " per kB with independent loads\n";
    else
      std::cout << "private cache: sysfs does not describe it; give its size with --cache-size (where the chase "
                   "below jumps) to measure refill_per_kB\n";
    if (given_shared > 0)
      std::cout << "shared cache " << cpu["shared_cache"]["size"].get<std::string>()
                << " (--shared-cache-size): bringing data back from memory costs " << ns(shared_refill.chase)
                << " per kB beyond the shared cache (cpu.shared_cache.refill_per_kB), " << ns(shared_refill.independent)
                << " per kB with independent loads\n";
    std::cout << "a byte round a ring of processes on one CPU, time per hop (it jumps where the CPU stops keeping "
                 "every address space ready):\n";
    for (std::size_t i = 0; i < spaces.hop.size(); i++)
      std::cout << "  " << i + 2 << " processes  " << us(spaces.hop[i]) << "\n";
    if (spaces.entries > 0)
      std::cout << "  -> address_spaces entries " << spaces.entries << ", reload " << us(spaces.reload) << "\n";
    else
      std::cout << "  -> no jump: address_spaces not needed\n";
    std::cout << "pointer chase with the data in place, time per load by buffer size (it jumps where a buffer "
                 "outgrows a cache):\n";
    for (const ChasePoint& p : chase)
      std::cout << "  " << std::setw(8) << kb(p.bytes) << "  " << ns(p.per_load) << "\n";
    if (two_cpus) {
      std::cout << "CPU-to-CPU round trip after the answering CPU idled (a jump: it left its shallow idle state):\n";
      for (const auto& row : gaps)
        std::cout << "  idle " << row["idle_gap"].get<std::string>() << ": round trip "
                  << row["round_trip"].get<std::string>() << ", answering CPU " << row["answer_cpu"].get<std::string>()
                  << "\n";
    }
    std::cout << "\n" << out.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "walsim-probe: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
