#pragma once

#include <sys/types.h>

namespace outbox::bench {

// CPU time (user + system) a process has used so far, in seconds, from /proc/PID/stat.
double cpu_seconds(pid_t pid);

// CPU time (user + system + irq + steal) the whole machine has used so far, all cores, in
// seconds, from /proc/stat: minus the benchmark's own processes, what other work took.
double machine_busy_seconds();

// Peak resident set size (VmHWM) of a running process, in MiB, from /proc/PID/status.
double peak_rss_mib(pid_t pid);

}  // namespace outbox::bench
