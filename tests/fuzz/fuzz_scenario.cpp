// Fuzz target: scenario JSON text -> parse_scenario_text (the CLI's parser, with its
// nesting, NUL and overflow limits) -> resolve_scenario -> to_scenario -> dump of the
// resolved scenario (as validate and summary.json do). Any of these may only refuse with
// InputError. A first line `--set KEY=VALUE` is applied as an
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
  try {
    nlohmann::json doc = dlsim::sim::parse_scenario_text(std::string(text), "fuzz.json");
    if (!assignment.empty()) dlsim::sim::apply_override(doc, assignment);
    (void)dlsim::sim::load_scenario(doc).resolved.dump(2);
  } catch (const dlsim::sim::InputError&) {
  } catch (const std::exception& e) {
    dlsim::fuzz::unexpected(e.what());
  }
  return 0;
}
