#include "tb/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "common/config_error.hpp"
#include "tb/output_files.hpp"

namespace ftsim::tb {

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    // A newline would end the string and the command: what follows would
    // run as gnuplot commands (system(...)). Control characters print as
    // spaces.
    const auto u = static_cast<unsigned char>(c);
    out += u < 0x20 || u == 0x7f ? ' ' : c;
  }
  return out + "'";
}

namespace {
bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

bool run_gnuplot(const std::string& script, std::string* error_text, int* exit_status) {
  int in[2];
  int err[2];
  if (::pipe(in) != 0) return false;
  if (::pipe(err) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], err[0], err[1]}) ::close(fd);
    return false;
  }
  if (pid == 0) {
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDOUT_FILENO);
    for (int fd : {in[0], in[1], err[0], err[1]}) ::close(fd);
    char prog[] = "gnuplot";
    char* argv[] = {prog, nullptr};
    ::execvp(prog, argv);
    std::fputs("ftsim: cannot execute gnuplot (is it installed? scripts/setup.sh installs it)\n", stderr);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(err[1]);
  // gnuplot reads the whole script before it writes much, but a failing
  // gnuplot may exit early: ignore SIGPIPE while writing.
  void (*old)(int) = std::signal(SIGPIPE, SIG_IGN);
  write_all(in[1], script);
  ::close(in[1]);
  std::signal(SIGPIPE, old);
  std::string captured;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    captured.append(buf, static_cast<std::size_t>(n));
  }
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok && error_text != nullptr) *error_text = captured;
  if (exit_status != nullptr) *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return ok;
}

bool draw_plots(const std::string& script, const std::vector<std::string>& pngs, std::string* warning) {
  std::string why;
  int status = 0;
  if (!run_gnuplot(script, &why, &status)) {
    if (status == 127) {  // no gnuplot on this machine: the plots are an extra
      *warning = why;
      return false;
    }
    throw ftsim::OutputError(
        fmt::format("cannot write {}: gnuplot failed (exit {}): {}", pngs.empty() ? "" : pngs[0], status, why));
  }
  for (const auto& p : pngs)
    if (!png_complete(p))
      throw ftsim::OutputError(fmt::format("cannot write {}: gnuplot left it missing or cut short (a full disk?)", p));
  return true;
}

}  // namespace ftsim::tb
