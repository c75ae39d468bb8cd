// A mechanism's YAML section as typed key specs and validated values: the
// registry entry lists each key with its type and range (MechanismKey), the
// experiment parser checks every present key against it, and the mechanism
// reads the values back typed (MechanismSection). Pure C++, no YAML types.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ftsim::tb {

/// How the experiment parser checks one key's value.
enum class KeyType {
  kText,     ///< any scalar; the mechanism checks it (a directory, a variant name)
  kInteger,  ///< an integer in [lo, hi]
  kBool,     ///< true | false
  kChoice,   ///< one of `choices`
};

/// One key of a mechanism's YAML section. Build typed keys with the named
/// constructors; `{name, allowed, meaning}` makes a kText key whose range
/// text is shown as written.
struct MechanismKey {
  MechanismKey() = default;
  /// A kText key: any scalar, `allowed` shown as written.
  MechanismKey(std::string key, std::string allowed_text, std::string what)
      : name(std::move(key)), allowed(std::move(allowed_text)), meaning(std::move(what)) {}

  std::string name;     ///< inside the section: "handle_cycles"
  std::string allowed;  ///< the range or the choices as shown: "1..1000000", "true | false"
  std::string meaning;  ///< one line, with units
  KeyType type = KeyType::kText;
  std::int64_t lo = 0;               ///< kInteger: smallest value
  std::int64_t hi = 0;               ///< kInteger: largest value
  std::vector<std::string> choices;  ///< kChoice: the allowed values

  /// An integer key in [lo, hi]; `allowed` reads "lo..hi" (powers of two
  /// from 2^20 up as "2^k").
  static MechanismKey integer(std::string name, std::int64_t lo, std::int64_t hi, std::string meaning);
  static MechanismKey boolean(std::string name, std::string meaning);
  /// One of `choices`; `allowed` reads "a | b | c".
  static MechanismKey choice(std::string name, std::vector<std::string> choices, std::string meaning);
};

/// The validated values of one mechanism section as the parser read them
/// (only the keys present in the document). Accessors return nothing for an
/// absent key and throw ftsim::ConfigError when the key was read as another
/// type than the accessor's (a programming error in the mechanism).
class MechanismSection {
 public:
  MechanismSection() = default;
  MechanismSection(std::string origin, std::string section)
      : m_origin(std::move(origin)), m_section(std::move(section)) {}

  /// kInteger keys.
  [[nodiscard]] std::optional<std::int64_t> integer(const std::string& key) const;
  /// kBool keys.
  [[nodiscard]] std::optional<bool> boolean(const std::string& key) const;
  /// kText and kChoice keys.
  [[nodiscard]] std::optional<std::string> text(const std::string& key) const;
  /// Copies the key's value into `dst` when the key is present (integer
  /// keys into int or std::int64_t, booleans into bool, text and choices
  /// into std::string); leaves `dst` (the default) otherwise.
  void assign(const std::string& key, bool& dst) const;
  void assign(const std::string& key, int& dst) const;
  void assign(const std::string& key, std::int64_t& dst) const;
  void assign(const std::string& key, std::string& dst) const;
  [[nodiscard]] bool has(const std::string& key) const { return m_values.count(key) != 0; }
  [[nodiscard]] const std::string& section() const { return m_section; }
  /// Throws ftsim::ConfigError "<origin>: key '<section>.<key>' <message>",
  /// for a mechanism's own cross-key checks.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  /// Used by the parser.
  void put_integer(const std::string& key, std::int64_t v);
  void put_boolean(const std::string& key, bool v);
  void put_text(const std::string& key, std::string v);

 private:
  struct Value {
    KeyType type = KeyType::kText;
    std::int64_t integer = 0;
    bool boolean = false;
    std::string text;
  };
  const Value* find(const std::string& key, bool (*accepts)(KeyType), const char* what) const;
  std::string m_origin;
  std::string m_section;
  std::map<std::string, Value> m_values;
};

}  // namespace ftsim::tb
