/* The worker pool: posix_spawn, and sigtimedwait for child exits, interruptions and ticks. */
#include "models/cli/worker_pool.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace cli {

namespace {

/// Blocks SIGCHLD and the interrupting signals for the pool's lifetime, so that sigtimedwait
/// receives them; restores the previous mask on exit, also when an exception leaves the pool.
class BlockedSignals {
public:
  BlockedSignals()
  {
    // With SIGCHLD ignored, the kernel would reap the workers before we see how they ended.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &default_action, &old_chld_);
    sigemptyset(&set_);
    sigaddset(&set_, SIGCHLD);
    // A signal the caller ignores (nohup, a background job's SIGINT) stays ignored.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) sigaddset(&set_, sig);
    }
    sigprocmask(SIG_BLOCK, &set_, &old_);
  }
  ~BlockedSignals()
  {
    sigprocmask(SIG_SETMASK, &old_, nullptr);
    sigaction(SIGCHLD, &old_chld_, nullptr);
  }
  BlockedSignals(const BlockedSignals&)            = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;

  /// Waits up to one second; returns the signal received, or 0 on timeout.
  int wait_one_second() const
  {
    const timespec one_second{1, 0};
    const int sig = sigtimedwait(&set_, nullptr, &one_second);
    return sig > 0 ? sig : 0;
  }

private:
  sigset_t set_;
  sigset_t old_;
  struct sigaction old_chld_ {};
};

/// Starts a worker with its output in its log, stdin from /dev/null and no blocked signals.
pid_t spawn(const Job& job)
{
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, job.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> argv;
  for (const auto& a : job.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid    = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

int status_of(int wait_status)
{
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 128;
}

} // namespace

int processor_count()
{
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

int run_jobs(const std::vector<Job>& jobs, int parallel, const JobDone& on_done, const std::function<void()>& on_tick)
{
  BlockedSignals signals;
  std::map<pid_t, const Job*> running;
  std::size_t next = 0;
  int interrupted  = 0;
  while (true) {
    while (!interrupted && running.size() < static_cast<std::size_t>(parallel) && next < jobs.size()) {
      const Job& job  = jobs[next++];
      const pid_t pid = spawn(job);
      if (pid < 0)
        on_done(job, 127, false);
      else
        running.emplace(pid, &job);
    }
    if (running.empty()) break;
    int wait_status = 0;
    const pid_t pid = waitpid(-1, &wait_status, WNOHANG);
    if (pid > 0) {
      const auto found = running.find(pid);
      if (found == running.end()) continue; // not one of ours
      const Job& job = *found->second;
      running.erase(found);
      on_done(job, status_of(wait_status), interrupted != 0);
      continue;
    }
    if (pid < 0 && errno == ECHILD) {
      // Our workers were reaped by someone else: report them rather than wait forever.
      for (const auto& [child, job] : running) on_done(*job, 128, interrupted != 0);
      running.clear();
      continue;
    }
    if (pid < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    const int sig = signals.wait_one_second();
    if (sig == SIGCHLD || sig == 0) {
      if (sig == 0) on_tick();
      continue;
    }
    if (!interrupted)
      for (const auto& [child, job] : running) kill(child, SIGTERM);
    interrupted = sig;
  }
  return interrupted;
}

} // namespace cli
