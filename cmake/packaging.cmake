# `cpack -G DEB` in the build tree builds outbox-relay_<version>_<arch>.deb: the binaries with an
# install rule (outbox-relay, outboxctl, and any other program that adds one), the systemd
# units, the unit-ready config as a conffile, the schema migrations and the operator docs.
# Runtime dependencies are computed by dpkg-shlibdeps from the binaries, so they name exactly
# the Debian libraries the build linked (librdkafka1, libmysqlcppconn7v5, libspdlog1.10,
# libyaml-cpp0.7, ...) and follow any library a later change adds.

# Paths outside the /usr prefix, where Debian expects units and configuration.
install(FILES
  ${PROJECT_SOURCE_DIR}/systemd/outbox-relay.service
  ${PROJECT_SOURCE_DIR}/systemd/outbox-purge.service
  ${PROJECT_SOURCE_DIR}/systemd/outbox-purge.timer
  DESTINATION /lib/systemd/system)
# root:root 0640: the config may hold secrets written inline (the relay warns when one does in a
# file every user can read). The services never read it there: systemd hands it to them as a
# credential (LoadCredential=relay.yaml:...), which it reads as root. postinst tightens the
# 0644 that earlier packages installed.
install(FILES ${PROJECT_SOURCE_DIR}/config/relay.yaml DESTINATION /etc/outbox-relay
  PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)

install(FILES
  ${PROJECT_SOURCE_DIR}/README.md
  ${PROJECT_SOURCE_DIR}/config/relay.example.yaml
  ${PROJECT_SOURCE_DIR}/deploy/mysql-grants.sql
  ${PROJECT_SOURCE_DIR}/deploy/grafana/outbox-relay.json
  ${PROJECT_SOURCE_DIR}/deploy/kubernetes/outbox-relay-sidecar.yaml
  DESTINATION share/doc/outbox-relay)
# The README's links lead into docs/: ship them side by side.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/outbox-relay/docs
  FILES_MATCHING PATTERN "*.md")
# The migrations are data the operator applies (in order), not documentation that a minimal
# image may strip.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sql/ DESTINATION share/outbox-relay/sql
  FILES_MATCHING PATTERN "*.sql")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME outbox-relay)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MySQL transactional outbox to Kafka relay")
set(CPACK_PACKAGE_DESCRIPTION
  "outbox-relay claims committed rows of a MySQL outbox_event table, publishes them to Kafka \
with the idempotent producer and marks them PUBLISHED only after the broker confirmed them. \
No silent loss; duplicates are identifiable by event_id; every state is queryable with outboxctl.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "outbox-relay maintainers <outbox-relay@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "mariadb-client | default-mysql-client, kcat")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/debian/conffiles
  ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
  ${PROJECT_SOURCE_DIR}/packaging/debian/prerm
  ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
