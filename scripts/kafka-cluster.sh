#!/usr/bin/env bash
# A real Apache Kafka cluster for the tests, outbox-verify, the benchmarks and the demo: 3 KRaft
# nodes (each broker + controller) on loopback, under DIR (nothing system-wide). The broker is
# resolved by Maven from scripts/kafka/pom.xml into .local/ (reused when present).
#
#   kafka-cluster.sh fetch                      resolve the pinned broker (prints its time)
#                                               and make its class-data-sharing archives
#                                               (once per cache; `start` makes them too)
#   kafka-cluster.sh start DIR                  format (when new) and start every node, wait
#                                               until all answer, write DIR/env (source it)
#   kafka-cluster.sh stop DIR                   stop every node (SIGTERM, then SIGKILL)
#   kafka-cluster.sh kill DIR [N]               kill -9 node N (1..3), or every node
#   kafka-cluster.sh start-node DIR N [M...]   start nodes again (their ports, their data), wait
#                                               until each serves clients (several at once:
#                                               a node waits for the others of its quorum)
#   kafka-cluster.sh create-topic DIR NAME PARTITIONS [--leader N] [KEY=VALUE...]
#                                               replication factor 3; waits for every leader.
#                                               --leader N: node N is every partition's
#                                               preferred (first) replica, so it leads them all
#   kafka-cluster.sh alter-topic DIR NAME KEY=VALUE...
#                                               sets topic configs (e.g. min.insync.replicas=3,
#                                               so that one node down makes the leader refuse
#                                               acks=all writes: produce errors on demand)
#   kafka-cluster.sh leader DIR TOPIC PARTITION the node id leading that partition (-1: none)
#   kafka-cluster.sh wait-leaders DIR TOPIC     until every partition of TOPIC has a leader
#   kafka-cluster.sh wait-isr DIR TOPIC         until every replica of every partition of TOPIC
#                                               is in sync again (after a node's restart)
#
# Every node has three listeners: CLIENT (what the relay, kcat and consumers use), INTERNAL
# (replication between brokers, and this script's own checks) and CONTROLLER (KRaft). Cutting
# CLIENT therefore cuts a client from one broker without touching the cluster itself.
# OUTBOX_KAFKA_ADVERTISED_PORTS=p1,p2,p3 makes the nodes advertise those CLIENT ports instead of
# their own: a TCP proxy listening there (src/tools/harness/kafka_cluster.cpp) stands between
# every client and each broker. DIR/ports records the ports; a restart keeps them.
#
# Settings that differ from Kafka's defaults, and why:
#   default.replication.factor=3, min.insync.replicas=2, unclean.leader.election.enable=false:
#     what production runs; acks=all then really means two copies.
#   auto.create.topics.enable=false: tests create their topics, so a missing topic is an error.
#   broker.session.timeout.ms=6000, replica.lag.time.max.ms=10000: a killed node leaves the ISR
#     in seconds rather than half a minute, so the tests wait less (the same mechanism).
#   offsets/transaction-state topics with 4 partitions instead of 50: quicker first group.
#   group.initial.rebalance.delay.ms=0: a consumer group starts at once.
#   group.min.session.timeout.ms=1000 (default 6000): the tests' consumers use a 3 s session
#     timeout, so a member killed -9 leaves its group in seconds (the same rebalance).
# OUTBOX_KAFKA_HEAP (default 512m) caps each node's JVM heap.
# OUTBOX_KAFKA_JVM=quick (the tests set it: ENVIRONMENT in tests/CMakeLists.txt) runs the nodes
#   with the client compiler only and the serial collector: a test's cluster lives a minute or
#   two and carries little traffic, and its JVMs spent most of their CPU compiling and
#   collecting for throughput they never needed (measured on 2 cores: a start cost 30 s of CPU,
#   19 s quick; three idle nodes took 29 % of a core, 19 % quick). The benchmarks and the demo
#   keep the JVM's defaults (G1, both compilers), as users run brokers.
# OUTBOX_KAFKA_SECURITY=sasl_ssl (default plaintext) makes CLIENT a SASL_SSL listener: SCRAM-SHA-512
#   over TLS, with a certificate (CN and SAN localhost / 127.0.0.1) signed by a CA the script makes
#   with openssl under DIR/tls, and one SCRAM user, relay, whose random password is written to
#   DIR/sasl-password (mode 600) and put in the nodes' storage by `StorageTool format
#   --add-scram` before their first start. INTERNAL and CONTROLLER stay PLAINTEXT (the script's
#   own checks and tools use INTERNAL). DIR/env then also exports OUTBOX_KAFKA_SECURITY,
#   OUTBOX_KAFKA_CA, OUTBOX_KAFKA_SASL_MECHANISM (SCRAM-SHA-512, or PLAIN where the system's
#   librdkafka is older than 2.6.1, which Kafka 4.x refuses SCRAM to; the listener takes both),
#   OUTBOX_KAFKA_SASL_USERNAME and OUTBOX_KAFKA_SASL_PASSWORD_FILE, and
#   DIR/kcat.conf holds the client properties (`kcat -F DIR/kcat.conf -b $OUTBOX_KAFKA_BOOTSTRAP`).
#   DIR/security records the choice: a restart of DIR keeps it.
# Formatting a node's storage is a JVM start per node; the script formats three nodes once per
# cache (DIR of the cache/storage-template, one cluster id) and copies them into a new DIR.
set -euo pipefail
# The script's own kcat calls go to the INTERNAL listener, always PLAINTEXT: a client config a
# test exported for the CLIENT listener (KCAT_CONFIG, harness::KafkaCluster) is not for them.
unset KCAT_CONFIG

