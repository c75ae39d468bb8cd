#include "tb/yaml_input.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

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
/// Checks keys in every mapping and counts the nodes and scalar bytes of the
/// document with its aliases expanded (what every later reader of the tree
/// walks), stopping at the limits: ten levels of nine-fold aliases are under
/// 1 KB of text and 3.5 billion nodes. Nesting deeper than kMaxYamlDepth is
/// refused before it can exhaust the stack of this or any later walker.
void check_keys(const YAML::Node& n, const std::string& origin, YamlSize& size, std::size_t depth = 1) {
  if (depth > kMaxYamlDepth && (n.IsMap() || n.IsSequence())) {
    const YAML::Mark m = n.Mark();
    throw ConfigError(
        fmt::format("{}: line {}, column {}: lists and mappings nest more than {} levels deep; at most {} "
                    "allowed",
                    origin, m.line + 1, m.column + 1, kMaxYamlDepth, kMaxYamlDepth));
  }
  ++size.nodes;
  if (n.IsScalar()) size.bytes += n.Scalar().size();
  if (size.nodes > kMaxYamlNodes || size.bytes > kMaxYamlBytes)
    throw ConfigError(fmt::format(
        "{}: the document expands (through its aliases, *name) to more than {} nodes or {} bytes; at most {} nodes "
        "and {} bytes allowed",
        origin, kMaxYamlNodes, kMaxYamlBytes, kMaxYamlNodes, kMaxYamlBytes));
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
      ++size.nodes;
      size.bytes += kv.first.Scalar().size();
      check_keys(kv.second, origin, size, depth + 1);
    }
  } else if (n.IsSequence()) {
    for (const auto& e : n) check_keys(e, origin, size, depth + 1);
  }
}

bool fits(const YAML::Node& n, YamlSize& left) {
  if (left.nodes == 0) return false;
  --left.nodes;
  const std::size_t b = n.IsScalar() ? n.Scalar().size() : 0;
  if (b > left.bytes) return false;
  left.bytes -= b;
  if (n.IsMap()) {
    for (const auto& kv : n)
      if (!fits(kv.first, left) || !fits(kv.second, left)) return false;
  } else if (n.IsSequence()) {
    for (const auto& e : n)
      if (!fits(e, left)) return false;
  }
  return true;
}
}  // namespace

bool yaml_fits(const YAML::Node& n, std::size_t max_nodes, std::size_t max_bytes) {
  YamlSize left{max_nodes, max_bytes};
  return fits(n, left);
}

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
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (about 1,000 levels) says only "bad file".
    throw ConfigError(
        fmt::format("{}: line {}, column {}: lists and mappings nest more than {} levels deep; at most {} "
                    "allowed",
                    origin, e.mark.line + 1, e.mark.column + 1, kMaxYamlDepth, kMaxYamlDepth));
  } catch (const YAML::Exception& e) {
    throw ConfigError(
        fmt::format("{}: malformed YAML at line {}, column {}: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  YamlSize size;
  check_keys(root, origin, size);
  return root;
}

}  // namespace ftsim::tb
