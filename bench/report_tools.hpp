#pragma once

#include <string>

namespace outbox::bench {

// "met" or "**missed**", for a target column.
std::string verdict(bool met);

// numerator / denominator with two decimals, "n/a" without a denominator.
std::string ratio(double numerator, double denominator);

void write_file(const std::string& path, const std::string& text);

// Writes OUT/NAME.dat and OUT/NAME.gp (a PNG terminal, then `script`) and renders OUT/NAME.png
// with gnuplot when it is installed.
void plot(const std::string& out, const std::string& name, const std::string& data,
          const std::string& script);

}  // namespace outbox::bench
