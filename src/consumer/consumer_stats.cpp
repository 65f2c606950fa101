#include "consumer_stats.hpp"

namespace outbox::consumer {

std::string ConsumerStats::describe() const {
  return "applied=" + std::to_string(applied.load()) +
         " duplicates=" + std::to_string(duplicates.load()) +
         " dead_lettered=" + std::to_string(dead_lettered.load()) +
         " failed_attempts=" + std::to_string(failed_attempts.load()) +
         " commit_unknown=" + std::to_string(commit_unknown.load()) +
         " offset_commit_failures=" + std::to_string(offset_commit_failures.load()) +
         " gave_up=" + std::to_string(gave_up.load()) +
         " offset_commits=" + std::to_string(offset_commits.load());
}

}  // namespace outbox::consumer
