#pragma once

#include "config/yaml_section.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"

namespace outbox {

// The secret held in a file (a password_file key), without the trailing newline that echo or
// an editor adds.
Outcome<std::string> read_secret_file(const std::string& path);

// Reads a `mysql:` section (host, port, socket, user, password | password_file, database,
// connect_timeout, read_timeout), shared by every program configured by YAML.
MysqlEndpoint read_mysql_section(YamlSection section);

// Writes the endpoint as a YAML mapping value with the password as *****.
void emit_mysql_section(const MysqlEndpoint& mysql, YAML::Emitter& out);

}  // namespace outbox
