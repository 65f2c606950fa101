// The .deb: built with cpack from this build tree and inspected with dpkg-deb, as an operator
// would: what it installs where (the config with which mode), what it depends on, which file
// is a conffile, and that the binaries it carries run.
#include <catch2/catch.hpp>

#include <filesystem>

#include "child_process.hpp"
#include "test_env.hpp"

using outbox::test::run_command;

namespace {

// The build type this tree was configured with (CMAKE_BUILD_TYPE in its CMakeCache.txt).
std::string build_type() {
  const std::string cache =
      outbox::test::read_text_file(std::string(OUTBOX_BINARY_DIR) + "/CMakeCache.txt");
  const std::string entry = "\nCMAKE_BUILD_TYPE:STRING=";
  const size_t at = cache.find(entry);
  if (at == std::string::npos) return "";
  const size_t begin = at + entry.size();
  return cache.substr(begin, cache.find('\n', begin) - begin);
}

// Builds the package into dir and returns its path. (One test case builds it once: cpack
// installs the whole project, which is the slow part.)
std::string build_package(const outbox::test::TempDir& dir) {
  const auto built =
      run_command({"cpack", "-G", "DEB", "--config",
                   std::string(OUTBOX_BINARY_DIR) + "/CPackConfig.cmake", "-B", dir.path()});
  INFO(built.out << built.err);
  REQUIRE(built.status == 0);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().extension() == ".deb") return entry.path().string();
  }
  FAIL("cpack wrote no .deb");
  return "";
}

}  // namespace

TEST_CASE("cpack builds a .deb with the binaries, units, conffile and docs", "[package]") {
  // What ships is what a packager builds: an optimised build without debug info
  // (scripts/build.sh's default; a RelWithDebInfo or Debug tree would package other binaries).
  INFO("package from a tree configured with -DCMAKE_BUILD_TYPE=Release, e.g. scripts/build.sh");
  REQUIRE(build_type() == "Release");
  outbox::test::TempDir dir;
  const std::string deb = build_package(dir);
  CHECK(std::filesystem::path(deb).filename().string().rfind("outbox-relay_0.1.0_", 0) == 0);

  const auto contents = run_command({"dpkg-deb", "-c", deb});
  REQUIRE(contents.status == 0);
  for (const char* path : {
           "./usr/bin/outbox-relay",
           "./usr/bin/outboxctl",
           "./lib/systemd/system/outbox-relay.service",
           "./lib/systemd/system/outbox-purge.service",
           "./lib/systemd/system/outbox-purge.timer",
           "./etc/outbox-relay/relay.yaml",
           "./usr/share/doc/outbox-relay/README.md",
           "./usr/share/doc/outbox-relay/docs/operating.md",
           "./usr/share/doc/outbox-relay/relay.example.yaml",
           "./usr/share/doc/outbox-relay/mysql-grants.sql",
           "./usr/share/doc/outbox-relay/outbox-relay.json",
           "./usr/share/doc/outbox-relay/outbox-relay-sidecar.yaml",
           "./usr/share/outbox-relay/sql/001_outbox_event.sql",
           "./usr/share/outbox-relay/sql/010_retention_indexes.sql",
           "./usr/share/outbox-relay/sql/012_outbox_trace_context.sql",
           "./usr/share/outbox-relay/sql/013_notification_job_trace_id.sql",
           "./usr/share/outbox-relay/sql/014_outbox_pause.sql",
           "./usr/share/outbox-relay/sql/015_outbox_purge_log.sql",
       }) {
    INFO(path);
    CHECK(contents.out.find(std::string(" ") + path + "\n") != std::string::npos);
  }
  // The config may hold secrets inline: root:root 0640, never readable by every user (the
  // services get it as a credential). dpkg-deb -c lists "MODE OWNER/GROUP SIZE DATE TIME PATH".
  const size_t config_at = contents.out.find(" ./etc/outbox-relay/relay.yaml\n");
  REQUIRE(config_at != std::string::npos);
  const size_t line_start = contents.out.rfind('\n', config_at) + 1;
  const std::string config_entry = contents.out.substr(line_start, config_at - line_start);
  INFO(config_entry);
  CHECK(config_entry.rfind("-rw-r----- root/root ", 0) == 0);
  // postinst tightens the 0644 an older package left (and nothing else).
  const auto postinst = run_command({"dpkg-deb", "-I", deb, "postinst"});
  CHECK(postinst.out.find("= 644:root:root ]; then\n  chmod 0640 \"$config\"") !=
        std::string::npos);
  // Test tools stay out of the package.
  CHECK(contents.out.find("outbox-test-broker") == std::string::npos);
  CHECK(contents.out.find("outbox-loadgen") == std::string::npos);

  const auto info = run_command({"dpkg-deb", "-I", deb});
  REQUIRE(info.status == 0);
  CHECK(info.out.find(" Package: outbox-relay\n") != std::string::npos);
  CHECK(info.out.find(" conffiles") != std::string::npos);
  const auto conffiles = run_command({"dpkg-deb", "-I", deb, "conffiles"});
  CHECK(conffiles.out == "/etc/outbox-relay/relay.yaml\n");

  const auto depends = run_command({"dpkg-deb", "-f", deb, "Depends"});
  for (const char* library :
       {"librdkafka1", "libmysqlcppconn7v5", "libspdlog1.10", "libyaml-cpp0.7"}) {
    INFO(depends.out);
    CHECK(depends.out.find(library) != std::string::npos);
  }

  // Unpacked: the repository's files, and binaries that run.
  const std::string root = dir.file("root");
  REQUIRE(run_command({"dpkg-deb", "-x", deb, root}).status == 0);
  const std::string source = outbox::test::source_dir();
  CHECK(outbox::test::read_text_file(root + "/etc/outbox-relay/relay.yaml") ==
        outbox::test::read_text_file(source + "/config/relay.yaml"));
  CHECK(outbox::test::read_text_file(root + "/lib/systemd/system/outbox-relay.service") ==
        outbox::test::read_text_file(source + "/systemd/outbox-relay.service"));
  const auto version = run_command({root + "/usr/bin/outbox-relay", "--version"});
  CHECK(version.status == 0);
  CHECK(version.out.rfind("outbox-relay 0.1.0", 0) == 0);
  const auto usage = run_command({root + "/usr/bin/outboxctl"});
  CHECK(usage.status == 64);
  CHECK(usage.err.find("  purge ") != std::string::npos);
}
