// DQR's channel list: a linear order of all channels in which every
// dependency points upwards, and turn enabling by moving channels upwards.
// Pure C++. Source: dynamic-quick-reconfiguration.txt, sections III and IV-A.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ftsim::routing::dqr {

/// The channel list (section III: "one possible arrangement of all channels
/// ... such that any dependency from one channel to another only moves
/// upwards in the list"). Channels are dense ids 0..channels-1 (in ftsim a
/// directed switch-to-switch link x VC); a dependency u -> v says a packet
/// holding u may request v (a turn at the switch between them).
///
/// Built from the initial routing's dependencies by Kahn's algorithm taking
/// the lowest free id first (section IV-A asks for any order satisfying one
/// inequality per dependency; the paper's linear-programming objective is
/// not given, notes Q1). Dependencies are only ever added (section III), so
/// the union of old and new dependencies stays acyclic.
/// Not safe for concurrent use, even through const methods (they share a
/// scratch marking array); copies are independent.
class ChannelList {
 public:
  /// `deps`: initial dependencies (u, v), each id in 0..channels-1;
  /// duplicates are ignored. Throws std::invalid_argument when an id is out
  /// of range or when the dependencies are cyclic (the message lists one
  /// cycle as channel ids).
  ChannelList(int channels, const std::vector<std::pair<int, int>>& deps);

  int num_channels() const { return static_cast<int>(m_pos.size()); }
  std::size_t num_dependencies() const { return m_edges; }
  /// Index of channel c in the list (0 = bottom).
  int position(int c) const { return m_pos[static_cast<std::size_t>(c)]; }
  /// Channels bottom to top.
  const std::vector<int>& order() const { return m_order; }
  bool has_dependency(int u, int v) const;
  /// The turn u -> v is legal without moving anything: v lies above u.
  bool legal(int u, int v) const { return position(u) < position(v); }

  /// The channels that enabling u -> v would move upwards (section III: the
  /// target "and every channel to which the target channel has dependencies
  /// that are now below it"): the channels reachable from v over
  /// dependencies without rising above u, in list order. Empty when the turn
  /// is already legal; std::nullopt when u is among them, i.e. the turn would
  /// close a cycle and is refused.
  /// `extra`: dependencies not recorded in the list but to be treated as
  /// present (each must point upwards: a path's legal new turns checked
  /// together, section IV-A design choice 2), or nullptr.
  std::optional<std::vector<int>> channels_to_move(int u, int v,
                                                   const std::vector<std::pair<int, int>>* extra = nullptr) const;

  /// Enables the dependency u -> v: moves channels_to_move(u, v) to just
  /// above u, keeping their order, and records the dependency. Returns the
  /// number of channels moved (the paper's T; 0 for a legal or existing
  /// dependency), or -1 when the turn is refused (nothing changes). u == v
  /// is refused.
  int enable(int u, int v);

  /// Forgets the dependency u -> v (no-op when absent). The order stays
  /// valid: removing a dependency never makes another point downwards. Used
  /// to undo a tentative enable (LASH's layer trial); DQR itself never
  /// removes dependencies (section III). Throws std::logic_error inside a
  /// trial (begin_trial).
  void remove_dependency(int u, int v);

  /// Opens a trial: every enable() from now on is journaled so that
  /// rollback() can undo it, at the cost of the moved window (no copy of the
  /// list). Trials nest; returns the mark to pass to the matching rollback().
  /// Used by DQR's path search to check a path's turns together without
  /// copying the list per label (section IV-A design choice 2).
  std::size_t begin_trial();
  /// Undoes every enable() since `mark` (newest first) and closes the trial
  /// opened by the begin_trial() that returned it. Throws std::logic_error
  /// when no trial is open or the mark is not the innermost one.
  void rollback(std::size_t mark);

  /// True when every recorded dependency points upwards and the order is a
  /// permutation of the channels (checked from scratch, O(channels + deps)).
  bool valid() const;

 private:
  std::vector<std::vector<int>> m_succ;  ///< dependencies, per source channel
  std::vector<int> m_pos;                ///< channel -> index
  std::vector<int> m_order;              ///< index -> channel
  std::size_t m_edges = 0;
  /// One journaled enable(): the window [lo, lo + old.size()) of m_order
  /// before it, and whether it recorded u's newest dependency.
  struct Undo {
    int lo = 0;
    std::vector<int> old;
    int u = -1;
    bool added = false;
  };
  std::vector<Undo> m_journal;
  /// channels_to_move's visited marks: channel c is marked when
  /// m_mark[c] == m_stamp (a new stamp per call instead of clearing).
  mutable std::vector<std::uint32_t> m_mark;
  mutable std::uint32_t m_stamp = 0;
  std::vector<int> m_window;          ///< enable()'s scratch
  std::vector<std::size_t> m_trials;  ///< open trials' marks, innermost last
};

}  // namespace ftsim::routing::dqr
