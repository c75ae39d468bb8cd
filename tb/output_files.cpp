#include "tb/output_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "routing_logic/types.hpp"

namespace ftsim::tb {

namespace fs = std::filesystem;
using ftsim::ConfigError;
using ftsim::OutputError;

namespace {
/// Writes all of `data` to `fd`; 0 or the errno of the failure (ENOSPC
/// when a write makes no progress).
int write_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

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
  // A path that is (or links to) a device, a FIFO or a terminal is written
  // in place: renaming over it replaced /dev/full with a regular file, and
  // a symlink to /proc/self/fd/1 with a file nobody reads.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw OutputError(fmt::format("cannot write {}: it is a directory", path));
    write_in_place(path, text);
    return;
  }
  // A symlink to a regular file keeps being a symlink: the target is
  // replaced.
  std::error_code ec;
  const std::string target =
      fs::is_symlink(fs::symlink_status(path, ec)) ? fs::canonical(path, ec).string() : std::string(path);
  const std::string real = ec ? path : target;
  const std::string tmp = fmt::format("{}.tmp-{}", real, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw OutputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  int err = write_all(fd, text.data(), text.size());
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw OutputError(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), real.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw OutputError(fmt::format("cannot write {} (renaming {}): {}", path, tmp, std::strerror(e)));
  }
}

void write_in_place(const std::string& path, const std::string& text) {
  // O_NONBLOCK for the open only: a FIFO without a reader fails at once
  // (ENXIO) instead of blocking the run for ever.
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw OutputError(
        fmt::format("cannot write {}: {}", path, e == ENXIO ? "a FIFO with no reader" : std::strerror(e)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int err = write_all(fd, text.data(), text.size());
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw OutputError(fmt::format("cannot write {}: {}", path, std::strerror(err)));
}

bool png_complete(const std::string& path) {
  // Every PNG ends with its IEND chunk: length 0, "IEND", CRC ae 42 60 82.
  static constexpr unsigned char kIend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char tail[12] = {};
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 20 &&
                  ::pread(fd, tail, sizeof tail, st.st_size - 12) == 12 && std::memcmp(tail, kIend, 12) == 0;
  ::close(fd);
  return ok;
}

// ---------------------------------------------------------------------------
// CheckedFileSink: a pipe whose reader copies into the user's file.

CheckedFileSink::CheckedFileSink(const std::string& path, const std::string& extension) : m_path(path) {
  struct stat st {};
  m_in_place = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (m_in_place && S_ISDIR(st.st_mode)) throw OutputError(fmt::format("cannot write {}: it is a directory", path));
  m_tmp = m_in_place ? path : fmt::format("{}.tmp-{}", path, ::getpid());
  m_out = ::open(m_tmp.c_str(),
                 m_in_place ? (O_WRONLY | O_NONBLOCK | O_CLOEXEC) : (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC), 0644);
  if (m_out < 0) throw OutputError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  if (m_in_place) ::fcntl(m_out, F_SETFL, ::fcntl(m_out, F_GETFL) & ~O_NONBLOCK);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    ::close(m_out);
    throw OutputError(fmt::format("cannot write {}: no pipe: {}", path, std::strerror(errno)));
  }
  m_read = fds[0];
  m_write = fds[1];
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  m_writer_base = (dir / fmt::format(".{}.ftsim-pipe-{}", p.filename().string(), ::getpid())).string();
  m_link = m_writer_base + extension;
  ::unlink(m_link.c_str());
  if (::symlink(fmt::format("/proc/self/fd/{}", m_write).c_str(), m_link.c_str()) != 0) {
    const int e = errno;
    for (int fd : {m_read, m_write, m_out}) ::close(fd);
    if (!m_in_place) ::unlink(m_tmp.c_str());
    throw OutputError(fmt::format("cannot write {}: cannot create {}: {}", path, m_link, std::strerror(e)));
  }
  m_thread = std::thread([this] { copy(); });
}

void CheckedFileSink::copy() {
  std::vector<char> buf(1u << 16);
  for (;;) {
    const ssize_t n = ::read(m_read, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    // After a failed write, keep draining: the writer must never block.
    if (m_error == 0) m_error = write_all(m_out, buf.data(), static_cast<std::size_t>(n));
    if (m_error == 0) m_bytes += static_cast<std::uint64_t>(n);
  }
}

std::uint64_t CheckedFileSink::finish() {
  if (m_finished) return m_bytes;
  m_finished = true;
  ::close(m_write);  // the writer closed its own descriptor: the reader sees the end
  m_write = -1;
  m_thread.join();
  ::close(m_read);
  ::unlink(m_link.c_str());
  int err = m_error;
  if (err == 0 && !m_in_place && ::fsync(m_out) != 0) err = errno;
  if (::close(m_out) != 0 && err == 0) err = errno;
  if (err == 0 && !m_in_place && std::rename(m_tmp.c_str(), m_path.c_str()) != 0) err = errno;
  if (err != 0) {
    if (!m_in_place) ::unlink(m_tmp.c_str());
    throw OutputError(fmt::format("cannot write {}: {} (after {} bytes)", m_path, std::strerror(err), m_bytes));
  }
  return m_bytes;
}

CheckedFileSink::~CheckedFileSink() {
  if (m_finished) return;
  // Unwinding: the writer may still hold the pipe open, so the reader is
  // left to the process's end rather than joined.
  ::close(m_write);
  m_thread.detach();
  ::unlink(m_link.c_str());
  if (!m_in_place) ::unlink(m_tmp.c_str());
}

}  // namespace ftsim::tb
