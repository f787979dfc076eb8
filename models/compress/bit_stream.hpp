// Bit-level writer and reader for compressed messages: fixed-width fields packed
// LSB-first into little-endian 64-bit words (field k of width w occupies stream bits
// [p, p + w) with its least significant bit first), and Elias-omega codes of positive
// integers (P. Elias, "Universal codeword sets and representations of the integers",
// IEEE Trans. Inf. Theory 21(2), 1975).
//
// Elias-omega here: ω(1) = "0"; for n > 1 the groups are the binary forms of
// n, ⌊log2 n⌋, ⌊log2 ⌊log2 n⌋⌋, ... (down to a group of length 2), written smallest
// first, then a terminating 0. Each group is its leading 1 bit followed by its other
// L−1 bits as one field (LSB-first), so the decoder reads: n = 1; while (bit == 1)
// n = 2^n + field(n). Code lengths are exactly Elias-omega's.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "models/cpu/default_init_allocator.hpp"

namespace dlsim::models {

static_assert(std::endian::native == std::endian::little,
              "bit_stream.hpp stores 64-bit words as little-endian bytes");

/// Number of bits of n's binary form (bit_width(0) = 0).
constexpr int bit_width_of(std::uint64_t n) {
  return int(std::bit_width(n));
}

/// ⌈log2 n⌉ for n ≥ 1 (0 for n = 1): the width of an index into n positions.
constexpr int ceil_log2(std::uint64_t n) {
  return n <= 1 ? 0 : int(std::bit_width(n - 1));
}

/// Length in bits of the Elias-omega code of n ≥ 1.
constexpr int elias_omega_bits(std::uint64_t n) {
  int bits = 1;
  while (n > 1) {
    const int width = bit_width_of(n);
    bits += width;
    n = std::uint64_t(width - 1);
  }
  return bits;
}

class BitWriter {
 public:
  /// `expected_bits` only reserves memory.
  explicit BitWriter(std::uint64_t expected_bits = 0) { words_.reserve(expected_bits / 64 + 2); }

  /// Empties the stream for a new message, keeping the memory (a writer kept between
  /// messages allocates nothing once it has grown).
  void reset(std::uint64_t expected_bits = 0) {
    words_.clear();
    words_.reserve(expected_bits / 64 + 2);
    acc_ = 0;
    used_ = 0;
    bits_ = 0;
  }

  /// Appends the low `width` bits of value (0 ≤ width ≤ 64; higher bits must be zero).
  void put(std::uint64_t value, int width) {
    if (width == 0) return;
    acc_ |= value << used_;
    const int total = used_ + width;
    if (total >= 64) {
      words_.push_back(acc_);
      acc_ = used_ == 0 ? 0 : value >> (64 - used_);
      used_ = total - 64;
    } else {
      used_ = total;
    }
    bits_ += std::uint64_t(width);
  }
  void put_bit(bool bit) { put(bit ? 1u : 0u, 1); }

  /// Appends the Elias-omega code of n ≥ 1.
  void put_elias_omega(std::uint64_t n) {
    if (n == 0) throw std::invalid_argument("Elias-omega codes positive integers only");
    std::uint64_t groups[8];  // n, then bit lengths minus one (at most 6 groups for 64 bits)
    int count = 0;
    while (n > 1) {
      groups[count++] = n;
      n = std::uint64_t(bit_width_of(n) - 1);
    }
    for (int g = count - 1; g >= 0; --g) {
      const int width = bit_width_of(groups[g]);
      put(1, 1);
      put(groups[g] & ((std::uint64_t(1) << (width - 1)) - 1), width - 1);
    }
    put(0, 1);
  }

  /// Appends `count` fields of `width` bits each, at most Field's 32 or 64 (the hot loop
  /// of fixed-width codes).
  template <class Field>
  requires(std::is_same_v<Field, std::uint32_t> ||
           std::is_same_v<Field, std::uint64_t>) void put_fields(const Field* values,
                                                                 std::size_t count, int width) {
    if (width == 0 || count == 0) return;
    std::size_t w = words_.size();
    words_.resize(w + (std::uint64_t(count) * std::uint64_t(width) + std::uint64_t(used_)) / 64 +
                  1);
    std::uint64_t* out = words_.data();
    std::uint64_t acc = acc_;
    int used = used_;
    std::size_t i = 0;
    if (used == 0 && 64 % width == 0) {  // whole words of 64/width fields: no carries
      const int per_word = 64 / width;
      for (; i + std::size_t(per_word) <= count; i += std::size_t(per_word)) {
        std::uint64_t word = 0;
        for (int j = 0; j < per_word; ++j)
          word |= std::uint64_t(values[i + std::size_t(j)]) << (j * width);
        out[w++] = word;
      }
    }
    for (; i < count; ++i) {
      const std::uint64_t v = values[i];
      acc |= v << used;
      used += width;
      if (used >= 64) {
        out[w++] = acc;
        used -= 64;
        acc = used == 0 ? 0 : v >> (width - used);
      }
    }
    words_.resize(w);
    acc_ = acc;
    used_ = used;
    bits_ += std::uint64_t(count) * std::uint64_t(width);
  }

