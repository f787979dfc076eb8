// Bytes of a data set read into memory (a file's contents, pixel codes): a vector whose
// resize() leaves new bytes unset instead of zeroing them, since readers and decompressors
// write every byte they keep (Fashion-MNIST: 47 MB not zeroed first, README "Case (f)").
// Transparent huge pages (madvise MADV_HUGEPAGE) were tried for these bytes and dropped:
// the kernel's work on them cost 0.2-0.3 s of system time in case (f), ten times the
// user time they saved.
#pragma once

#include <vector>

#include "models/cpu/default_init_allocator.hpp"

namespace dlsim::models {

using ByteBuffer = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

}  // namespace dlsim::models
