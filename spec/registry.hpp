// A registry of named kinds, in the style of SimGrid's self-registering models and
// ns-3's TypeId: each kind (an algorithm, a compressor, a model, ...) adds its Info
// from its own .cpp with a static registration object, and the rest of dlsim only
// looks kinds up. Nothing else lists them.
//
//   namespace { const spec::Registration<AlgorithmInfo> registered{{.name = "my-kind", ...}}; }
//
// Kinds are listed in name order, so the key table, the JSON Schema and error messages
// do not depend on the link order of the registering files. The registry is a
// function-local static, built before the first registration that needs it, so static
// initialization order does not matter either.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim::spec {

/// `Info` needs a `std::string name` member.
template <class Info>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  /// Adds a kind; a second kind of the same name is a programming error.
  void add(Info info) {
    std::string name = info.name;
    if (name.empty()) throw std::logic_error("a registered kind needs a name");
    if (!kinds_.emplace(name, std::move(info)).second)
      throw std::logic_error("kind \"" + name + "\" is registered twice");
  }

  /// The kind called `name`, or null.
  const Info* find(std::string_view name) const {
    const auto it = kinds_.find(name);
    return it == kinds_.end() ? nullptr : &it->second;
  }

  /// The kind called `name`; an unknown name is a programming error (scenario
  /// validation has already refused unknown kinds).
  const Info& at(std::string_view name) const {
    if (const Info* info = find(name)) return *info;
    throw std::logic_error("no registered kind \"" + std::string(name) + "\"");
  }

  /// Every kind, in name order.
  std::vector<const Info*> all() const {
    std::vector<const Info*> infos;
    infos.reserve(kinds_.size());
    for (const auto& [name, info] : kinds_) infos.push_back(&info);
    return infos;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> names;
    names.reserve(kinds_.size());
    for (const auto& [name, info] : kinds_) names.push_back(name);
    return names;
  }

 private:
  Registry() = default;
  std::map<std::string, Info, std::less<>> kinds_;
};

/// Registers one kind when the program starts: `static const Registration<I> r{info};`
template <class Info>
struct Registration {
  explicit Registration(Info info) { Registry<Info>::instance().add(std::move(info)); }
};

}  // namespace dlsim::spec