  /// Appends the first `bits` bits of `bytes` (a stream as finish() packs it: at least
  /// ceil(bits / 8) bytes). Whole 64-bit words at a time, copied as they are when this
  /// stream ends on a word (a per-tensor message's slices of fixed-width codes).
  void put_bytes(const std::byte* bytes, std::uint64_t bits) {
    const std::size_t words = std::size_t(bits / 64);
    const std::size_t w = words_.size();
    if (used_ == 0) {
      words_.resize(w + words);
      if (words > 0) std::memcpy(words_.data() + w, bytes, words * 8);
      bits_ += std::uint64_t(words) * 64;
    } else {
      for (std::size_t i = 0; i < words; ++i) {
        std::uint64_t word;
        std::memcpy(&word, bytes + 8 * i, 8);
        put(word, 64);
      }
    }
    const int rest = int(bits % 64);
    if (rest == 0) return;
    std::uint64_t tail = 0;
    std::memcpy(&tail, bytes + 8 * words, std::size_t(rest + 7) / 8);
    put(tail & ((std::uint64_t(1) << rest) - 1), rest);
  }

  std::uint64_t bits() const { return bits_; }

  /// The packed bytes, exactly ceil(bits / 8) of them.
  std::vector<std::byte> finish() const {
    std::vector<std::byte> bytes;
    finish_into(bytes);
    return bytes;
  }
  /// The same into `bytes`, resized to ceil(bits / 8) (its capacity is reused).
  void finish_into(std::vector<std::byte>& bytes) const {
    bytes.resize((bits_ + 7) / 8);
    if (bytes.empty()) return;  // no bytes: memcpy must not be given their null pointer
    const std::size_t full = words_.size() * 8;
    std::memcpy(bytes.data(), words_.data(), std::min(full, bytes.size()));
    if (bytes.size() > full) std::memcpy(bytes.data() + full, &acc_, bytes.size() - full);
  }

 private:
  // Every word is written before it is read: resize() need not zero them first.
  std::vector<std::uint64_t, DefaultInitAllocator<std::uint64_t>> words_;
  std::uint64_t acc_ = 0;
  int used_ = 0;  // bits of acc_ in use
  std::uint64_t bits_ = 0;
};

class BitReader {
 public:
  BitReader(const std::vector<std::byte>& bytes, std::uint64_t bits)
      : data_(bytes.data()), size_(bytes.size()), bits_(bits) {
    if (size_ != (bits + 7) / 8) throw std::invalid_argument("bit stream: size mismatch");
  }

  /// Reads a field of `width` bits (0 ≤ width ≤ 64). Throws past the end.
  std::uint64_t get(int width) {
    if (width == 0) return 0;
    if (pos_ + std::uint64_t(width) > bits_)
      throw std::invalid_argument("bit stream: read past the end of the message");
    if (width > 56) {
      const std::uint64_t low = get(32);
      return low | (get(width - 32) << 32);
    }
    const std::uint64_t value = (load(pos_ / 8) >> (pos_ % 8)) & mask(width);
    pos_ += std::uint64_t(width);
    return value;
  }
  bool get_bit() { return get(1) != 0; }

  std::uint64_t get_elias_omega() {
    std::uint64_t n = 1;
    while (get_bit()) {
      if (n > 63) throw std::invalid_argument("bit stream: Elias-omega code too long");
      n = (std::uint64_t(1) << n) | get(int(n));
    }
    return n;
  }

  /// Moves past `bits` bits without reading them. Throws past the end.
  void skip(std::uint64_t bits) {
    if (bits > bits_ - pos_) throw std::invalid_argument("bit stream: skip past the end");
    pos_ += bits;
  }

  /// Reads the next `bits` bits into `bytes` as finish() would pack them alone (resized
  /// to ceil(bits / 8), the last byte's unused bits zero). Copied as they are when the
  /// reader is on a byte boundary; else field by field. Throws past the end.
  void get_bytes(std::uint64_t bits, std::vector<std::byte>& bytes) {
    if (bits > bits_ - pos_)
      throw std::invalid_argument("bit stream: read past the end of the message");
    bytes.resize(std::size_t((bits + 7) / 8));
    if (pos_ % 8 == 0) {
      if (!bytes.empty()) std::memcpy(bytes.data(), data_ + pos_ / 8, bytes.size());
      if (bits % 8 != 0) bytes.back() &= std::byte((1u << (bits % 8)) - 1);
      pos_ += bits;
      return;
    }
    std::uint64_t done = 0;
    for (; bits - done >= 56; done += 56) {
      const std::uint64_t field = get(56);
      std::memcpy(bytes.data() + done / 8, &field, 7);
    }
    const int rest = int(bits - done);
    if (rest == 0) return;
    const std::uint64_t field = get(rest);
    std::memcpy(bytes.data() + done / 8, &field, std::size_t(rest + 7) / 8);
  }

  std::uint64_t position() const { return pos_; }
  std::uint64_t remaining() const { return bits_ - pos_; }

 private:
  static std::uint64_t mask(int width) {
    return width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
  }
  std::uint64_t load(std::size_t byte) const {
    std::uint64_t word = 0;
    if (byte + 8 <= size_) {
      std::memcpy(&word, data_ + byte, 8);
      return word;
    }
    std::memcpy(&word, data_ + byte, std::min<std::size_t>(8, size_ - byte));
    return word;
  }

  const std::byte* data_;
  std::size_t size_;
  std::uint64_t bits_;
  std::uint64_t pos_ = 0;
};

}  // namespace dlsim::models
