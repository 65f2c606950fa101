#pragma once

#include "config/yaml_section.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"
#include "secret_file.hpp"

namespace outbox {

// Reads a `mysql:` section (host, port, socket, user, password | password_file, database,
// connect_timeout, read_timeout, tls), shared by every program configured by YAML. A password_file
// that other users can read is a warning; the file is read again at every connection.
MysqlEndpoint read_mysql_section(YamlSection section);

// Writes the endpoint as a YAML mapping value with the password as *****; `table` (the relay's
// mysql.table) is written when not empty.
void emit_mysql_section(const MysqlEndpoint& mysql, YAML::Emitter& out,
                        const std::string& table = "");

}  // namespace outbox
