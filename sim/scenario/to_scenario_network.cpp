// to_scenario, section `network`: the typed NetworkSpec (default retransmit and fail
// timeouts of three round trips), node and link ids in range and unique, scheduled
// changes in time order, outages that end after they start.
#include <algorithm>
#include <map>
#include <utility>

#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using messages::index_path;
using nlohmann::json;

namespace {

// Node ids run over the workers, plus the parameter server (id = workers) if any.
void check_node_id(const Scenario& s, std::int64_t id, const std::string& path) {
  const bool has_server = !s.decentralized() && s.algorithm.collective == "parameter-server";
  const std::int64_t last = has_server ? s.workers : s.workers - 1;
  if (id >= 0 && id <= last) return;
  std::string what =
      "must be a node id in [0, " + std::to_string(last) + "], got " + std::to_string(id);
  if (id == s.workers)
    what += " (the parameter server exists only with collective parameter-server)";
  throw InputError(path, what);
}

// network.schedule and network.down (sim/network/faults.hpp): each change names either a
// link (from and to, with latency/bandwidth) or a node (with egress/ingress); entries are
// in time order; an outage ends after it starts.
void check_network_faults(const Scenario& s) {
  const auto& schedule = s.network.schedule;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const std::string path = index_path("network.schedule", i);
    const NetworkChangeSpec& c = schedule[i];
    if (i > 0 && c.at < schedule[i - 1].at)
      throw InputError(path + ".at", "entries must be in time order (earlier than the one before)");
    if (c.node) {
      if (c.from || c.to)
        throw InputError(path, "names both a node and a link: give either node or from and to");
      check_node_id(s, *c.node, path + ".node");
      if (c.latency || c.bandwidth)
        throw InputError(path, "a node change sets egress or ingress, not latency or bandwidth");
      if (!c.egress && !c.ingress) throw InputError(path, "a node change needs egress or ingress");
      continue;
    }
    if (!c.from || !c.to) throw InputError(path, "needs either node, or from and to (a link)");
    check_node_id(s, *c.from, path + ".from");
    check_node_id(s, *c.to, path + ".to");
    if (*c.from == *c.to) throw InputError(path + ".to", "must differ from \"from\"");
    if (c.egress || c.ingress)
      throw InputError(path, "a link change sets latency or bandwidth, not egress or ingress");
    if (!c.latency && !c.bandwidth)
      throw InputError(path, "a link change needs latency or bandwidth");
  }
  for (std::size_t i = 0; i < s.network.down.size(); ++i) {
    const std::string path = index_path("network.down", i);
    const LinkOutageSpec& o = s.network.down[i];
    check_node_id(s, o.from, path + ".from");
    check_node_id(s, o.to, path + ".to");
    if (o.from == o.to) throw InputError(path + ".to", "must differ from \"from\"");
    if (!(o.start < o.end)) throw InputError(path + ".end", "must be later than start");
  }
}

}  // namespace

