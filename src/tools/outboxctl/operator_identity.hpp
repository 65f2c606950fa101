#pragma once

#include <string>

namespace outbox::ctl {

// Who runs this outboxctl: the operator's login on this host ("alice@ops-1", the sudo user
// when run through sudo), for the records a command leaves (a pause's paused_by, a replay's
// header).
std::string operator_name();

}  // namespace outbox::ctl
