// Fuzz target: scenario JSON text -> parse -> resolve_scenario -> to_scenario.
// Malformed JSON is skipped (the CLI reports it before validation); a parsed document
// may only be refused with InputError. A first line `--set KEY=VALUE` is applied as an
// override first, so the fuzzer also reaches apply_override.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/scenario/load.hpp"
#include "tests/fuzz/fuzz_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string_view assignment;
  if (text.starts_with("--set ")) {
    const auto eol = text.find('\n');
    if (eol == std::string_view::npos) return 0;
    assignment = text.substr(6, eol - 6);
    text.remove_prefix(eol + 1);
  }
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  try {
    if (!assignment.empty()) dlsim::sim::apply_override(doc, assignment);
    (void)dlsim::sim::load_scenario(doc);
  } catch (const dlsim::sim::InputError&) {
  } catch (const std::exception& e) {
    dlsim::fuzz::unexpected(e.what());
  }
  return 0;
}
