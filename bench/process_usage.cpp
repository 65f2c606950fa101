#include "process_usage.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace outbox::bench {

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the parenthesised command name (which may contain spaces).
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14 || index == 15) ticks += std::stod(field);  // utime, stime
    if (index == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double cpu_seconds(const std::vector<pid_t>& pids) {
  double seconds = 0;
  for (const pid_t pid : pids)
    seconds += cpu_seconds(pid);
  return seconds;
}

double machine_busy_seconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;  // "cpu": the sum over all cores
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  double fields[8] = {};
  for (double& field : fields)
    in >> field;
  const double busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
  return busy / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double peak_rss_mib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream value(line.substr(6));
      double kib = 0;
      value >> kib;
      return kib / 1024.0;
    }
  }
  return 0;
}

}  // namespace outbox::bench