void read_network(const json& j, NetworkSpec& n) {
  n.latency = parse_time(j.at("latency"));
  n.bandwidth = parse_rate(j.at("bandwidth"));
  n.sharing = j.at("sharing").get<std::string>();
  n.model = j.at("model").get<std::string>();
  n.header = to_bits(j.at("header"));
  n.nic_egress = parse_rate(j.at("nic").at("egress"));
  n.nic_ingress = parse_rate(j.at("nic").at("ingress"));
  for (const json& node : j.at("nodes")) {
    NodeNicSpec s;
    s.id = node.at("id").get<std::int64_t>();
    if (node.contains("egress")) s.egress = parse_rate(node.at("egress"));
    if (node.contains("ingress")) s.ingress = parse_rate(node.at("ingress"));
    n.nodes.push_back(s);
  }
  for (const json& link : j.at("links")) {
    LinkSpec s;
    s.from = link.at("from").get<std::int64_t>();
    s.to = link.at("to").get<std::int64_t>();
    if (link.contains("latency")) s.latency = parse_time(link.at("latency"));
    if (link.contains("bandwidth")) s.bandwidth = parse_rate(link.at("bandwidth"));
    if (link.contains("drop_probability"))
      s.drop_probability = link.at("drop_probability").get<double>();
    n.links.push_back(s);
  }
  const json& faults = j.at("faults");
  n.drop_probability = faults.at("drop_probability").get<double>();
  n.retransmit_timeout =
      faults.contains("retransmit_timeout")
          ? parse_time(faults.at("retransmit_timeout"))
          : SimTime::from_ps(std::clamp(n.latency.ps, std::int64_t(0), SimTime::max().ps / 6) * 6);
  n.retransmit_timeout =
      std::max(n.retransmit_timeout, SimTime::from_ps(SimTime::kPerSecond / 1'000'000));
  for (const json& entry : j.at("schedule")) {
    NetworkChangeSpec c;
    c.at = parse_time(entry.at("at"));
    if (entry.contains("from")) c.from = entry.at("from").get<std::int64_t>();
    if (entry.contains("to")) c.to = entry.at("to").get<std::int64_t>();
    if (entry.contains("node")) c.node = entry.at("node").get<std::int64_t>();
    if (entry.contains("latency")) c.latency = parse_time(entry.at("latency"));
    if (entry.contains("bandwidth")) c.bandwidth = parse_rate(entry.at("bandwidth"));
    if (entry.contains("egress")) c.egress = parse_rate(entry.at("egress"));
    if (entry.contains("ingress")) c.ingress = parse_rate(entry.at("ingress"));
    n.schedule.push_back(c);
  }
  const SimTime three_round_trips = std::max(
      SimTime::from_ps(std::clamp(n.latency.ps, std::int64_t(0), SimTime::max().ps / 6) * 6),
      SimTime::from_ps(SimTime::kPerSecond / 1'000'000));
  n.fail_timeout =
      faults.contains("fail_timeout") ? parse_time(faults.at("fail_timeout")) : three_round_trips;
  if (faults.contains("fail")) {
    for (const json& entry : faults.at("fail"))
      n.fail.push_back({entry.at("node").get<std::int64_t>(), parse_time(entry.at("at"))});
  }
  for (const json& entry : j.at("down")) {
    LinkOutageSpec o;
    o.from = entry.at("from").get<std::int64_t>();
    o.to = entry.at("to").get<std::int64_t>();
    o.start = parse_time(entry.at("start"));
    o.end = parse_time(entry.at("end"));
    n.down.push_back(o);
  }
}

void check_network(const Scenario& s) {
  if (s.network.model == "lv08" && s.network.sharing != "fair")
    throw InputError("network.model",
                     "lv08 shares bandwidth by weighted max-min: it needs network.sharing fair");
  std::map<std::int64_t, std::size_t> node_index;
  for (std::size_t i = 0; i < s.network.nodes.size(); ++i) {
    const std::string path = index_path("network.nodes", i) + ".id";
    const std::int64_t id = s.network.nodes[i].id;
    check_node_id(s, id, path);
    if (auto [it, fresh] = node_index.emplace(id, i); !fresh) {
      throw InputError(path, "duplicate node id " + std::to_string(id) + " (also in " +
                                 index_path("network.nodes", it->second) + ")");
    }
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> link_index;
  for (std::size_t i = 0; i < s.network.links.size(); ++i) {
    const std::string path = index_path("network.links", i);
    const LinkSpec& link = s.network.links[i];
    check_node_id(s, link.from, path + ".from");
    check_node_id(s, link.to, path + ".to");
    if (link.from == link.to) {
      throw InputError(path + ".to", "must differ from \"from\" (" + std::to_string(link.from) +
                                         "): a link joins two nodes");
    }
    if (auto [it, fresh] = link_index.emplace(std::pair{link.from, link.to}, i); !fresh) {
      throw InputError(path, "duplicate link " + std::to_string(link.from) + " -> " +
                                 std::to_string(link.to) + " (also in " +
                                 index_path("network.links", it->second) + ")");
    }
  }
  check_network_faults(s);
}

}  // namespace dlsim::sim::scenario_sections
