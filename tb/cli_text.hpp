// Small text helpers shared by the command line, the config parser and the
// progress lines: "did you mean" suggestions, durations, progress.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ftsim::tb {

/// Edit distance between a and b (optimal string alignment: insertions,
/// deletions, substitutions and swaps of two neighbouring characters each
/// cost 1).
int edit_distance(const std::string& a, const std::string& b);

/// The candidate closest to `word` when it is close enough to be a likely
/// typo (distance <= max(1, |word| / 3), or `word` is a prefix of it);
/// empty otherwise. Ties go to the first candidate.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

/// "; did you mean 'x'?" for closest_match(word, candidates), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// A duration for people: "12 s", "3 min 05 s", "2 h 07 min".
std::string human_duration(double seconds);

/// The one progress format of `ftsim run`, `sweep` and `analyze`, on stderr:
///   "ftsim <what>: 45.0% (20000 of 45000 <unit>), 12 s elapsed, ETA 15 s[, note]"
/// update() prints at most once per `interval` (the first call after
/// construction prints at once only when `immediate`); finish() always
/// prints the final line. Disabled instances print nothing.
class Progress {
 public:
  Progress(std::string what, std::string unit, bool enabled, double interval_seconds = 2.0);
  void update(std::uint64_t done, std::uint64_t total, const std::string& note = "");
  /// update(), except that the first call with done >= total > 0 prints the
  /// final line at once (finish) and later calls print nothing.
  void step(std::uint64_t done, std::uint64_t total, const std::string& note = "");
  void finish(std::uint64_t done, std::uint64_t total, const std::string& note = "");
  /// Counts n of `done` as finished before this process started (sweep
  /// --resume): the ETA extrapolates from the rate of the others only.
  void add_resumed(std::uint64_t n) { m_resumed += n; }
  /// The line update() would print (tests).
  std::string line(std::uint64_t done, std::uint64_t total, const std::string& note, double elapsed) const;

 private:
  std::string m_what;
  std::string m_unit;
  bool m_enabled;
  double m_interval;
  std::chrono::steady_clock::time_point m_start;
  std::chrono::steady_clock::time_point m_last;
  bool m_finished = false;      ///< step() printed the final line
  std::uint64_t m_resumed = 0;  ///< of `done`: finished before the start (not timed here)
};

}  // namespace ftsim::tb
