#include "models/data/csv_fields.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include "models/data/dataset.hpp"

namespace dlsim::models {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

double parse_number(std::string_view field, const std::string& where, std::string_view column) {
  if (field.empty()) {
    throw DataError(where, "empty field in column \"" + std::string(column) + "\"");
  }
  // from_chars does not accept a leading '+'.
  std::string_view digits = field;
  if (digits.size() > 1 && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    throw DataError(where, "column \"" + std::string(column) + "\": \"" + std::string(field) +
                               "\" is not a number");
  }
  if (!std::isfinite(value)) {
    throw DataError(where, "column \"" + std::string(column) + "\": \"" + std::string(field) +
                               "\" is not a finite number");
  }
  return value;
}

}  // namespace dlsim::models
