#include "harness/temp_dir.hpp"

#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): POSIX mkdtemp

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace outbox::harness {

TempDir::TempDir(const std::string& prefix) {
  std::string pattern = "/tmp/" + prefix + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  if (keep_) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  std::string path = file(name);
  std::ofstream(path) << text;
  return path;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace outbox::harness
