#include "tb/yaml_input.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "routing_logic/types.hpp"

namespace ftsim::tb {

namespace fs = std::filesystem;
using ftsim::ConfigError;

std::string read_yaml_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ConfigError(fmt::format("{} '{}' does not exist", what, path));
  if (fs::is_directory(st)) throw ConfigError(fmt::format("{} '{}' is a directory, not a YAML file", what, path));
  if (!fs::is_regular_file(st))
    throw ConfigError(fmt::format("{} '{}' is not a regular file (a device or a pipe?)", what, path));
  const auto size = fs::file_size(path, ec);
  if (ec) throw ConfigError(fmt::format("cannot read {} '{}': {}", what, path, ec.message()));
  if (size > kMaxYamlBytes)
    throw ConfigError(fmt::format("{} '{}' is {} bytes; at most {} allowed", what, path, size, kMaxYamlBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("cannot read {} '{}'", what, path));
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

namespace {
void check_keys(const YAML::Node& n, const std::string& origin) {
  if (n.IsMap()) {
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const YAML::Mark m = kv.first.Mark();
      if (!kv.first.IsScalar())
        throw ConfigError(fmt::format("{}: line {}, column {}: a mapping key must be a plain name, not a {}", origin,
                                      m.line + 1, m.column + 1, kv.first.IsSequence() ? "list" : "mapping"));
      if (!seen.insert(kv.first.Scalar()).second)
        throw ConfigError(fmt::format("{}: line {}, column {}: key '{}' appears twice in the same mapping", origin,
                                      m.line + 1, m.column + 1, kv.first.Scalar()));
      check_keys(kv.second, origin);
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) check_keys(e, origin);
  }
}
}  // namespace

namespace {
/// Line (1-based) of the first byte that is not valid UTF-8, or 0.
int invalid_utf8_line(const std::string& text) {
  int line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || (len == 2 && c < 0xC2) || i + static_cast<std::size_t>(len) > text.size()) return line;
    for (int k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return line;
    if (c == '\n') ++line;
    i += static_cast<std::size_t>(len);
  }
  return 0;
}
}  // namespace

YAML::Node parse_yaml_document(const std::string& text, const std::string& origin) {
  if (const int line = invalid_utf8_line(text))
    throw ConfigError(fmt::format("{}: line {}: the text is not valid UTF-8", origin, line));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        fmt::format("{}: malformed YAML at line {}, column {}: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  check_keys(root, origin);
  return root;
}

}  // namespace ftsim::tb
