#pragma once

#include <string>

namespace outbox {

// "<program> 0.1.0 (librdkafka 2.0.2, MySQL Connector/C++ 1.1.12)": what --version prints, so
// a bug report names the libraries actually linked, not the ones the build expected.
std::string version_line(const std::string& program);

}  // namespace outbox
