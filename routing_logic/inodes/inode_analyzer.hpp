// Static fault-tolerance analyser for intermediate nodes, disabled adaptivity
// and misrouting (the `ftsim analyze fault-tolerance` engine). Pure C++.
// Source: intermediate-nodes-direct-networks.txt, section 5.1 (fault analysis
// models) and Table 3 (share of affected paths per mechanism).
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "routing_logic/inodes/inode_routes.hpp"

namespace ftsim::routing::inodes {

/// Set of at most 256 links (bits: the analyser's candidate links).
struct LinkMask {
  std::array<std::uint64_t, 4> w{};
  void set(LinkId l) { w[static_cast<std::size_t>(l) >> 6] |= 1ULL << (l & 63); }
  bool test(LinkId l) const { return (w[static_cast<std::size_t>(l) >> 6] >> (l & 63)) & 1U; }
  bool intersects(const LinkMask& o) const {
    return ((w[0] & o.w[0]) | (w[1] & o.w[1]) | (w[2] & o.w[2]) | (w[3] & o.w[3])) != 0;
  }
  bool subset_of(const LinkMask& o) const {
    return ((w[0] & ~o.w[0]) | (w[1] & ~o.w[1]) | (w[2] & ~o.w[2]) | (w[3] & ~o.w[3])) == 0;
  }
  LinkMask operator|(const LinkMask& o) const {
    LinkMask m;
    for (std::size_t i = 0; i < 4; ++i) m.w[i] = w[i] | o.w[i];
    return m;
  }
};

/// Outcome for one ordered pair under one fault combination.
struct PairOutcome {
  enum class Status : std::uint8_t { kRouted, kUnroutable, kDisconnected };
  Status status = Status::kRouted;
  RouteKey key;  ///< preferred fault-free route (kRouted only)
};

/// Totals for one fault count. Pairs counted: every ordered pair (s, d),
/// s != d, whose nodes are still connected in the faulty network (pairs that
/// the faults physically disconnect are excluded, section 5.1), summed over
/// the analysed combinations. A pair is affected when some minimal path of
/// the fault-free network crosses a fault, i.e. plain adaptive routing could
/// meet it.
struct FaultCountResult {
  int faults = 0;
  std::uint64_t combinations = 0;
  std::uint64_t not_tolerated = 0;                       ///< combinations with an unroutable connected pair
  std::uint64_t pairs = 0;                               ///< pairs counted
  std::uint64_t affected = 0;                            ///< affected pairs (routed or not)
  std::uint64_t unroutable = 0;                          ///< affected connected pairs without a fault-free route
  std::array<std::uint64_t, kCategories> by_category{};  ///< affected and routed, per category_index
  double not_tolerated_percent() const;
  double affected_percent() const;
  FaultCountResult& operator+=(const FaultCountResult& o);
};

/// Progress callback: combinations done so far and in total.
using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// Evaluation model. Per ordered pair (a, b), the subpath options of the
/// mechanism (adaptive, deterministic, with a misrouting prefix) as link
/// masks sorted by RouteKey under the mechanism's preference; an option
/// whose mask contains that of a
/// preferred option is dropped (it can never be the first fault-free one).
/// Under a fault set a subpath's choice is its first option that misses every
/// fault. Because RouteKey order is lexicographic and additive and the two
/// parts of a route are clear independently, the best route with at most k
/// intermediate nodes is
///   best_k(a, d) = min(seg(a, d), min_b seg(a, b) + best_{k-1}(b, d) + one I).
/// This is Theorem 1 (k = 1: the intermediate node in T_j, T_RS and T_D with
/// the smallest j, where "reachable" is "the subpath option misses every
/// fault"), Theorem 2 and its T_Dz^k sets for IxN (best_{k-1}(b, d) is b's
/// membership in T_D(k-1) with the smallest extra length), and Corollary 1 when
/// the subpath options include the deterministic path (D, on either or both
/// subpaths); misrouting adds the prefixed options (section 4.3) whose rest
/// continues the direction order (CubeGeometry::continues_order; any rest
/// with Mfree). Keys are packed in the order of the mechanism's Preference,
/// which keeps the recursion exact for every preference (lexicographic and
/// additive).
/// Faults are added one at a time along a depth-first enumeration of the
/// combinations; a pair is recomputed only when the new fault lies on its
/// current choice (otherwise that choice stays optimal), and every change is
/// undone on the way back.
class FaultToleranceAnalyzer {
 public:
  /// `candidates`: the links that may fail (empty: every link). Link masks
  /// keep only these links, one bit each in candidate order, so a network of
  /// any size can be analysed as long as at most 256 links may fail (the
  /// distance-1 region of a 5x5x5 torus: 36 of its 375 links). An option
  /// whose candidate links contain those of a preferred option is dropped,
  /// exactly as over all links: no fault set among the candidates can clear
  /// it without clearing the preferred one.
  /// Throws ConfigError when more than 256 links may fail, for a candidate
  /// that is not a link or is listed twice, and when the mechanism needs more
  /// than 3 intermediate nodes.
  FaultToleranceAnalyzer(const KAryNCube& cube, const Mechanism& mech, const std::vector<LinkId>& candidates = {});

