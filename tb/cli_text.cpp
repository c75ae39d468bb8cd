#include "tb/cli_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ftsim::tb {

int edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: a swap of two neighbours ("vsc" for "vcs")
  // is one edit, the commonest typo.
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty()) return {};
  const int limit = std::max<int>(1, static_cast<int>(word.size()) / 3);
  std::string best;
  int best_d = limit + 1;
  for (const auto& c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best.empty())
    for (const auto& c : candidates)
      if (word.size() >= 3 && c.rfind(word, 0) == 0) return c;
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string m = closest_match(word, candidates);
  return m.empty() ? std::string() : fmt::format("; did you mean '{}'?", m);
}

std::string human_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02d} s", s / 60, s % 60);
  return fmt::format("{} h {:02d} min", s / 3600, (s % 3600) / 60);
}

Progress::Progress(std::string what, std::string unit, bool enabled, double interval_seconds)
    : m_what(std::move(what)),
      m_unit(std::move(unit)),
      m_enabled(enabled),
      m_interval(interval_seconds),
      m_start(std::chrono::steady_clock::now()),
      m_last(m_start) {}

std::string Progress::line(std::uint64_t done, std::uint64_t total, const std::string& note, double elapsed) const {
  std::string out = fmt::format("ftsim {}: ", m_what);
  if (total > 0) {
    const double frac = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    out += fmt::format("{:.1f}% ({} of {}{}{}), {} elapsed", 100.0 * frac, done, total, m_unit.empty() ? "" : " ",
                       m_unit, human_duration(elapsed));
    if (done > m_resumed && done < total)
      out += ", ETA " +
             human_duration(elapsed * static_cast<double>(total - done) / static_cast<double>(done - m_resumed));
    if (m_resumed > 0) out += fmt::format(", {} resumed", m_resumed);
  } else {
    out += fmt::format("{}{}{}, {} elapsed", done, m_unit.empty() ? "" : " ", m_unit, human_duration(elapsed));
  }
  if (!note.empty()) out += ", " + note;
  return out;
}

void Progress::update(std::uint64_t done, std::uint64_t total, const std::string& note) {
  if (!m_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - m_last).count() < m_interval) return;
  m_last = now;
  std::fprintf(stderr, "%s\n", line(done, total, note, std::chrono::duration<double>(now - m_start).count()).c_str());
}

void Progress::step(std::uint64_t done, std::uint64_t total, const std::string& note) {
  if (total == 0 || done < total) {
    update(done, total, note);
  } else if (!m_finished) {
    m_finished = true;
    finish(done, total, note);
  }
}

void Progress::finish(std::uint64_t done, std::uint64_t total, const std::string& note) {
  if (!m_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  std::fprintf(stderr, "%s\n", line(done, total, note, std::chrono::duration<double>(now - m_start).count()).c_str());
}

}  // namespace ftsim::tb
