// Visiting items in the order of a key no two of them share, when the keys are dense:
// each item's value goes to slot key − min of a table, and reading the table in order
// visits them sorted (two linear passes and no move of the items, against n log n
// comparisons). The fair-sharing solver orders the millions of transfers that end at one
// instant of a synchronous round this way: by id, then by start order, both unique and
// nearly contiguous.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dlsim::sim {

/// Calls visit(key_of(item), value_of(item)) for every item in increasing key order and
/// returns true, when the keys (unsigned integers, distinct for every item) span at most
/// 4 times as many values as there are items; otherwise visits nothing and returns false
/// (sort them another way). value_of gives a 32-bit value other than 2^32 − 1. `slots` is
/// scratch whose capacity is kept between calls.
template <class T, class KeyOf, class ValueOf, class Visit>
bool for_each_by_dense_key(const std::vector<T>& items, KeyOf key_of, ValueOf value_of,
                           std::vector<std::uint32_t>& slots, Visit visit) {
  if (items.empty()) return true;
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
  for (const T& item : items) {
    const std::uint64_t key = key_of(item);
    lo = std::min(lo, key);
    hi = std::max(hi, key);
  }
  if (hi - lo >= 4 * std::uint64_t(items.size())) return false;
  constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  slots.assign(hi - lo + 1, kEmpty);
  for (const T& item : items) {
    std::uint32_t& slot = slots[key_of(item) - lo];
    const std::uint32_t value = value_of(item);
    if (slot != kEmpty) throw std::logic_error("for_each_by_dense_key: two items share a key");
    if (value == kEmpty) throw std::logic_error("for_each_by_dense_key: value 2^32 - 1");
    slot = value;
  }
  for (std::size_t j = 0; j < slots.size(); ++j)
    if (slots[j] != kEmpty) visit(lo + j, slots[j]);
  return true;
}

}  // namespace dlsim::sim
