// Output paths checked before any work starts, and files written atomically.
#pragma once
#include <cstdint>
#include <string>
#include <thread>

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
/// either the old file, no file, or the whole new file. A path that is a
/// device, a FIFO or a terminal (or a symlink to one) is written in place
/// instead, and a symlink to a regular file stays a symlink (its target is
/// replaced). Throws ftsim::OutputError (exit 2) naming the path when any
/// write, flush, close or rename fails (a full disk: "No space left on
/// device").
void write_file_atomically(const std::string& path, const std::string& text);

/// Writes `text` into an existing non-regular file (a device, a FIFO with a
/// reader, a terminal). Throws ftsim::OutputError naming the path.
void write_in_place(const std::string& path, const std::string& text);

/// True when `path` is a regular file that ends with a PNG's IEND chunk (a
/// plot that was written whole; gnuplot exits 0 on a full disk).
bool png_complete(const std::string& path);

/// For writers that open their file themselves and report no write errors
/// (SystemC's VCD writer): they are given writer_base() (plus their own
/// extension), a symlink to a pipe; a thread copies what arrives into `path`
/// with every write checked. `path` is written atomically like
/// write_file_atomically (devices and FIFOs in place). finish(), after the
/// writer closed its file, returns the bytes written or throws
/// ftsim::OutputError naming `path` (a full disk cut the VCD at 20 KiB and
/// the run still said "wrote waves").
class CheckedFileSink {
 public:
  /// `extension` is what the writer appends to the name it is given
  /// (".vcd"). Throws OutputError when `path` cannot be opened.
  CheckedFileSink(const std::string& path, const std::string& extension);
  ~CheckedFileSink();
  CheckedFileSink(const CheckedFileSink&) = delete;
  CheckedFileSink& operator=(const CheckedFileSink&) = delete;
  const std::string& writer_base() const { return m_writer_base; }
  std::uint64_t finish();

 private:
  void copy();
  std::string m_path, m_tmp, m_writer_base, m_link;
  bool m_in_place = false;
  bool m_finished = false;
  int m_read = -1, m_write = -1, m_out = -1;
  int m_error = 0;
  std::uint64_t m_bytes = 0;
  std::thread m_thread;
};

}  // namespace ftsim::tb
