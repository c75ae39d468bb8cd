#include "tb/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace ftsim::tb {

std::string gnuplot_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
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

bool run_gnuplot(const std::string& script, std::string* error_text) {
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
  return ok;
}

}  // namespace ftsim::tb
