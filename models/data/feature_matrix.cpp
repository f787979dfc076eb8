// FeatureMatrix's float32 storage (feature_matrix.hpp): narrowing in place, or adopting floats.
#include "models/data/feature_matrix.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

namespace dlsim::models {

void FeatureMatrix::to_float32() {
  if (is_float32()) return;
  Matrix& doubles = owned();  // throws on a view
  const Index rows = doubles.rows(), cols = doubles.cols(), n = doubles.size();
  auto holder = std::make_shared<Matrix>(std::move(doubles));
  auto* bytes = reinterpret_cast<std::byte*>(holder->data());
  // Value i moves from byte 8i to byte 4i: a chunk is read whole before its floats are
  // written (memcpy: no aliasing between the two types), and a chunk's floats end
  // before the next chunk's doubles begin.
  constexpr Index kChunk = 4096;
  std::array<float, kChunk> floats;
  for (Index done = 0; done < n; done += kChunk) {
    const Index m = std::min(kChunk, n - done);
    const double* from = holder->data() + done;
    for (Index i = 0; i < m; ++i) floats[std::size_t(i)] = float(from[i]);
    std::memcpy(bytes + 4 * done, floats.data(), std::size_t(4 * m));
  }
  // The second half's whole pages go back to the kernel (they read as zeros if touched;
  // nobody touches them: the buffer is freed whole with the holder).
  const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const auto first = (std::uintptr_t(bytes + 4 * n) + page - 1) / page * page;
  const auto last = std::uintptr_t(bytes + 8 * n) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);

  const auto* floats_at = reinterpret_cast<const float*>(bytes);
  *this = owned_float32(floats_at, rows, cols, std::move(holder));
}

FeatureMatrix FeatureMatrix::of_floats(MatrixF values) {
  auto holder = std::make_shared<MatrixF>(std::move(values));
  const float* at = holder->data();  // read before the move (arguments have no order)
  const Index rows = holder->rows(), cols = holder->cols();
  return owned_float32(at, rows, cols, std::move(holder));
}

FeatureMatrix FeatureMatrix::select_rows(std::span<const Index> rows) const {
  const Index n = Index(rows.size()), c = cols();
  if (is_coded()) {
    ByteBuffer bytes(std::size_t(n * c));
    for (Index i = 0; i < n; ++i)
      std::memcpy(bytes.data() + i * c, codes() + rows[std::size_t(i)] * c, std::size_t(c));
    return of_codes(std::move(bytes), n, c, table_->value);
  }
  if (is_float32()) {
    const ViewF from = view_float32();
    MatrixF values(n, c);
    for (Index i = 0; i < n; ++i) values.row(i) = from.row(rows[std::size_t(i)]);
    return of_floats(std::move(values));
  }
  const View from = view();
  Matrix values(n, c);
  for (Index i = 0; i < n; ++i) values.row(i) = from.row(rows[std::size_t(i)]);
  return values;
}

void FeatureMatrix::shift_scale_codes(double shift, double scale) {
  if (!is_coded()) throw std::logic_error("FeatureMatrix::shift_scale_codes: not byte codes");
  std::array<double, 256> values;
  for (std::size_t c = 0; c < values.size(); ++c) values[c] = (table_->value[c] - shift) / scale;
  if (keep_alive_.use_count() == 1) {  // ours alone, made non-const by of_codes: in place
    const_cast<Codes*>(static_cast<const Codes*>(keep_alive_.get()))->table = CodeTable(values);
    return;
  }
  ByteBuffer bytes(std::size_t(rows_ * cols_));  // a copy keeps the old values
  if (!bytes.empty()) std::memcpy(bytes.data(), codes(), bytes.size());
  *this = of_codes(std::move(bytes), rows_, cols_, values);
}

FeatureMatrix FeatureMatrix::of_codes(ByteBuffer bytes, Index rows, Index cols,
                                      const std::array<double, 256>& table, std::size_t first) {
  if (bytes.size() < first)
    throw std::logic_error("FeatureMatrix::of_codes: " + std::to_string(bytes.size()) +
                           " bytes, fewer than the " + std::to_string(first) + " to skip");
  auto owned = std::make_shared<const ByteBuffer>(std::move(bytes));
  const std::span<const std::uint8_t> codes(owned->data() + first, owned->size() - first);
  return of_codes(std::move(owned), codes, rows, cols, table);
}

FeatureMatrix FeatureMatrix::of_codes(std::shared_ptr<const void> owner,
                                      std::span<const std::uint8_t> codes, Index rows, Index cols,
                                      const std::array<double, 256>& table) {
  if (Index(codes.size()) != rows * cols)
    throw std::logic_error("FeatureMatrix::of_codes: " + std::to_string(codes.size()) +
                           " codes for " + std::to_string(rows) + " x " + std::to_string(cols));
  auto holder = std::make_shared<Codes>(Codes{std::move(owner), CodeTable(table)});
  FeatureMatrix m;
  m.values_ = codes.data();
  m.table_ = &holder->table;
  m.rows_ = rows;
  m.cols_ = cols;
  m.keep_alive_ = std::move(holder);
  return m;
}

FeatureMatrix FeatureMatrix::owned_float32(const float* values, Index rows, Index cols,
                                           std::shared_ptr<const void> holder) {
  FeatureMatrix m;
  m.storage_ = Storage::float32;
  m.values_ = values;
  m.rows_ = rows;
  m.cols_ = cols;
  m.keep_alive_ = std::move(holder);
  return m;
}

}  // namespace dlsim::models
