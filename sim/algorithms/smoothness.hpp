// Estimates of the constants Katyusha (alpc-svrg) needs, from the objective and data:
//   L = λmax(∇²f(0)) by power iteration on Hessian-vector products computed as gradient
//       differences on the whole training set, Hv ≈ (∇f(εv) − ∇f(0))/ε;
//       exact for least squares (∇²f = AᵀA/N + λ2 I, constant), and a global bound for
//       logistic regression, whose Hessian (1/N) Σ σ'(a_iᵀw) a_i a_iᵀ + λ2 I is largest at
//       w = 0 (σ' ≤ 1/4 with equality at 0), i.e. λmax(AᵀA/N)/4 + λ2.
//   σ = λ2 (model.l2), the strong convexity the regularizer guarantees.
#pragma once

#include "models/data/dataset.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::sim {

/// λmax of the objective's Hessian at w = 0 on `data` (power iteration from the all-ones
/// vector, at most `iterations` steps, stopping when the estimate changes by < 1e-9
/// relative). Deterministic.
double estimate_smoothness(const models::Objective& objective, const models::Dataset& data,
                           int iterations = 200);

}  // namespace dlsim::sim
