#include "test_kafka.hpp"

namespace outbox::test {

TestBroker::TestBroker(int brokers, int partitions, const std::vector<std::string>& topics)
    : broker_(test_broker_binary(), dir_.path(), brokers, partitions, topics) {}

}  // namespace outbox::test
