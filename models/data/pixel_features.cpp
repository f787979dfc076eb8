#include "models/data/pixel_features.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

namespace dlsim::models {

const std::array<double, 256>& pixel_values() {
  static const std::array<double, 256> value = [] {
    std::array<double, 256> v{};
    for (std::size_t b = 0; b < v.size(); ++b) v[b] = double(b) / 255.0;
    return v;
  }();
  return value;
}

const std::array<float, 256>& pixel_values_float32() {
  static const std::array<float, 256> value = [] {
    std::array<float, 256> v{};
    for (std::size_t b = 0; b < v.size(); ++b) v[b] = float(double(b) / 255.0);
    return v;
  }();
  return value;
}

FeatureMatrix pixel_features(FileBytes bytes, std::size_t offset, Index n, Index pixels,
                             Storage storage, bool byte_codes) {
  if (storage == Storage::float64 && byte_codes) {
    if (!bytes.mapped)
      return FeatureMatrix::of_codes(std::move(bytes.owned), n, pixels, pixel_values(), offset);
    const std::span<const std::uint8_t> codes(bytes.mapped->data(), bytes.mapped->size());
    return FeatureMatrix::of_codes(std::move(bytes.mapped),
                                   codes.subspan(std::min(offset, codes.size())), n, pixels,
                                   pixel_values());
  }
  PixelRows rows(n, pixels, storage, /*byte_codes=*/false);
  for (Index i = 0; i < n; ++i) rows.set_row(i, bytes.data() + offset + std::size_t(i * pixels));
  return rows.take();
}

PixelRows::PixelRows(Index n, Index pixels, Storage storage, bool byte_codes)
    : n_(n), pixels_(pixels), storage_(storage), coded_(storage == Storage::float64 && byte_codes) {
  if (coded_)
    codes_.resize(std::size_t(n) * std::size_t(pixels));
  else if (storage == Storage::float64)
    doubles_.resize(n, pixels);
  else
    floats_.resize(n, pixels);
}

void PixelRows::set_row(Index row, const unsigned char* from) {
  if (coded_) {
    std::copy_n(from, pixels_, codes_.data() + std::size_t(row * pixels_));
  } else if (storage_ == Storage::float64) {
    const auto& value = pixel_values();
    double* to = doubles_.row(row).data();
    for (Index j = 0; j < pixels_; ++j) to[j] = value[from[j]];
  } else {
    const auto& value = pixel_values_float32();
    float* to = floats_.row(row).data();
    for (Index j = 0; j < pixels_; ++j) to[j] = value[from[j]];
  }
}

FeatureMatrix PixelRows::take() {
  if (coded_) return FeatureMatrix::of_codes(std::move(codes_), n_, pixels_, pixel_values());
  if (storage_ == Storage::float64) return FeatureMatrix(std::move(doubles_));
  return FeatureMatrix::of_floats(std::move(floats_));
}

}  // namespace dlsim::models