root=$(cd "$(dirname "$0")/.." && pwd)
pom=$root/scripts/kafka/pom.xml
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
cache=$root/.local/kafka-$version
nodes=3

die() {
  echo "kafka-cluster: $*" >&2
  exit 1
}

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}

fetch() {
  [[ -f $cache/complete ]] && return 0
  # Tests start clusters in parallel: one fetch at a time, the others wait for it and reuse it.
  mkdir -p "$root/.local"
  exec 9>"$root/.local/kafka-fetch.lock"
  flock 9
  if [[ -f $cache/complete ]]; then
    flock -u 9
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (install maven and OpenJDK 17)"
  (($(java_major) >= 17)) || die "Kafka $version needs Java 17 or newer; java -version says $(java_major)"
  local started=$SECONDS
  echo "==> fetching Apache Kafka $version with Maven into $cache" >&2
  rm -rf "$cache/lib"
  mkdir -p "$cache"
  if ! mvn -q -B -f "$pom" -Dmaven.repo.local="$root/.local/maven" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$cache/lib" \
    >"$cache/fetch.log" 2>&1; then
    cat "$cache/fetch.log" >&2
    die "mvn could not resolve org.apache.kafka:kafka_2.13:$version (log above)"
  fi
  touch "$cache/complete"
  flock -u 9
  echo "==> Apache Kafka $version fetched in $((SECONDS - started)) s" >&2
}

java_run() {
  # $1: log4j config; the rest: main class and arguments. The tools run for a second or two:
  # the client compiler and the serial collector start them quicker and with less CPU.
  local log4j=$1
  shift
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC $(class_archive_flag tools) -cp "$cache/lib/*" \
    -Dlog4j2.configurationFile="$log4j" "$@"
}

# Class-data sharing (the JDK's AppCDS): the classes a node or a tool loads, parsed and verified
# once into an archive under the cache, mapped by every later JVM instead of read from the jars
# again. The suite starts some fifty clusters and a hundred tool JVMs on two cores. Measured
# here, idle machine: a cluster's start 6.3-8.2 s of CPU instead of 9.6-11.1, a topic's creation
# 0.6-0.7 s instead of 1.3. The archives are made once per cache (class_archives); a JVM given
# one that does not fit (another JDK) says so in its log and reads the jars as before.
# The flag for a JVM of KIND (broker or tools): dump while class_archives trains, read after.
class_archive_flag() {
  local kind=$1
  if [[ -n ${cds_training:-} ]]; then
    echo "-XX:ArchiveClassesAtExit=$cache/cds/$kind-$BASHPID.jsa"
  elif [[ -s $cache/cds/$kind.jsa ]]; then
    echo "-XX:SharedArchiveFile=$cache/cds/$kind.jsa"
  fi
}

