// The keys of the `network` section (docs/design.md §4, §7): latency, bandwidth, port
// rates, per-node and per-link overrides, lost messages, node failures, scheduled
// changes and outages. Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object network_section() {
  const auto bandwidth_default = [](const json& root) {
    json b = lookup(root, {"network", "bandwidth"});
    return b.is_null() ? json("10Gbps") : b;
  };
  Key egress = defaulted("egress", rate().gt(0), "10Gbps", "Egress port rate of every node.");
  Key ingress = defaulted("ingress", rate().gt(0), "10Gbps", "Ingress port rate of every node.");
  for (Key* k : {&egress, &ingress}) {
    k->dynamic = bandwidth_default;
    k->default_doc = "the value of network.bandwidth";
  }
  const Object node = plain({
      required("id", integer().ge(0),
               "Node id: a worker 0..workers-1, or workers for the parameter server."),
      optional("egress", rate().gt(0), "Egress port rate of this node."),
      optional("ingress", rate().gt(0), "Ingress port rate of this node."),
  });
  const Object link = plain({
      required("from", integer().ge(0), "Sending node id."),
      required("to", integer().ge(0), "Receiving node id."),
      optional("latency", time().ge(0), "Latency of this link."),
      optional("bandwidth", rate().gt(0), "Bandwidth of this link."),
      optional("drop_probability", number().ge(0).lt(1),
               "Probability that a transmission on this link is lost (overrides "
               "network.faults.drop_probability)."),
  });
  const Object node_failure = plain({
      required("node", integer().ge(0), "The worker that fails."),
      required("at", time().ge(0),
               "Simulated time of the failure: the worker stops at its first iteration "
               "boundary at or after it."),
  });
  const Object faults = plain({
      defaulted("drop_probability", number().ge(0).lt(1), 0,
                "Probability that a transmission is lost; the sender sends it again after "
                "retransmit_timeout, and it arrives once. Each attempt counts in bytes_wire."),
      optional("retransmit_timeout", time().gt(0),
               "How long a sender waits before resending a lost message (default: 3 round "
               "trips, 6 x network.latency, at least 1us)."),
      optional("fail", array_of(object(node_failure)),
               "Node failures (decentralized algorithms on static undirected graphs): each "
               "worker stops at its first iteration boundary at or after `at`; its neighbours "
               "notice after fail_timeout and give its mixing weight to themselves."),
      optional("fail_timeout", time().gt(0),
               "How long a neighbour waits for a failed node's message before it drops the "
               "node: counted from when it began waiting for the round's messages, or from "
               "the failure if later; live nodes are never suspected (default: 3 round trips, "
               "6 x network.latency, at least 1us). Only with fail."),
  });
  const Object change = plain({
      required("at", time().ge(0), "Simulated time from which the change holds."),
      optional("from", integer().ge(0), "Link change: sending node id (with to)."),
      optional("to", integer().ge(0), "Link change: receiving node id (with from)."),
      optional("node", integer().ge(0), "Node change: the node whose ports change."),
      optional("latency", time().ge(0), "New latency of the link."),
      optional("bandwidth", rate().gt(0), "New bandwidth of the link."),
      optional("egress", rate().gt(0), "New egress port rate of the node."),
      optional("ingress", rate().gt(0), "New ingress port rate of the node."),
  });
  const Object outage = plain({
      required("from", integer().ge(0), "Sending node id."),
      required("to", integer().ge(0), "Receiving node id."),
      required("start", time().ge(0), "Start of the outage."),
      required("end", time().gt(0), "End of the outage (messages wait until then)."),
  });
  return plain({
      defaulted("latency", time().ge(0), "10us", "Latency of every link."),
      defaulted("bandwidth", rate().gt(0), "10Gbps", "Bandwidth of every link."),
      defaulted("sharing", one_of({"fair", "fifo"}), "fair",
                "How concurrent transfers share ports and links: max-min fair or FIFO."),
      defaulted("model", one_of({"cm02", "lv08"}), "cm02",
                "How latency, rate and share of a flow follow from the link and port "
                "parameters: cm02 (max-min fair, latency alpha) or lv08 (SimGrid's default "
                "model: latency 13.01 alpha, rate 0.97 times a max-min share weighted by "
                "1/(alpha + 20537 B * sum of 1/bandwidth over egress, link and ingress), "
                "bounded by the TCP window 4194304 B / (2 alpha); needs sharing fair)."),
      defaulted("header", size().ge(0), "0B", "Header size added to every message."),
      defaulted("nic", object(plain({egress, ingress})), json::object(),
                "Port rates of every node (full duplex)."),
      defaulted("nodes", array_of(object(node)), json::array(), "Per-node NIC overrides."),
      defaulted("links", array_of(object(link)), json::array(), "Per-link overrides (directed)."),
      defaulted("faults", object(faults), json::object(),
                "Lost messages and their retransmission (sim/network/faults.hpp)."),
      defaulted("schedule", array_of(object(change)), json::array(),
                "Changes of link or node parameters at given simulated times; each takes effect "
                "at the first network event at or after its time."),
      defaulted("down", array_of(object(outage)), json::array(),
                "Link outages: the link delivers nothing in [start, end), messages wait."),
  });
}

}  // namespace dlsim::sim::spec::sections
