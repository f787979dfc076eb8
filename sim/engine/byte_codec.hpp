// Plain little helpers to put numbers, strings and byte blobs into one byte vector and
// read them back in the same order: what ranks exchange (rank_group.hpp). Both sides
// run the same build, so values are copied as they are in memory.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace dlsim::sim {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::byte>& out) : out_(out) {}
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  void put_bytes(std::span<const std::byte> bytes) {
    put(std::uint64_t(bytes.size()));
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  void put_string(const std::string& s) {
    put_bytes(std::as_bytes(std::span<const char>(s.data(), s.size())));
  }

 private:
  std::vector<std::byte>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <class T>
  requires std::is_trivially_copyable_v<T> T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }
  std::span<const std::byte> get_bytes() { return take(std::size_t(get<std::uint64_t>())); }
  std::string get_string() {
    const auto b = get_bytes();
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }
  bool done() const { return at_ == in_.size(); }

 private:
  std::span<const std::byte> take(std::size_t n) {
    if (n > in_.size() - at_) throw std::logic_error("ByteReader: read past the end");
    const auto s = in_.subspan(at_, n);
    at_ += n;
    return s;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

}  // namespace dlsim::sim