# Makes the archives once per cache (under a lock: tests start clusters side by side): a
# cluster of its own under the cache is started and given a topic, and the JVMs that exit
# cleanly dump the classes they loaded. About 15 s, once. A JVM killed before it dumped leaves
# no archive; without one, nodes and tools run as before.
class_archives() {
  [[ -f $cache/cds/complete || -n ${cds_training:-} ]] && return 0
  exec 7>"$root/.local/kafka-cds.lock"
  flock 7
  if [[ ! -f $cache/cds/complete ]]; then
    rm -rf "$cache/cds"
    mkdir -p "$cache/cds"
    local train=$cache/cds/training kind archive
    mkdir -p "$train"
    cds_training=1
    OUTBOX_KAFKA_SECURITY=plaintext OUTBOX_KAFKA_ADVERTISED_PORTS= start "$train" >/dev/null
    create_topic "$train" cds-training 4 >/dev/null
    # One node's archive is enough: node 2 stops cleanly (and dumps) while the other two keep
    # the quorum; stopping the last ones waits out their controlled shutdown, which measured
    # 30 s in a fresh clone, so they are killed.
    stop_nodes "$train" TERM 2
    stop_nodes "$train" KILL 1 3
    cds_training=
    for kind in broker tools; do
      for archive in "$cache/cds/$kind"-*.jsa; do
        [[ -s $archive ]] && mv "$archive" "$cache/cds/$kind.jsa" && break
      done
    done
    rm -rf "$train" "$cache/cds"/*-*.jsa
    touch "$cache/cds/complete"
  fi
  flock -u 7
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Nine ports (CLIENT, INTERNAL, CONTROLLER for each node) from a random block below the
# kernel's ephemeral range (32768+), so a client's outgoing port never takes one.
pick_ports() {
  local base i ok
  for _ in $(seq 1 50); do
    base=$((20000 + (RANDOM % 1200) * 10))
    ok=1
    for i in $(seq 0 8); do port_free $((base + i)) || ok=0; done
    if ((ok)); then
      echo "$base"
      return 0
    fi
  done
  die "no free block of ports found"
}

write_node_config() {
  local dir=$1 n=$2 client=$3 internal=$4 controller=$5 advertised=$6 voters=$7
  local security=${8:-plaintext} client_protocol=PLAINTEXT
  [[ $security == sasl_ssl ]] && client_protocol=SASL_SSL
  mkdir -p "$dir/node$n"
  cat >"$dir/node$n/server.properties" <<EOF
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
controller.listener.names=CONTROLLER
listeners=CLIENT://127.0.0.1:$client,INTERNAL://127.0.0.1:$internal,CONTROLLER://127.0.0.1:$controller
advertised.listeners=CLIENT://127.0.0.1:$advertised,INTERNAL://127.0.0.1:$internal
listener.security.protocol.map=CLIENT:$client_protocol,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=INTERNAL
log.dirs=$dir/node$n/data
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
unclean.leader.election.enable=false
auto.create.topics.enable=false
offsets.topic.replication.factor=3
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
broker.session.timeout.ms=6000
broker.heartbeat.interval.ms=1000
replica.lag.time.max.ms=10000
num.network.threads=2
num.io.threads=4
EOF
  if [[ $security == sasl_ssl ]]; then
    # The SCRAM credentials live in the cluster metadata (--add-scram at format); the login
    # module entry is what enables the mechanism on the listener. PLAIN (over the same TLS,
    # same user and password, its user list in the JAAS entry) is for clients whose librdkafka
    # is older than 2.6.1: those send a SCRAM client-final nonce that Kafka 4.x refuses
    # (librdkafka#4895), "invalid credentials" whatever the password. Debian bookworm's is 2.0.2.
    local store_password
    store_password=$(cat "$dir/tls/keystore-password")
    cat >>"$dir/node$n/server.properties" <<EOF
sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN
listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN
listener.name.client.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.client.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_relay="$(cat "$dir/sasl-password")";
listener.name.client.ssl.keystore.type=PKCS12
listener.name.client.ssl.keystore.location=$dir/tls/broker.p12
listener.name.client.ssl.keystore.password=$store_password
listener.name.client.ssl.key.password=$store_password
EOF
  fi
}

# The SASL mechanism this machine's clients (kcat, and the relay: both link the system's
# librdkafka) can use: SCRAM-SHA-512 from librdkafka 2.6.1 on, PLAIN before (see
# write_node_config). OUTBOX_KAFKA_SASL_MECHANISM overrides it.
client_sasl_mechanism() {
  if [[ -n ${OUTBOX_KAFKA_SASL_MECHANISM:-} ]]; then
    echo "$OUTBOX_KAFKA_SASL_MECHANISM"
    return
  fi
  local version
  version=$(kcat -V 2>/dev/null | sed -n 's/.*librdkafka \([0-9.]*\).*/\1/p' | head -1)
  if [[ -n $version && $(printf '%s\n2.6.1\n' "$version" | sort -V | head -1) == 2.6.1 ]]; then
    echo SCRAM-SHA-512
  else
    echo PLAIN
  fi
}

