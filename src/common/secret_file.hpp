#pragma once

#include <string>

#include "outcome.hpp"

namespace outbox {

// The secret held in a file (a password_file key), without the trailing newline that echo or
// an editor adds. Read again at every use that wants the current secret (a connection), so a
// rotated file takes effect without a restart.
Outcome<std::string> read_secret_file(const std::string& path);

// Why the file's permissions let other users read it ("mode 0644: readable by every user"), or
// "" when only its owner and group can. Unreadable files say "" here: reading them fails on its
// own, with its reason.
std::string secret_file_exposure(const std::string& path);

}  // namespace outbox
