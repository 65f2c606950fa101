#!/usr/bin/env bash
# Installs the Debian packages the project builds, tests and demos with, plus any given as
# arguments (bench/run.sh adds gnuplot-nox). Runs apt-get only when something is missing, so a
# second run costs nothing.
set -euo pipefail

# Tests also use: jq (an independent JSON parser for outboxctl --json and the Grafana
# dashboard), systemd (systemd-analyze verify on the units); cpack comes with cmake and
# dpkg-shlibdeps (the .deb's dependencies) with build-essential's dpkg-dev.
packages=(
  build-essential cmake pkg-config clang-format
  # Static analysis (clang-tidy with the repo's .clang-tidy) and the fuzz targets: Debian's
  # clang 14 and its runtime libraries, which carry libFuzzer (libclang_rt.fuzzer) and the
  # sanitizers clang links (a Recommends of clang, so named here for --no-install-recommends).
  clang clang-tidy libclang-rt-14-dev
  librdkafka-dev libmysqlcppconn-dev libspdlog-dev libyaml-cpp-dev catch2
  libsystemd-dev libcpp-httplib-dev prometheus-cpp-dev
  mariadb-server mariadb-client kcat
  # MySQL for the tests: Debian sid's mysql-server-core in a private root under .local/
  # (scripts/local-mysql.sh), made with mmdebstrap; bookworm has no MySQL server.
  mmdebstrap
  jq systemd
  # The test-only Python clients (scripts/python-tools.sh: a venv of PyPI packages under .local/).
  python3 python3-venv
  # The real Kafka cluster of the tests (scripts/kafka-cluster.sh): a JVM and Maven to fetch it.
  openjdk-17-jre-headless maven
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "==> installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # mariadb-server's postinst tries to start the system service; we run our own server
  # under a private datadir instead, so a refused start is fine.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