  const KAryNCube& cube() const { return m_cube; }
  const Mechanism& mechanism() const { return m_mech; }
  /// The links that may fail, in bit order.
  const std::vector<LinkId>& candidates() const { return m_links; }
  /// Subpath options kept over all pairs (after dropping dominated ones).
  std::size_t option_count() const { return m_options.size(); }

  /// Outcome per ordered pair, index s * nodes + d (s == d entries are kRouted
  /// with a zero key). Throws ConfigError for a fault that is not a candidate.
  std::vector<PairOutcome> evaluate(const std::vector<LinkId>& faults) const;

  /// Every combination of `f` faults among `links` (all candidates when
  /// empty; otherwise each must be a candidate), for f = fmin..fmax. Uses
  /// `threads` threads; results do not depend on it.
  std::vector<FaultCountResult> exhaustive(int fmin, int fmax, const std::vector<LinkId>& links, int threads,
                                           const ProgressFn& progress) const;
  /// `samples` random combinations of the candidates per fault count, drawn
  /// from a generator seeded by (seed, faults, sample index).
  std::vector<FaultCountResult> sampled(int fmin, int fmax, long samples, std::uint64_t seed, int threads,
                                        const ProgressFn& progress) const;

  /// An analysis split into independent tasks, for spreading it over
  /// processes (MPI ranks). Running every task exactly once, in any grouping
  /// and order, and summing the rows gives exhaustive() / sampled() exactly:
  /// the rows are integer counts. Exhaustive tasks are prefixes of the
  /// lexicographic enumeration (a prefix of `depth` candidates and all its
  /// extensions, or a shorter combination on its own), ordered from the
  /// largest down so that dynamic dispatch balances; sampled tasks are runs
  /// of 256 samples of one fault count.
  struct Plan {
    enum class Kind { kExhaustive, kSampled } kind = Kind::kExhaustive;
    int fmin = 1, fmax = 1;
    std::vector<int> bits;                            ///< exhaustive: the links to choose from, as candidate bits
    std::vector<std::vector<std::uint8_t>> prefixes;  ///< exhaustive: per task, indices into `bits`
    int depth = 1;                                    ///< exhaustive: prefixes of this length extend to fmax
    long samples = 0;                                 ///< sampled: per fault count
    std::uint64_t seed = 0;                           ///< sampled
    std::uint64_t combinations = 0;                   ///< over all tasks
    /// Symmetric exhaustive plan (plan_exhaustive_symmetric): per task, the
    /// class whose candidate order `class_bits` it enumerates; `orbit` links
    /// per class (0: a plain plan).
    std::vector<std::vector<int>> class_bits;
    std::vector<std::uint8_t> task_class;
    int orbit = 0;
    std::size_t tasks() const;
    /// Combinations task t evaluates (its cost, for balancing).
    std::uint64_t task_combinations(std::size_t t) const;
  };
  /// Throws ConfigError like exhaustive() / sampled().
  Plan plan_exhaustive(int fmin, int fmax, const std::vector<LinkId>& links) const;
  Plan plan_sampled(int fmin, int fmax, long samples, std::uint64_t seed) const;
  /// The exhaustive analysis of every link of a torus (k >= 3 in every
  /// dimension) by its translation symmetry (issue 54): a torus translation
  /// maps fault sets to fault sets with the same outcome, and each
  /// dimension's links form one orbit of N = nodes links. Counting, over the
  /// f-fault sets S, the pairs (S, l in S): sum_S g(S) f = sum over dimensions
  /// c of N sum_{S containing L_c} g(S), where L_c is node 0's + link in c. So
  /// the plan enumerates only the sets containing some L_c (L_c first, the
  /// rest among all other links), a share f / N of them per class, and
  /// unfold() scales the summed rows by N / f, exactly (integers). Throws
  /// ConfigError for a mesh, a radix below 3, or a candidate restriction.
  Plan plan_exhaustive_symmetric(int fmin, int fmax) const;
  /// True when plan_exhaustive_symmetric applies (a torus with k >= 3, every
  /// link a candidate).
  bool translation_symmetric() const;
  /// Scales the rows of a symmetric plan (summed over all its tasks) to the
  /// totals of the plain enumeration; nothing for a plain plan.
  static void unfold(const Plan& plan, std::vector<FaultCountResult>& rows);
  /// Runs tasks [first, last) of `plan` on `threads` threads; one row per
  /// fault count fmin..fmax. `progress` gets the combinations of these tasks.
  std::vector<FaultCountResult> run(const Plan& plan, std::size_t first, std::size_t last, int threads,
                                    const ProgressFn& progress) const;

