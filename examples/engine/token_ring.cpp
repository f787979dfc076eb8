// The token ring of token_ring.hpp as a program: prints every hop's arrival time and the
// total, and checks the total against the closed form (exit status 1 if they differ).
//
//   token_ring [nodes [rounds [bytes [latency_s [bandwidth_bps [tokens [header_bits]]]]]]]
//   token_ring 8 2 1e6 1e-6 100e9    # 8 nodes, 2 rounds, 1 MB, 1 µs, 100 Gbit/s
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "examples/engine/token_ring.hpp"

using namespace dlsim;

int main(int argc, char** argv) {
  examples::RingConfig c;
  try {
    // Positional arguments, each optional; numbers may be written as 1e6.
    auto arg = [&](int i, double fallback) {
      if (argc <= i) return fallback;
      char* end = nullptr;
      const double value = std::strtod(argv[i], &end);
      if (end == argv[i] || *end != '\0')
        throw std::invalid_argument(std::string("not a number: ") + argv[i]);
      return value;
    };
    c.nodes = int(arg(1, c.nodes));
    c.rounds = int(arg(2, c.rounds));
    c.bytes = std::uint64_t(arg(3, double(c.bytes)));
    c.latency = sim::SimTime::from_seconds(arg(4, c.latency.seconds()));
    c.bandwidth = arg(5, c.bandwidth);
    c.tokens = int(arg(6, c.tokens));
    c.header = sim::Bits(arg(7, double(c.header)));

    std::printf(
        "%d nodes, %d rounds, %d token(s) of %llu B + %llu header bits, "
        "alpha %lld ps, beta %g bit/s\n",
        c.nodes, c.rounds, c.tokens, (unsigned long long)c.bytes, (unsigned long long)c.header,
        (long long)c.latency.ps, c.bandwidth);
    std::printf("%5s %5s %5s %9s %16s %14s\n", "hop", "token", "round", "link", "arrival [ps]",
                "arrival [us]");
    const auto hops = examples::token_ring(c);
    for (std::size_t i = 0; i < hops.size(); ++i) {
      const examples::Hop& h = hops[i];
      std::printf("%5zu %5d %5d %4d -> %-2d %16lld %14.6f\n", i + 1, h.token, h.round, h.from, h.to,
                  (long long)h.arrival.ps, h.arrival.seconds() * 1e6);
    }

    const sim::SimTime total = hops.back().arrival;
    const sim::SimTime hop = examples::hop_time(c);
    const long long expected = (long long)c.rounds * c.nodes * hop.ps;
    std::printf("total: %lld ps (%.6f us) for %d rounds of %d hops\n", (long long)total.ps,
                total.seconds() * 1e6, c.rounds, c.nodes);
    std::printf("closed form R*N*(alpha + ceil(K*(8S+H)/beta)) = %d*%d*%lld ps = %lld ps: %s\n",
                c.rounds, c.nodes, (long long)hop.ps, expected,
                total.ps == expected ? "match" : "MISMATCH");
    return total.ps == expected ? EXIT_SUCCESS : EXIT_FAILURE;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "token_ring: %s\nusage: %s [nodes [rounds [bytes [latency_s "
                 "[bandwidth_bps [tokens [header_bits]]]]]]]\n",
                 e.what(), argv[0]);
    return 2;
  }
}
