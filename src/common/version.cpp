#include "version.hpp"

#include <librdkafka/rdkafka.h>
#include <mysql_driver.h>

#include "build_info.hpp"

namespace outbox {

std::string version_line(const std::string& program) {
  sql::mysql::MySQL_Driver* driver = sql::mysql::get_mysql_driver_instance();
  return program + " " + kVersion + " (librdkafka " + rd_kafka_version_str() +
         ", MySQL Connector/C++ " + std::to_string(driver->getMajorVersion()) + "." +
         std::to_string(driver->getMinorVersion()) + "." +
         std::to_string(driver->getPatchVersion()) + ")";
}

}  // namespace outbox
