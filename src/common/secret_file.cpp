#include "secret_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace outbox {

Outcome<std::string> read_secret_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  std::stringstream text;
  text << in.rdbuf();
  std::string value = text.str();
  // Files written with echo or an editor end in a newline that is not part of the secret.
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r'))
    value.pop_back();
  return value;
}

std::string secret_file_exposure(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || (info.st_mode & S_IROTH) == 0) return "";
  char mode[8];
  std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(info.st_mode & 07777));
  return std::string("mode ") + mode + ": readable by every user of the machine (chmod 600 " +
         path + ", or 640 with a group of its own)";
}

}  // namespace outbox