  /// The links of the "distance 1" region around `center` (section 5.1.1):
  /// every link of a node at distance <= 1 from it (36 in a large 3-D torus,
  /// 33 in the 3x3x3 torus). Throws ConfigError for a node out of range.
  static std::vector<LinkId> distance1_region(const KAryNCube& cube, NodeId center);
  std::vector<LinkId> distance1_region(NodeId center) const { return distance1_region(m_cube, center); }

 private:
  struct Option {
    LinkMask mask;
    std::uint64_t key;  ///< packed RouteKey (see pack_key)
  };
  class State;
  friend class State;
  /// Candidate bit of link l; throws ConfigError when l cannot fail here.
  int bit_of(LinkId l) const;

  const KAryNCube& m_cube;
  Mechanism m_mech;
  int m_nodes = 0;
  std::vector<LinkId> m_links;  ///< candidate links, bit order
  std::vector<int> m_bit;       ///< per link: its bit, -1 when it cannot fail
  std::vector<Option> m_options;
  std::vector<std::uint32_t> m_first;  ///< per pair index: first option; size pairs + 1
};

/// RouteKey packed into 64 bits, 8 bits per field in the order preference
/// `p` compares them, so that integer order and addition match the key's
/// (fields below 256; a route has at most four subpaths, so the counts stay
/// below 5).
inline std::uint64_t pack_key(const RouteKey& k, Preference p) {
  std::uint64_t v = 0;
  for (int f : k.ordered(p)) v = v << 8 | static_cast<std::uint64_t>(f);
  return v;
}
inline RouteKey unpack_key(std::uint64_t v, Preference p) {
  std::array<int, 5> f{};
  for (int i = 4; i >= 0; --i, v >>= 8) f[static_cast<std::size_t>(i)] = static_cast<int>(v & 0xff);
  return RouteKey::from_ordered(f, p);
}

/// Number of combinations C(n, k) as a double-free integer (k <= 20).
std::uint64_t binomial(int n, int k);

namespace detail {
/// min over i < n of a[i] + b[i] (n >= 1; sums must not wrap), the scan
/// over intermediate nodes of the exhaustive analysis. simd: the AVX2 build
/// when the CPU has it (min_sum_simd_available()), else the plain loop; both
/// give the same value (tests/unit/test_inodes.cpp).
std::uint64_t min_sum(const std::uint64_t* a, const std::uint64_t* b, std::uint32_t n, bool simd);
bool min_sum_simd_available();
}  // namespace detail

}  // namespace ftsim::routing::inodes
