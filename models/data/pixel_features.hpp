// Features of 8-bit images: pixel byte p becomes the double p / 255 ∈ [0, 1], stored as a
// data set asks (Fashion-MNIST's and CIFAR-10's readers): as doubles; as the bytes
// themselves with a table of those 256 doubles (FeatureMatrix::of_codes: the same values,
// an eighth of the memory); or as floats, each that double rounded once
// (FeatureMatrix::to_float32's value). None of them makes a float64 copy.
#pragma once

#include <array>
#include <cstddef>

#include "models/data/byte_buffer.hpp"
#include "models/data/feature_matrix.hpp"
#include "models/data/file_bytes.hpp"

namespace dlsim::models {

/// The n × pixels features of the pixel bytes in `bytes` from `offset` on (row-major, one
/// image after the other), stored as `storage`; float64 with `byte_codes` keeps `bytes`
/// (its buffer, or its mapping). `bytes` must hold offset + n · pixels bytes.
FeatureMatrix pixel_features(FileBytes bytes, std::size_t offset, Index n, Index pixels,
                             Storage storage, bool byte_codes);

/// Features written image by image, for readers whose pixels are not one block (CIFAR-10:
/// a label byte before every image): the same values and storage as pixel_features().
class PixelRows {
 public:
  PixelRows(Index n, Index pixels, Storage storage, bool byte_codes);
  /// Row `row` from the `pixels` bytes at `from`.
  void set_row(Index row, const unsigned char* from);
  /// The rows written, as features (once).
  FeatureMatrix take();

 private:
  Index n_, pixels_;
  Storage storage_;
  bool coded_;
  ByteBuffer codes_;
  Matrix doubles_;
  MatrixF floats_;
};

/// The 256 values of a pixel byte: double(b) / 255, and that rounded to a float.
const std::array<double, 256>& pixel_values();
const std::array<float, 256>& pixel_values_float32();

}  // namespace dlsim::models
