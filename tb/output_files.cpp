#include "tb/output_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "routing_logic/types.hpp"

namespace ftsim::tb {

namespace fs = std::filesystem;
using ftsim::ConfigError;

namespace {
/// Creates and removes a probe file in `dir`; false with the reason when the
/// folder does not accept new files.
bool can_create_in(const fs::path& dir, std::string* why) {
  const fs::path probe = dir / fmt::format(".ftsim-probe-{}", ::getpid());
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (f == nullptr) {
    *why = std::strerror(errno);
    return false;
  }
  std::fclose(f);
  std::error_code ec;
  fs::remove(probe, ec);
  return true;
}
}  // namespace

void prepare_output_dir(const std::string& dir, const std::string& option) {
  if (dir.empty()) throw ConfigError(fmt::format("{} '': give a directory for the outputs", option));
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw ConfigError(fmt::format("{} {}: this is an existing file, not a directory", option, dir));
  fs::create_directories(dir, ec);
  if (ec) throw ConfigError(fmt::format("{} {}: cannot create the directory: {}", option, dir, ec.message()));
  std::string why;
  if (!can_create_in(dir, &why))
    throw ConfigError(fmt::format("{} {}: cannot write files in this directory: {}", option, dir, why));
}

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw ConfigError(fmt::format("{} '': give a file name", option));
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw ConfigError(fmt::format("{} {}: this is a directory, not a file", option, path));
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  fs::create_directories(folder, ec);
  if (ec)
    throw ConfigError(
        fmt::format("{} {}: cannot create the folder {}: {}", option, path, folder.string(), ec.message()));
  std::string why;
  if (!can_create_in(folder, &why))
    throw ConfigError(fmt::format("{} {}: cannot write files in {}: {}", option, path, folder.string(), why));
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  const bool ok =
      std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const int err = errno;
  std::fclose(f);
  if (!ok) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", tmp, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(e)));
  }
}

}  // namespace ftsim::tb
