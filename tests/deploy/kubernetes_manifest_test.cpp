// The Kubernetes manifest: parsed with yaml-cpp and checked for the points operators rely on
// (native sidecar, probes on the metrics port, non-root read-only container without
// capabilities, password as a mounted file, config from the ConfigMap, grace period above the
// drain), and the relay config it carries passes the relay's own validation.
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <algorithm>

#include "relay_config_loading.hpp"
#include "test_env.hpp"

namespace {

const std::string kManifest =
    outbox::test::source_dir() + "/deploy/kubernetes/outbox-relay-sidecar.yaml";

YAML::Node document_of_kind(const std::vector<YAML::Node>& documents, const std::string& kind) {
  for (const YAML::Node& document : documents) {
    if (document["kind"].as<std::string>() == kind) return document;
  }
  FAIL("the manifest has no " << kind);
  return YAML::Node();
}

YAML::Node named(const YAML::Node& list, const std::string& name) {
  for (const YAML::Node& item : list) {
    if (item["name"].as<std::string>() == name) return item;
  }
  FAIL("nothing named " << name);
  return YAML::Node();
}

// The container port a probe's httpGet.port names (a number or a named port).
int probe_port(const YAML::Node& container, const YAML::Node& probe) {
  const YAML::Node port = probe["httpGet"]["port"];
  int number = 0;
  if (YAML::convert<int>::decode(port, number)) return number;
  return named(container["ports"], port.as<std::string>())["containerPort"].as<int>();
}

struct Manifest {
  std::vector<YAML::Node> documents = YAML::LoadAllFromFile(kManifest);
  YAML::Node pod = document_of_kind(documents, "Deployment")["spec"]["template"]["spec"];
  YAML::Node relay = named(pod["initContainers"], "outbox-relay");

  // Where the volume named `volume` is mounted in the relay container.
  std::string mount_path(const std::string& volume) const {
    return named(relay["volumeMounts"], volume)["mountPath"].as<std::string>();
  }
  // The volume mounted at the directory that holds `path`.
  YAML::Node volume_holding(const std::string& path) const {
    for (const YAML::Node& mount : relay["volumeMounts"]) {
      const std::string dir = mount["mountPath"].as<std::string>() + "/";
      if (path.rfind(dir, 0) == 0 && path.find('/', dir.size()) == std::string::npos) {
        return named(pod["volumes"], mount["name"].as<std::string>());
      }
    }
    FAIL("no volume is mounted where " << path << " is");
    return YAML::Node();
  }
};

}  // namespace

TEST_CASE("the relay is a native sidecar probed on its metrics port", "[kubernetes]") {
  const Manifest manifest;
  CHECK(manifest.relay["restartPolicy"].as<std::string>() == "Always");
  for (const auto& [probe, path] :
       std::vector<std::pair<std::string, std::string>>{{"startupProbe", "/healthz"},
                                                        {"livenessProbe", "/healthz"},
                                                        {"readinessProbe", "/readyz"}}) {
    INFO(probe);
    const YAML::Node node = manifest.relay[probe];
    REQUIRE(node.IsMap());
    CHECK(node["httpGet"]["path"].as<std::string>() == path);
    CHECK(probe_port(manifest.relay, node) == 9464);
  }
  // The app runs as an ordinary container beside it.
  CHECK(manifest.pod["containers"].size() >= 1);
}

TEST_CASE("the relay runs as non-root on a read-only root without capabilities", "[kubernetes]") {
  const Manifest manifest;
  const YAML::Node security = manifest.relay["securityContext"];
  CHECK(security["runAsNonRoot"].as<bool>());
  CHECK(security["readOnlyRootFilesystem"].as<bool>());
  CHECK_FALSE(security["allowPrivilegeEscalation"].as<bool>());
  const auto dropped = security["capabilities"]["drop"].as<std::vector<std::string>>();
  CHECK(std::find(dropped.begin(), dropped.end(), "ALL") != dropped.end());
  CHECK_FALSE(security["capabilities"]["add"].IsDefined());
  CHECK(manifest.pod["securityContext"]["runAsNonRoot"].as<bool>());
  CHECK(manifest.pod["securityContext"]["runAsUser"].as<int>() != 0);
}

TEST_CASE("the relay reads its config from the ConfigMap and its password from a Secret file",
          "[kubernetes]") {
  const Manifest manifest;
  const auto args = manifest.relay["args"].as<std::vector<std::string>>();
  REQUIRE(args.size() == 2);
  CHECK(args[0] == "--config");
  const YAML::Node config_volume = manifest.volume_holding(args[1]);
  const std::string config_map = config_volume["configMap"]["name"].as<std::string>();
  const YAML::Node map = document_of_kind(manifest.documents, "ConfigMap");
  REQUIRE(map["metadata"]["name"].as<std::string>() == config_map);
  const std::string relay_yaml =
      map["data"][args[1].substr(args[1].rfind('/') + 1)].as<std::string>();

  const YAML::Node mysql = YAML::Load(relay_yaml)["mysql"];
  CHECK_FALSE(mysql["password"].IsDefined());
  const std::string password_file = mysql["password_file"].as<std::string>();
  const YAML::Node secret_volume = manifest.volume_holding(password_file);
  const std::string secret_name = secret_volume["secret"]["secretName"].as<std::string>();
  const YAML::Node secret = document_of_kind(manifest.documents, "Secret");
  CHECK(secret["metadata"]["name"].as<std::string>() == secret_name);
  CHECK(secret["stringData"][password_file.substr(password_file.rfind('/') + 1)].IsDefined());
  // The server is remote: its certificate is checked against a CA from the same Secret.
  CHECK(mysql["tls"]["mode"].as<std::string>() == "verify_identity");
  const std::string ca_file = mysql["tls"]["ca_file"].as<std::string>();
  CHECK(manifest.volume_holding(ca_file)["secret"]["secretName"].as<std::string>() == secret_name);
  CHECK(secret["stringData"][ca_file.substr(ca_file.rfind('/') + 1)].IsDefined());
  CHECK(manifest.relay["env"].IsSequence());  // POD_NAME, for relay.instance_id
  for (const YAML::Node& variable : manifest.relay["env"]) {
    CHECK_FALSE(variable["value"].IsDefined());  // nothing secret (or not) inline
  }

  // The config passes the relay's validation, with a file where the Secret would be mounted,
  // and the grace period covers the drain it configures.
  outbox::test::TempDir dir;
  const std::string mounted = dir.write("mysql-password", "secret\n");
  std::string local_yaml = relay_yaml;
  local_yaml.replace(local_yaml.find(password_file), password_file.size(), mounted);
  const std::string mounted_ca = dir.write("mysql-ca.pem", "-----BEGIN CERTIFICATE-----\n");
  local_yaml.replace(local_yaml.find(ca_file), ca_file.size(), mounted_ca);
  const auto loaded =
      outbox::test::load_relay_config_text(local_yaml, {{"POD_NAME", "orders-service-abc12"}});
  INFO(loaded.errors);
  REQUIRE(loaded.config);
  CHECK(loaded.config->relay.instance_id == "orders-service-abc12");
  // The kubelet probes the Pod's IP: the endpoint must listen there, on the probed port.
  CHECK(loaded.config->metrics.listen ==
        "0.0.0.0:" + std::to_string(probe_port(manifest.relay, manifest.relay["livenessProbe"])));
  const auto grace = std::chrono::seconds(manifest.pod["terminationGracePeriodSeconds"].as<int>());
  CHECK(grace > loaded.config->relay.drain_timeout + loaded.config->mysql.read_timeout);
}
