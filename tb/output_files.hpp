// Output paths checked before any work starts, and files written atomically.
#pragma once
#include <string>

namespace ftsim::tb {

/// Makes sure `dir` is a directory this process can write into, creating it
/// (and its parents) when missing. `option` names the command-line option in
/// errors ("--out"). Throws ftsim::ConfigError when dir is empty, names an
/// existing file, lies under a path that cannot hold directories (/proc), or
/// a probe file cannot be created in it.
void prepare_output_dir(const std::string& dir, const std::string& option);

/// Makes sure `path` can be written as a file: creates its folder, rejects
/// an empty path and a directory, and checks that the folder accepts a new
/// file. Throws ftsim::ConfigError naming `option`.
void check_output_file(const std::string& path, const std::string& option);

/// Writes `text` to `path` atomically: to a temporary file in the same folder,
/// flushed, then renamed over `path`, so a reader (or a resumed sweep) sees
/// either the old file, no file, or the whole new file. Throws
/// std::runtime_error naming the path when any step fails.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ftsim::tb
