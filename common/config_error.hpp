// The error every layer throws for bad input. Pure C++, no SystemC.
#pragma once
#include <stdexcept>
#include <string>

namespace ftsim {

/// Configuration or elaboration error. The message names the field, the value
/// and the allowed range; the ftsim command turns it into exit code 2.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& what) : std::runtime_error(what) {}
};

/// An output that could not be written (a full disk, a device that refuses
/// writes, a folder that vanished): the message names the file and the
/// reason. Exit code 2 like every error the user can act on.
class OutputError : public ConfigError {
 public:
  explicit OutputError(const std::string& what) : ConfigError(what) {}
};

}  // namespace ftsim