# DIR/tls: a CA (ca.pem, what clients trust) and one broker certificate for every node (all
# listen on 127.0.0.1), in a PKCS12 keystore with a random password. Made once per DIR.
make_tls() {
  local tls=$1/tls
  [[ -f $tls/broker.p12 ]] && return 0
  command -v openssl >/dev/null || die "openssl not found"
  mkdir -p "$tls"
  chmod 700 "$tls"
  openssl rand -hex 16 >"$tls/keystore-password"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=outbox-relay test CA" \
    -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>"$tls/openssl.log" ||
    die "openssl could not make the CA; see $tls/openssl.log"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
    -keyout "$tls/broker.key" -out "$tls/broker.csr" 2>>"$tls/openssl.log" ||
    die "openssl could not make the broker key; see $tls/openssl.log"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' \
    >"$tls/broker.ext"
  openssl x509 -req -in "$tls/broker.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
    -CAcreateserial -days 30 -extfile "$tls/broker.ext" -out "$tls/broker.pem" \
    2>>"$tls/openssl.log" || die "openssl could not sign the broker certificate; see $tls/openssl.log"
  openssl pkcs12 -export -name broker -inkey "$tls/broker.key" -in "$tls/broker.pem" \
    -certfile "$tls/ca.pem" -passout "file:$tls/keystore-password" -out "$tls/broker.p12" \
    2>>"$tls/openssl.log" || die "openssl could not write the keystore; see $tls/openssl.log"
  chmod 644 "$tls/ca.pem"
}

# DIR/ports: one line per node, "N CLIENT INTERNAL CONTROLLER ADVERTISED".
node_ports() {
  awk -v n="$2" '$1 == n' "$1/ports"
}

internal_bootstrap() {
  awk '{printf "%s127.0.0.1:%s", (NR > 1 ? "," : ""), $3}' "$1/ports"
}

client_bootstrap() {
  awk '{printf "%s127.0.0.1:%s", (NR > 1 ? "," : ""), $5}' "$1/ports"
}

