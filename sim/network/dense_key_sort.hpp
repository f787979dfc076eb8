// Sorting by a key no two items share, when the keys are dense: each item's index goes to
// slot key − min of a table, and reading the table in order gives the sorted order (a few
// linear passes, against n log n comparisons). The fair-sharing solver sorts the millions of
// transfers that end at one instant of a synchronous round this way: by id, then by start
// order, both unique and nearly contiguous.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace dlsim::sim {

/// Reorders `items` by key_of(item) (an unsigned integer, distinct for every item) and
/// returns true, when the keys span at most 4 times as many values as there are items;
/// otherwise leaves `items` as they are and returns false (sort them another way).
/// `slots` is scratch whose capacity is kept between calls; no copy of the items is made
/// (the order found is applied in place, cycle by cycle).
template <class T, class KeyOf>
bool dense_key_sort(std::vector<T>& items, KeyOf key_of, std::vector<std::uint32_t>& slots) {
  if (items.size() < 2) return true;
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
  for (const T& item : items) {
    const std::uint64_t key = key_of(item);
    lo = std::min(lo, key);
    hi = std::max(hi, key);
  }
  if (hi - lo >= 4 * std::uint64_t(items.size())) return false;
  constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  slots.assign(hi - lo + 1, kEmpty);
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::uint32_t& slot = slots[key_of(items[i]) - lo];
    if (slot != kEmpty) throw std::logic_error("dense_key_sort: two items share a key");
    slot = std::uint32_t(i);
  }
  // Compact: from[j] is the index of the item that belongs at position j.
  std::size_t n = 0;
  for (std::uint32_t slot : slots)
    if (slot != kEmpty) slots[n++] = slot;
  // Apply the permutation in place; a position is marked done by setting from[j] = j.
  for (std::size_t start = 0; start < n; ++start) {
    if (slots[start] == start) continue;
    T held = std::move(items[start]);
    std::size_t j = start;
    while (slots[j] != start) {
      const std::size_t next = slots[j];
      items[j] = std::move(items[next]);
      slots[j] = std::uint32_t(j);
      j = next;
    }
    items[j] = std::move(held);
    slots[j] = std::uint32_t(j);
  }
  return true;
}

}  // namespace dlsim::sim
