#include "report_tools.hpp"

#include <fstream>

#include "child_process.hpp"
#include "stats.hpp"

namespace outbox::bench {

std::string verdict(bool met) {
  return met ? "met" : "**missed**";
}

std::string ratio(double numerator, double denominator) {
  return denominator > 0 ? format_number(numerator / denominator, 2) : "n/a";
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

void plot(const std::string& out, const std::string& name, const std::string& data,
          const std::string& script) {
  write_file(out + "/" + name + ".dat", data);
  write_file(out + "/" + name + ".gp",
             "set terminal pngcairo size 900,500 noenhanced\nset output '" + out + "/" + name +
                 ".png'\nset grid\n" + script);
  test::run_command({"gnuplot", out + "/" + name + ".gp"});
}

}  // namespace outbox::bench