start_node() {
  local dir=$1 n=$2
  local heap=${OUTBOX_KAFKA_HEAP:-512m} jvm
  # G1 with one GC thread of each kind: three JVMs share two cores with everything else.
  jvm=(-XX:+UseG1GC -XX:ParallelGCThreads=1 -XX:ConcGCThreads=1)
  [[ ${OUTBOX_KAFKA_JVM:-} == quick ]] &&
    jvm=(-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC)
  nohup java -Xms128m -Xmx"$heap" "${jvm[@]}" $(class_archive_flag broker) \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$root/scripts/kafka/log4j2-broker.yaml" \
    -Dkafka.logs.dir="$dir/node$n" \
    -cp "$cache/lib/*" kafka.Kafka "$dir/node$n/server.properties" \
    >>"$dir/node$n/server.log" 2>&1 </dev/null &
  echo $! >"$dir/node$n/pid"
  # Not a job of this shell: a node this same run stops (class_archives) is not reported.
  disown
}

node_pid_alive() {
  local pid
  pid=$(cat "$1/node$2/pid" 2>/dev/null) || return 1
  kill -0 "$pid" 2>/dev/null
}

# Waits until node N answers metadata on its INTERNAL listener and lists `want` brokers.
wait_node() {
  local dir=$1 n=$2 want=${3:-$nodes} internal
  internal=$(node_ports "$dir" "$n" | awk '{print $3}')
  for _ in $(seq 1 1200); do
    if ! node_pid_alive "$dir" "$n"; then
      tail -30 "$dir/node$n/server.log" >&2
      die "node $n exited during start-up; see $dir/node$n/server.log"
    fi
    if kcat -L -b "127.0.0.1:$internal" -m 2 -J 2>/dev/null |
      jq -e --argjson want "$want" '.brokers | length >= $want' >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  die "node $n did not answer within 120 s; see $dir/node$n/server.log"
}

# Sends SIGNAL to each node N... at once, then waits up to 30 s for each to be gone (SIGKILL
# after that): a node takes a second or two to die, and a cluster is stopped as one.
stop_nodes() {
  local dir=$1 signal=$2 n pid pids=()
  shift 2
  for n in "$@"; do
    pid=$(cat "$dir/node$n/pid" 2>/dev/null) || continue
    kill -"$signal" "$pid" 2>/dev/null && pids+=("$pid")
  done
  for pid in ${pids[@]+"${pids[@]}"}; do
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for n in "$@"; do rm -f "$dir/node$n/pid"; done
}

# Three formatted nodes under the cache, made once (under a lock: tests start clusters side by
# side): StorageTool format is a JVM start per node, and what it writes (meta.properties with
# the cluster id, the node id and a directory id; the bootstrap metadata checkpoint) names no
# port or path of DIR. Every cluster made from it has the same cluster id, which clusters that
# never talk to each other do not mind.
# With sasl_ssl, a template of its own: its metadata also holds the SCRAM user relay, with a
# random password kept in the template (scram-password) and copied into each DIR.
storage_template() {
  local security=${1:-plaintext} template=$cache/storage-template n scram=()
  [[ $security == sasl_ssl ]] && template=$cache/storage-template-sasl
  [[ -f $template/complete ]] && return 0
  exec 8>"$root/.local/kafka-template.lock"
  flock 8
  if [[ ! -f $template/complete ]]; then
    rm -rf "$template"
    mkdir -p "$template"
    # A Kafka Uuid: 16 random bytes, base64 URL-safe without padding, not starting with '-'
    # (what StorageTool random-uuid prints, without its JVM).
    local cluster_id=-
    while [[ $cluster_id == -* ]]; do
      cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
    done
    if [[ $security == sasl_ssl ]]; then
      (umask 077 && openssl rand -hex 16 >"$template/scram-password")
      scram=(--add-scram "SCRAM-SHA-512=[name=relay,password=$(cat "$template/scram-password")]")
    fi
    # Ports of no consequence: format binds none, and a node's own ports come from DIR.
    local voters
    voters=$(seq 1 $nodes | awk '{printf "%s%s@127.0.0.1:%s", (NR > 1 ? "," : ""), $1, 9200 + $1}')
    for n in $(seq 1 $nodes); do
      write_node_config "$template" "$n" $((9000 + n)) $((9100 + n)) $((9200 + n)) $((9000 + n)) \
        "$voters"
      java_run "$root/scripts/kafka/log4j2-tools.yaml" kafka.tools.StorageTool format \
        -t "$cluster_id" -c "$template/node$n/server.properties" ${scram[@]+"${scram[@]}"} \
        >"$template/node$n/format.log" 2>&1 &
    done
    wait
    for n in $(seq 1 $nodes); do
      [[ -f $template/node$n/data/meta.properties ]] ||
        die "formatting node $n failed; see $template/node$n/format.log"
    done
    echo "$cluster_id" >"$template/cluster-id"
    touch "$template/complete"
  fi
  flock -u 8
}

start() {
  local dir=$1 base n advertised voters started=$SECONDS
  fetch
  class_archives
  stop_nodes "$dir" TERM $(seq 1 $nodes)
  if [[ ! -f $dir/ports ]]; then
    base=$(pick_ports)
    IFS=, read -r -a advertised <<<"${OUTBOX_KAFKA_ADVERTISED_PORTS:-}"
    : >"$dir/ports"
    for n in $(seq 1 $nodes); do
      echo "$n $((base + n - 1)) $((base + 3 + n - 1)) $((base + 6 + n - 1)) \
${advertised[n - 1]:-$((base + n - 1))}" >>"$dir/ports"
    done
  fi
  voters=$(awk '{printf "%s%s@127.0.0.1:%s", (NR > 1 ? "," : ""), $1, $4}' "$dir/ports")
  # The choice sticks to DIR: a restart keeps its listeners and its formatted storage.
  local security=${OUTBOX_KAFKA_SECURITY:-}
  [[ -z $security && -f $dir/security ]] && security=$(cat "$dir/security")
  security=${security:-plaintext}
  [[ $security == plaintext || $security == sasl_ssl ]] ||
    die "OUTBOX_KAFKA_SECURITY must be plaintext or sasl_ssl, not $security"
  [[ -f $dir/security && $(cat "$dir/security") != "$security" ]] &&
    die "$dir was started with $(cat "$dir/security"); remove it to start it as $security"
  echo "$security" >"$dir/security"
  local template=$cache/storage-template
  if [[ $security == sasl_ssl ]]; then
    template=$cache/storage-template-sasl
    make_tls "$dir"
  fi
  storage_template "$security"
  [[ $security == sasl_ssl ]] && (umask 077 && cp "$template/scram-password" "$dir/sasl-password")
  for n in $(seq 1 $nodes); do
    read -r _ client internal controller advertised_port < <(node_ports "$dir" "$n")
    write_node_config "$dir" "$n" "$client" "$internal" "$controller" "$advertised_port" \
      "$voters" "$security"
    if [[ ! -f $dir/node$n/data/meta.properties ]]; then
      rm -rf "$dir/node$n/data"
      cp -r "$template/node$n/data" "$dir/node$n/data"
    fi
  done
  cp "$template/cluster-id" "$dir/cluster-id"
  local mechanism
  mechanism=$(client_sasl_mechanism)
  for n in $(seq 1 $nodes); do start_node "$dir" "$n"; done
  for n in $(seq 1 $nodes); do wait_node "$dir" "$n"; done
  {
    echo "export OUTBOX_KAFKA_BOOTSTRAP=$(client_bootstrap "$dir")"
    echo "export OUTBOX_KAFKA_INTERNAL_BOOTSTRAP=$(internal_bootstrap "$dir")"
    echo "export OUTBOX_KAFKA_VERSION=$version"
    echo "export OUTBOX_KAFKA_DIR=$dir"
    echo "export OUTBOX_KAFKA_SECURITY=$security"
    if [[ $security == sasl_ssl ]]; then
      echo "export OUTBOX_KAFKA_CA=$dir/tls/ca.pem"
      echo "export OUTBOX_KAFKA_SASL_MECHANISM=$mechanism"
      echo "export OUTBOX_KAFKA_SASL_USERNAME=relay"
      echo "export OUTBOX_KAFKA_SASL_PASSWORD_FILE=$dir/sasl-password"
    fi
  } >"$dir/env"
  if [[ $security == sasl_ssl ]]; then
    (
      umask 077
      cat >"$dir/kcat.conf" <<EOF
security.protocol=SASL_SSL
sasl.mechanisms=$mechanism
sasl.username=relay
sasl.password=$(cat "$dir/sasl-password")
ssl.ca.location=$dir/tls/ca.pem
EOF
    )
  fi
  echo "==> Kafka $version: $nodes nodes up in $((SECONDS - started)) s; bootstrap $(client_bootstrap "$dir")" >&2
  client_bootstrap "$dir"
  echo
}

# Until every live node's metadata for TOPIC shows each partition passing `condition` (jq,
# with $want = the node count); `what` names the wait in the error after `seconds`.
wait_partitions() {
  local dir=$1 topic=$2 condition=$3 what=$4 seconds=$5 n internal
  for _ in $(seq 1 $((seconds * 10))); do
    local all=1
    for n in $(seq 1 $nodes); do
      node_pid_alive "$dir" "$n" || continue
      internal=$(node_ports "$dir" "$n" | awk '{print $3}')
      kcat -L -b "127.0.0.1:$internal" -t "$topic" -m 2 -J 2>/dev/null |
        jq -e --arg t "$topic" --argjson want "$nodes" \
          "[.topics[] | select(.topic == \$t)] | length == 1 and (.[0].partitions | length > 0)
           and all(.[0].partitions[]; $condition) and (.[0].error == null)" \
          >/dev/null 2>&1 || all=0
    done
    ((all)) && return 0
    sleep 0.1
  done
  die "topic $topic: $what after $seconds s"
}

# Every partition of the topic has a leader.
wait_leaders() {
  wait_partitions "$1" "$2" '.leader >= 0' "not every partition has a leader" 60
}

# Every replica of every partition is in sync (a restarted node caught up).
wait_isr() {
  wait_partitions "$1" "$2" '.leader >= 0 and (.isrs | length) == $want' \
    "not every replica is in sync" 120
}

create_topic() {
  local dir=$1 topic=$2 partitions=$3 leader=""
  shift 3
  if [[ ${1:-} == --leader ]]; then
    leader=${2:?--leader N}
    shift 2
  fi
  local configs=() layout=(--partitions "$partitions" --replication-factor 3)
  for kv in "$@"; do configs+=(--config "$kv"); done
  if [[ -n $leader ]]; then
    # "L:a:b" per partition: the first replica is the preferred leader.
    local replicas=$leader p assignment=""
    for n in $(seq 1 $nodes); do ((n == leader)) || replicas+=":$n"; done
    for p in $(seq 1 "$partitions"); do assignment+="${assignment:+,}$replicas"; done
    layout=(--replica-assignment "$assignment")
  fi
  java_run "$root/scripts/kafka/log4j2-tools.yaml" org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$(internal_bootstrap "$dir")" --create --topic "$topic" \
    "${layout[@]}" "${configs[@]}" >/dev/null
  wait_leaders "$dir" "$topic"
}

alter_topic() {
  local dir=$1 topic=$2
  shift 2
  local kv joined=""
  for kv in "$@"; do joined+="${joined:+,}$kv"; done
  [[ -n $joined ]] || die "alter-topic: no KEY=VALUE given"
  java_run "$root/scripts/kafka/log4j2-tools.yaml" org.apache.kafka.tools.ConfigCommand \
    --bootstrap-server "$(internal_bootstrap "$dir")" --alter --entity-type topics \
    --entity-name "$topic" --add-config "$joined" >/dev/null
}

leader() {
  local dir=$1 topic=$2 partition=$3 n internal
  for n in $(seq 1 $nodes); do
    node_pid_alive "$dir" "$n" || continue
    internal=$(node_ports "$dir" "$n" | awk '{print $3}')
    if kcat -L -b "127.0.0.1:$internal" -t "$topic" -m 2 -J 2>/dev/null |
      jq -er --arg t "$topic" --argjson p "$partition" \
        '.topics[] | select(.topic == $t) | .partitions[] | select(.partition == $p) | .leader'; then
      return 0
    fi
  done
  echo -1
}

command=${1:?fetch|start|stop|kill|start-node|create-topic|alter-topic|leader|wait-leaders|wait-isr}
if [[ $command == fetch ]]; then
  fetch
  class_archives
  exit 0
fi
dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
fetch
case $command in
  start) start "$dir" ;;
  stop) stop_nodes "$dir" TERM $(seq 1 $nodes) ;;
  kill)
    if [[ -n ${3:-} ]]; then
      stop_nodes "$dir" KILL "$3"
    else
      stop_nodes "$dir" KILL $(seq 1 $nodes)
    fi
    ;;
  start-node)
    : "${3:?node}"
    for n in "${@:3}"; do
      node_pid_alive "$dir" "$n" && die "node $n is running"
      start_node "$dir" "$n"
    done
    for n in "${@:3}"; do wait_node "$dir" "$n"; done
    ;;
  create-topic) create_topic "$dir" "${3:?topic}" "${4:?partitions}" "${@:5}" ;;
  alter-topic) alter_topic "$dir" "${3:?topic}" "${@:4}" ;;
  leader) leader "$dir" "${3:?topic}" "${4:?partition}" ;;
  wait-leaders) wait_leaders "$dir" "${3:?topic}" ;;
  wait-isr) wait_isr "$dir" "${3:?topic}" ;;
  *) die "unknown command $command" ;;
esac
