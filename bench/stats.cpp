#include "stats.hpp"

#include <cstdio>

namespace outbox::bench {

std::string format_number(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

std::string format_figure(const Figure& figure, int decimals) {
  if (figure.runs.size() == 1) return format_number(figure.median(), decimals);
  return format_number(figure.median(), decimals) + " (" + format_number(figure.min(), decimals) +
         "–" + format_number(figure.max(), decimals) + ")";
}

}  // namespace outbox::bench
