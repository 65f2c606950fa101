#pragma once

#include <sys/types.h>

#include <vector>

namespace outbox::bench {

// CPU time (user + system) a process has used so far, in seconds, from /proc/PID/stat.
double cpu_seconds(pid_t pid);
// The same summed over several processes (a broker's JVMs).
double cpu_seconds(const std::vector<pid_t>& pids);

// CPU time (user + system + irq + steal) the whole machine has used so far, all cores, in
// seconds, from /proc/stat: minus the benchmark's own processes, what other work took.
double machine_busy_seconds();

// Peak resident set size (VmHWM) of a running process, in MiB, from /proc/PID/status.
double peak_rss_mib(pid_t pid);

}  // namespace outbox::bench
