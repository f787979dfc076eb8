// A data file's bytes as a reader gets them: decompressed into a buffer of its own, or
// mapped read-only (a plain file itself, or its decompressed copy from the DecodedCache),
// which saves both the copy and the page faults of a fresh buffer.
#pragma once

#include <cstddef>
#include <memory>

#include "models/data/byte_buffer.hpp"
#include "models/data/mapped_file.hpp"

namespace dlsim::models {

struct FileBytes {
  ByteBuffer owned;
  std::shared_ptr<const MappedFile> mapped;  // when set, the bytes are the mapping's

  const unsigned char* data() const { return mapped ? mapped->data() : owned.data(); }
  std::size_t size() const { return mapped ? mapped->size() : owned.size(); }
  unsigned char operator[](std::size_t i) const { return data()[i]; }
};

}  // namespace dlsim::models
