// Reading YAML input files (experiments, sweeps) strictly: a regular file of
// bounded size, well-formed, with unique scalar keys in every mapping.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace ftsim::tb {

/// Largest input file accepted, bytes (an experiment is a few hundred bytes).
inline constexpr std::size_t kMaxYamlBytes = 16u << 20;

/// Most nodes a document may expand to through its aliases (`*name` repeats
/// the anchored node; nested, they multiply). A sweep of 100,000 points and a
/// fault schedule of 100,000 faults stay below it.
inline constexpr std::size_t kMaxYamlNodes = 1'000'000;

/// Deepest nesting of lists and mappings a document may have (the root is
/// level 1). Experiments nest at most six levels; a libFuzzer input nested
/// about 1,500 levels in a --set value overflowed the stack (issue 47).
inline constexpr std::size_t kMaxYamlDepth = 64;

/// Nodes and scalar bytes of a document with its aliases expanded.
struct YamlSize {
  std::size_t nodes = 0;
  std::size_t bytes = 0;
};

/// True when `n`, aliases expanded, has at most `max_nodes` nodes and
/// `max_bytes` scalar bytes. Costs at most max_nodes steps.
bool yaml_fits(const YAML::Node& n, std::size_t max_nodes, std::size_t max_bytes);

/// Reads the whole of `path`. `what` names the file's role in errors
/// ("experiment file"). Throws ftsim::ConfigError when the path does not
/// exist, is a directory or not a regular file (a device, a FIFO), cannot be
/// read, or exceeds kMaxYamlBytes.
std::string read_yaml_file(const std::string& path, const std::string& what);

/// Parses one YAML document. Throws ftsim::ConfigError (with `origin`, line
/// and column) when it is not valid UTF-8, when it is malformed, when a mapping has the same key twice
/// (yaml-cpp would silently use the first while echoing the last), or when a
/// key is not a scalar (a sequence or mapping used as a key), or when its
/// aliases expand it beyond kMaxYamlNodes nodes or kMaxYamlBytes bytes, or it
/// nests deeper than kMaxYamlDepth.
YAML::Node parse_yaml_document(const std::string& text, const std::string& origin);

}  // namespace ftsim::tb
