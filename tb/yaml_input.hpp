// Reading YAML input files (experiments, sweeps) strictly: a regular file of
// bounded size, well-formed, with unique scalar keys in every mapping.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace ftsim::tb {

/// Largest input file accepted, bytes (an experiment is a few hundred bytes).
inline constexpr std::size_t kMaxYamlBytes = 16u << 20;

/// Reads the whole of `path`. `what` names the file's role in errors
/// ("experiment file"). Throws ftsim::ConfigError when the path does not
/// exist, is a directory or not a regular file (a device, a FIFO), cannot be
/// read, or exceeds kMaxYamlBytes.
std::string read_yaml_file(const std::string& path, const std::string& what);

/// Parses one YAML document. Throws ftsim::ConfigError (with `origin`, line
/// and column) when it is not valid UTF-8, when it is malformed, when a mapping has the same key twice
/// (yaml-cpp would silently use the first while echoing the last), or when a
/// key is not a scalar (a sequence or mapping used as a key).
YAML::Node parse_yaml_document(const std::string& text, const std::string& origin);

}  // namespace ftsim::tb
