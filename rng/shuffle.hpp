// The shuffle every random permutation of dlsim comes from (docs/design.md §11 rule 6):
// Fisher–Yates in Durstenfeld's form (Knuth TAOCP 2, §3.4.2, Algorithm P): for
// i = n − 1 down to 1, j = below(rng, i + 1) (rng/distributions.hpp), swap a[i] and a[j].
// Unlike std::shuffle, whose draws each standard library chooses, every step is specified,
// so a permutation is a function of the generator's raw output only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "rng/distributions.hpp"

namespace dlsim::rng {

template <std::random_access_iterator It, class Engine>
void shuffle(It first, It last, Engine& rng) {
  for (std::int64_t i = std::int64_t(last - first) - 1; i > 0; --i) {
    std::iter_swap(first + i, first + below(rng, i + 1));
  }
}

}  // namespace dlsim::rng
