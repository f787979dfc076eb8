#include "sim/collectives/collective.hpp"

namespace dlsim::sim {

Payload encode_in(WorkerMath& math, const models::Vector& v, models::Index dimension,
                  RoundFormat format) {
  return format.fp32 ? math.encode_fp32(v, dimension) : math.encode(v, dimension, format.stream);
}

void decode_in(WorkerMath& math, const Message& m, RoundFormat format, models::Vector& out) {
  if (format.fp32)
    math.decode_fp32(m, out);
  else
    math.decode(m, out);
}

Task<void> Endpoint::mean(const models::Vector& v, RoundFormat format, models::Vector& out) {
  contribute(v, format);
  co_await exchange();
  result(out);
}

}  // namespace dlsim::sim
