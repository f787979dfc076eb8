// Compressor `terngrad` (Wen, Xu, Yan, Wu, Wang, Chen, Li, "TernGrad: Ternary Gradients
// to Reduce Communication in Distributed Deep Learning", NeurIPS 2017; docs/algorithms.md
// §1): the stochastic quantizer with s = 1 and θ = min(‖v‖∞, 2.5·std(v)).
#include "models/compress/quantizers.hpp"
#include "models/compress/registry.hpp"

namespace dlsim::models {
namespace terngrad_compressor {

const CompressorRegistration registered{{
    .name = "terngrad",
    .doc = "TernGrad (Wen et al. 2017): clip to 2.5 std, theta = ||v||_inf, stochastic "
           "{-1, 0, 1}*theta: 32 + 2d bits.",
    .bits = "32 + 2d",
    .read =
        [](const nlohmann::json&) {
          return std::make_shared<QuantizerKindOptions>(terngrad_options());
        },
}};

}  // namespace terngrad_compressor
}  // namespace dlsim::models
