#include "routing_logic/inodes/inode_analyzer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <thread>

#include "common/thread_group.hpp"

namespace ftsim::routing::inodes {

std::uint64_t binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  std::uint64_t r = 1;
  for (int i = 1; i <= k; ++i) r = r * static_cast<std::uint64_t>(n - k + i) / static_cast<std::uint64_t>(i);
  return r;
}

double FaultCountResult::not_tolerated_percent() const {
  return combinations ? 100.0 * static_cast<double>(not_tolerated) / static_cast<double>(combinations) : 0.0;
}

double FaultCountResult::affected_percent() const {
  return pairs ? 100.0 * static_cast<double>(affected) / static_cast<double>(pairs) : 0.0;
}

FaultCountResult& FaultCountResult::operator+=(const FaultCountResult& o) {
  combinations += o.combinations;
  not_tolerated += o.not_tolerated;
  pairs += o.pairs;
  affected += o.affected;
  unroutable += o.unroutable;
  for (std::size_t i = 0; i < by_category.size(); ++i) by_category[i] += o.by_category[i];
  return *this;
}

namespace {

/// min over i < n of a[i] + b[i]: the intermediate-node scan of
/// FaultToleranceAnalyzer::State::recompute, most of an exhaustive run's
/// time. Two builds of one loop: AVX2 (four sums per instruction, chosen at
/// run time when the CPU has it, so the default build stays portable) and
/// plain. Both give the same value.
using MinSum = std::uint64_t (*)(const std::uint64_t* a, const std::uint64_t* b, std::uint32_t n);

std::uint64_t min_sum_plain(const std::uint64_t* a, const std::uint64_t* b, std::uint32_t n) {
  std::uint64_t m = ~0ULL;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t c = a[i] + b[i];
    m = c < m ? c : m;
  }
  return m;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) std::uint64_t min_sum_avx2(const std::uint64_t* a, const std::uint64_t* b,
                                                           std::uint32_t n) {
  std::uint64_t m = ~0ULL;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t c = a[i] + b[i];
    m = c < m ? c : m;
  }
  return m;
}
#endif

MinSum pick_min_sum() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx2")) return min_sum_avx2;
#endif
  return min_sum_plain;
}

}  // namespace

namespace detail {
std::uint64_t min_sum(const std::uint64_t* a, const std::uint64_t* b, std::uint32_t n, bool simd) {
  return simd ? pick_min_sum()(a, b, n) : min_sum_plain(a, b, n);
}
bool min_sum_simd_available() {
  return pick_min_sum() != min_sum_plain;
}
}  // namespace detail

namespace {

struct Candidate {
  LinkMask mask;
  RouteKey key;
};

/// Sorts by key (stable) and drops every candidate whose mask contains the
/// mask of an earlier kept one.
std::vector<Candidate> prune(std::vector<Candidate> c, Preference pref) {
  std::stable_sort(c.begin(), c.end(),
                   [pref](const Candidate& a, const Candidate& b) { return key_less(a.key, b.key, pref); });
  std::vector<Candidate> kept;
  for (const Candidate& x : c) {
    bool dominated = false;
    for (const Candidate& k : kept)
      if (k.mask.subset_of(x.mask)) {
        dominated = true;
        break;
      }
    if (!dominated) kept.push_back(x);
  }
  return kept;
}

}  // namespace

FaultToleranceAnalyzer::FaultToleranceAnalyzer(const KAryNCube& cube, const Mechanism& mech,
                                               const std::vector<LinkId>& candidates)
    : m_cube(cube), m_mech(mech), m_nodes(cube.num_nodes()), m_links(candidates) {
  if (m_links.empty()) {
    m_links.resize(static_cast<std::size_t>(cube.num_links()));
    std::iota(m_links.begin(), m_links.end(), 0);
  }
  if (m_links.size() > 256)
    throw ConfigError(fmt::format(
        "analyze fault-tolerance: {} links of {} may fail; the analyser supports at most 256 (restrict the faults "
        "to a region: --region distance1)",
        m_links.size(), cube.spec()));
  m_bit.assign(static_cast<std::size_t>(cube.num_links()), -1);
  for (std::size_t i = 0; i < m_links.size(); ++i) {
    const LinkId l = m_links[i];
    if (l < 0 || l >= cube.num_links())
      throw ConfigError(fmt::format("link {} does not exist in {} (0..{})", l, cube.spec(), cube.num_links() - 1));
    if (m_bit[static_cast<std::size_t>(l)] >= 0)
      throw ConfigError(fmt::format("link {} is listed twice among the links that may fail", l));
    m_bit[static_cast<std::size_t>(l)] = static_cast<int>(i);
  }
  // Adds link l to a mask when it may fail (links that cannot fail never
  // block an option).
  auto put = [this](LinkMask& m, LinkId l) {
    const int b = m_bit[static_cast<std::size_t>(l)];
    if (b >= 0) m.set(b);
  };
  if (mech.max_intermediates > 3)
    throw ConfigError(fmt::format("mechanism {}: at most 3 intermediate nodes", mech.name()));
  const CubeGeometry geo(cube);
  const bool order = uses_direction_order(mech);
  const int n = m_nodes;
  auto idx = [n](NodeId a, NodeId b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(n) + b; };
  // Minimal-path link sets and deterministic paths of every ordered pair,
  // per smallest allowed direction (the rest after a prefix ending in
  // direction L may only use directions >= L, section 4.3; 0 = no bound).
  const int bounds = mech.misroute && !mech.free_continuation ? geo.directions() : 1;
  std::vector<std::vector<LinkMask>> minimal(static_cast<std::size_t>(bounds), std::vector<LinkMask>(idx(n, 0)));
  std::vector<std::vector<LinkMask>> det = minimal;
  for (int lo = 0; lo < bounds; ++lo)
    for (NodeId a = 0; a < n; ++a)
      for (NodeId b = 0; b < n; ++b) {
        if (a == b || !geo.continues_order(a, b, lo)) continue;
        auto& mm = minimal[static_cast<std::size_t>(lo)][idx(a, b)];
        for (LinkId l : m_links)
          if (geo.on_ordered_minimal_path(l, a, b, lo)) put(mm, l);
        geo.deterministic_path(
            a, b, order, [&](LinkId l) { put(det[static_cast<std::size_t>(lo)][idx(a, b)], l); }, lo);
      }
  constexpr int kUnbounded = 1 << 20;
  m_first.reserve(idx(n, 0) + 1);
  struct Prefix {
    LinkMask mask;
    NodeId end;
    int length;
    int min_dir;  ///< smallest direction the rest may use
  };
  for (NodeId a = 0; a < n; ++a) {
    std::vector<Prefix> prefixes;
    if (mech.misroute)
      geo.for_each_prefix(
          a, kUnbounded,
          [&](const Segment& pre, NodeId end, int len) {
            LinkMask m;
            geo.misroute_walk(a, pre, [&](LinkId l) { put(m, l); });
            prefixes.push_back({m, end, len, rest_min_direction(mech, pre)});
          },
          kNone, mech.misroute_one_per_dimension);
    for (NodeId b = 0; b < n; ++b) {
      m_first.push_back(static_cast<std::uint32_t>(m_options.size()));
      if (a == b) continue;
      std::vector<Candidate> c;
      const int l = geo.distance(a, b);
      c.push_back({minimal[0][idx(a, b)], {l, 0, 0, 0, 0}});
      if (mech.deterministic) c.push_back({det[0][idx(a, b)], {l, 0, 1, 0, 1}});
      for (const Prefix& pre : prefixes) {
        if (!geo.continues_order(pre.end, b, pre.min_dir)) continue;
        const auto lo = static_cast<std::size_t>(pre.min_dir);
        const int len = pre.length + geo.distance(pre.end, b);
        // A prefix may end at b itself: the rest is empty.
        const LinkMask rest = pre.end == b ? LinkMask{} : minimal[lo][idx(pre.end, b)];
        const LinkMask drest = pre.end == b ? LinkMask{} : det[lo][idx(pre.end, b)];
        c.push_back({pre.mask | rest, {len, 0, 0, 1, 1}});
        if (mech.deterministic) c.push_back({pre.mask | drest, {len, 0, 1, 1, 1}});
      }
      for (const Candidate& k : prune(std::move(c), mech.preference))
        m_options.push_back({k.mask, pack_key(k.key, mech.preference)});
    }
  }
  m_first.push_back(static_cast<std::uint32_t>(m_options.size()));
}

/// The incremental evaluation state of one worker: per level k (0 = one
/// subpath, k = at most k intermediate nodes), per ordered pair, the key and
/// link mask of the current best route; level 0 also keeps the option index.
class FaultToleranceAnalyzer::State {
 public:
  /// No route: far above every packed key (40 bits) and small enough that
  /// the sum of two of them does not wrap, so that sums need no branch.
  static constexpr std::uint64_t kNoRoute = 1ULL << 60;
  static constexpr int kUnroutableSlot = kCategories;

  explicit State(const FaultToleranceAnalyzer& a)
      : m_a(a),
        m_n(static_cast<std::uint32_t>(a.m_nodes)),
        m_levels(a.m_mech.max_intermediates + 1),
        m_pref(a.m_mech.preference),
        m_one_intermediate(pack_key(RouteKey{0, 1, 0, 0, 0}, a.m_mech.preference)) {
    const std::size_t pairs = static_cast<std::size_t>(m_n) * m_n;
    m_key.assign(static_cast<std::size_t>(m_levels), std::vector<std::uint64_t>(pairs, kNoRoute));
    m_key_t = m_key;
    m_transposed.resize(pairs);
    for (std::uint32_t p = 0; p < pairs; ++p) m_transposed[p] = (p % m_n) * m_n + p / m_n;
    m_mask.assign(static_cast<std::size_t>(m_levels), std::vector<LinkMask>(pairs));
    m_idx.assign(pairs, 0);
    for (std::uint32_t p = 0; p < pairs; ++p) {
      if (p / m_n == p % m_n) continue;
      set_key(0, p, a.m_options[a.m_first[p]].key);
      m_mask[0][p] = a.m_options[a.m_first[p]].mask;
    }
    for (int k = 1; k < m_levels; ++k)
      for (std::uint32_t p = 0; p < pairs; ++p)
        if (p / m_n != p % m_n) recompute(k, p);
    // Bit offsets of the category's fields in a packed key (slot()).
    m_shift_i = __builtin_ctzll(pack_key(RouteKey{0, 1, 0, 0, 0}, m_pref));
    m_shift_d = __builtin_ctzll(pack_key(RouteKey{0, 0, 1, 0, 0}, m_pref));
    m_shift_m = __builtin_ctzll(pack_key(RouteKey{0, 0, 0, 1, 0}, m_pref));
    for (std::uint32_t p = 0; p < pairs; ++p)
      if (p / m_n != p % m_n) ++m_hist[slot(m_key[top()][p])];
    m_parent.resize(m_n);
    // Per level and link, the pairs whose current route uses the link.
    m_pair_words = (pairs + 63) / 64;
    m_users.assign(static_cast<std::size_t>(m_levels), std::vector<std::uint64_t>(a.m_links.size() * m_pair_words, 0));
    for (int k = 0; k < m_levels; ++k)
      for (std::uint32_t p = 0; p < pairs; ++p) retarget(k, p, LinkMask{}, m_mask[static_cast<std::size_t>(k)][p]);
  }

  std::size_t mark() const { return m_undo.size(); }

  /// Fails candidate bit f (FaultToleranceAnalyzer::m_bit). leaf: no fault
  /// is added before the matching undo_to (the last level of the
  /// enumeration), so the links' user sets are left alone both ways.
  void add_fault(int f, bool leaf = false) {
    m_faults.set(f);
    for (int k = 0; k < m_levels; ++k) {
      auto& keys = m_key[static_cast<std::size_t>(k)];
      auto& masks = m_mask[static_cast<std::size_t>(k)];
      // The pairs whose route uses f. A new route misses every fault, so
      // only the pair being recomputed leaves this set: a copy is enough.
      const std::uint64_t* users =
          m_users[static_cast<std::size_t>(k)].data() + static_cast<std::size_t>(f) * m_pair_words;
      m_scratch.assign(users, users + m_pair_words);
      for (std::uint32_t wi = 0; wi < m_pair_words; ++wi)
        for (std::uint64_t bits = m_scratch[wi]; bits != 0; bits &= bits - 1) {
          const std::uint32_t p = wi * 64 + static_cast<std::uint32_t>(__builtin_ctzll(bits));
          // A leaf needs only the new keys: no later fault reads a mask.
          // Undo records written in place, field by field: a braced
          // temporary is stored in narrow pieces and copied with wide loads
          // that stall on store forwarding (a sixth of the run, perf).
          if (leaf) {
            LeafUndo& u = m_leaf_undo.emplace_back();
            u.level = k;
            u.pair = p;
            u.key = keys[p];
            u.idx = m_idx[p];
          } else {
            Undo& u = m_undo.emplace_back();
            u.level = k;
            u.pair = p;
            u.key = keys[p];
            u.mask = masks[p];
            u.idx = m_idx[p];
          }
          if (k == top()) --m_hist[slot(keys[p])];
          if (k == 0) {
            const std::uint32_t base = m_a.m_first[p];
            const std::uint32_t end = m_a.m_first[p + 1] - base;
            std::uint32_t j = m_idx[p] + 1;
            while (j < end && m_a.m_options[base + j].mask.intersects(m_faults)) ++j;
            m_idx[p] = j;
            set_key(0, p, j < end ? m_a.m_options[base + j].key : kNoRoute);
            if (!leaf) masks[p] = j < end ? m_a.m_options[base + j].mask : LinkMask{};
          } else {
            recompute(k, p, !leaf);
          }
          if (k == top()) ++m_hist[slot(keys[p])];
          if (!leaf) retarget(k, p, m_undo.back().mask, masks[p]);
        }
    }
  }

  void undo_to(std::size_t mark, int f, bool leaf = false) {
    if (leaf) {  // everything the leaf changed
      while (!m_leaf_undo.empty()) {
        const LeafUndo& u = m_leaf_undo.back();
        const std::uint64_t key = m_key[static_cast<std::size_t>(u.level)][u.pair];
        if (u.level == top()) {
          --m_hist[slot(key)];
          ++m_hist[slot(u.key)];
        }
        set_key(u.level, u.pair, u.key);
        if (u.level == 0) m_idx[u.pair] = u.idx;
        m_leaf_undo.pop_back();
      }
    }
    while (m_undo.size() > mark) {
      const Undo& u = m_undo.back();
      if (u.level == top()) {
        --m_hist[slot(m_key[static_cast<std::size_t>(u.level)][u.pair])];
        ++m_hist[slot(u.key)];
      }
      set_key(u.level, u.pair, u.key);
      if (!leaf) retarget(u.level, u.pair, m_mask[static_cast<std::size_t>(u.level)][u.pair], u.mask);
      m_mask[static_cast<std::size_t>(u.level)][u.pair] = u.mask;
      if (u.level == 0) m_idx[u.pair] = u.idx;
      m_undo.pop_back();
    }
    m_faults.w[static_cast<std::size_t>(f) >> 6] &= ~(1ULL << (f & 63));
  }

  /// Adds this combination to `r`.
  void record(FaultCountResult& r) {
    r.combinations += 1;
    const std::uint64_t total = static_cast<std::uint64_t>(m_n) * (m_n - 1);
    std::uint64_t unroutable = static_cast<std::uint64_t>(m_hist[kUnroutableSlot]);
    std::uint64_t disconnected = 0;
    if (unroutable > 0) {
      components();
      const auto& keys = m_key[static_cast<std::size_t>(top())];
      for (std::uint32_t p = 0; p < keys.size(); ++p)
        if (keys[p] == kNoRoute && p / m_n != p % m_n &&
            find(static_cast<NodeId>(p / m_n)) != find(static_cast<NodeId>(p % m_n)))
          ++disconnected;
      unroutable -= disconnected;
    }
    r.pairs += total - disconnected;
    r.affected += total - static_cast<std::uint64_t>(m_hist[0]) - disconnected;
    r.unroutable += unroutable;
    if (unroutable > 0) r.not_tolerated += 1;
    for (int c = 1; c < kCategories; ++c)
      r.by_category[static_cast<std::size_t>(c)] += static_cast<std::uint64_t>(m_hist[static_cast<std::size_t>(c)]);
  }

  std::uint64_t key(std::uint32_t p) const { return m_key[static_cast<std::size_t>(top())][p]; }
  Preference preference() const { return m_pref; }
  bool connected(NodeId s, NodeId d) {
    components();
    return find(s) == find(d);
  }

 private:
  struct Undo {
    int level;
    std::uint32_t pair;
    std::uint64_t key;
    LinkMask mask;
    std::uint32_t idx;
  };
  struct LeafUndo {
    int level;
    std::uint32_t pair;
    std::uint64_t key;
    std::uint32_t idx;
  };

  int top() const { return m_levels - 1; }
  /// Writes pair p's level-k key and its transposed copy.
  void set_key(int k, std::uint32_t p, std::uint64_t key) {
    m_key[static_cast<std::size_t>(k)][p] = key;
    m_key_t[static_cast<std::size_t>(k)][m_transposed[p]] = key;
  }
  /// category_index of a packed key, read from its fields (each below 256).
  std::size_t slot(std::uint64_t key) const {
    if (key == kNoRoute) return static_cast<std::size_t>(kUnroutableSlot);
    const std::uint64_t i = key >> m_shift_i & 0xff;
    return static_cast<std::size_t>((i > 3 ? 3 : i) * 4 + ((key >> m_shift_d & 0xff) != 0 ? 2 : 0) +
                                    ((key >> m_shift_m & 0xff) != 0 ? 1 : 0));
  }

  /// Pair p's route at level k changed from `from` to `to`: moves p between
  /// the links' user sets.
  void retarget(int k, std::uint32_t p, const LinkMask& from, const LinkMask& to) {
    std::uint64_t* users = m_users[static_cast<std::size_t>(k)].data();
    const std::size_t word = p >> 6;
    const std::uint64_t bit = 1ULL << (p & 63);
    for (std::size_t i = 0; i < from.w.size(); ++i) {
      for (std::uint64_t gone = from.w[i] & ~to.w[i]; gone != 0; gone &= gone - 1)
        users[(i * 64 + static_cast<std::size_t>(__builtin_ctzll(gone))) * m_pair_words + word] &= ~bit;
      for (std::uint64_t came = to.w[i] & ~from.w[i]; came != 0; came &= came - 1)
        users[(i * 64 + static_cast<std::size_t>(__builtin_ctzll(came))) * m_pair_words + word] |= bit;
    }
  }

  /// with_mask false: the key only (a leaf of the enumeration).
  void recompute(int k, std::uint32_t p, bool with_mask = true) {
    const std::uint32_t a = p / m_n, d = p % m_n;
    // head[b] = seg(a, b), tail[b * n] = best_{k-1}(b, d). The diagonal
    // pairs hold kNoRoute, so b == a and b == d need no test.
    // tail is column d of level k-1, read from its transposed copy so that
    // the scan is contiguous (and vectorised).
    const std::uint64_t* head = m_key[0].data() + static_cast<std::size_t>(a) * m_n;
    const std::uint64_t* tail = m_key_t[static_cast<std::size_t>(k - 1)].data() + static_cast<std::size_t>(d) * m_n;
    const std::uint64_t via = m_min_sum(head, tail, m_n);
    const std::uint64_t direct = m_key[0][p];
    if (via >= kNoRoute || via + m_one_intermediate >= direct) {  // the direct subpath (or none) stays best
      set_key(k, p, direct);
      if (with_mask) m_mask[static_cast<std::size_t>(k)][p] = direct == kNoRoute ? LinkMask{} : m_mask[0][p];
      return;
    }
    set_key(k, p, via + m_one_intermediate);
    if (!with_mask) return;
    std::uint32_t best_b = 0;  // the first intermediate node of the best key
    while (head[best_b] + tail[best_b] != via) ++best_b;
    m_mask[static_cast<std::size_t>(k)][p] =
        m_mask[0][a * m_n + best_b] | m_mask[static_cast<std::size_t>(k - 1)][best_b * m_n + d];
  }

  void components() {
    std::iota(m_parent.begin(), m_parent.end(), 0);
    for (const Link& lk : m_a.m_cube.links()) {
      const int b = m_a.m_bit[static_cast<std::size_t>(lk.id)];
      if (b >= 0 && m_faults.test(b)) continue;
      const NodeId x = find(lk.a), y = find(lk.b);
      if (x != y) m_parent[static_cast<std::size_t>(x)] = y;
    }
  }
  NodeId find(NodeId x) {
    while (m_parent[static_cast<std::size_t>(x)] != x) {
      auto& px = m_parent[static_cast<std::size_t>(x)];
      px = m_parent[static_cast<std::size_t>(px)];
      x = px;
    }
    return x;
  }

  const FaultToleranceAnalyzer& m_a;
  std::uint32_t m_n;
  int m_levels;
  Preference m_pref;
  std::uint64_t m_one_intermediate;  ///< pack_key of one intermediate node
  std::vector<std::vector<std::uint64_t>> m_key;
  /// m_key transposed per level (m_key_t[k][d * n + a] = m_key[k][a * n + d]),
  /// kept by set_key: the tails recompute scans are contiguous rows here.
  std::vector<std::vector<std::uint64_t>> m_key_t;
  std::vector<std::uint32_t> m_transposed;  ///< pair a * n + d -> d * n + a
  MinSum m_min_sum = pick_min_sum();
  std::vector<std::vector<LinkMask>> m_mask;
  std::vector<std::uint32_t> m_idx;
  std::array<std::int64_t, kCategories + 1> m_hist{};
  std::vector<Undo> m_undo;
  std::vector<LeafUndo> m_leaf_undo;
  LinkMask m_faults;
  std::vector<NodeId> m_parent;
  int m_shift_i = 0, m_shift_d = 0, m_shift_m = 0;  ///< slot(): bit offsets of three key fields
  std::uint32_t m_pair_words = 0;                   ///< 64-bit words of a set of pairs
  /// Per level: per link, the set of pairs (bit p) whose current route uses it.
  std::vector<std::vector<std::uint64_t>> m_users;
  std::vector<std::uint64_t> m_scratch;
};

std::vector<PairOutcome> FaultToleranceAnalyzer::evaluate(const std::vector<LinkId>& faults) const {
  State st(*this);
  for (LinkId f : faults) {
    st.add_fault(bit_of(f));
  }
  const auto n = static_cast<std::uint32_t>(m_nodes);
  std::vector<PairOutcome> out(static_cast<std::size_t>(n) * n);
  for (std::uint32_t p = 0; p < out.size(); ++p) {
    if (p / n == p % n) continue;
    const std::uint64_t k = st.key(p);
    if (k != State::kNoRoute)
      out[p].key = unpack_key(k, st.preference());
    else
      out[p].status = st.connected(static_cast<NodeId>(p / n), static_cast<NodeId>(p % n))
                          ? PairOutcome::Status::kUnroutable
                          : PairOutcome::Status::kDisconnected;
  }
  return out;
}

int FaultToleranceAnalyzer::bit_of(LinkId l) const {
  if (l < 0 || l >= m_cube.num_links())
    throw ConfigError(fmt::format("link {} does not exist in {} (0..{})", l, m_cube.spec(), m_cube.num_links() - 1));
  const int b = m_bit[static_cast<std::size_t>(l)];
  if (b < 0)
    throw ConfigError(fmt::format("link {} of {} is not among the {} links this analysis lets fail", l, m_cube.spec(),
                                  m_links.size()));
  return b;
}

namespace {

/// Runs task(i, worker state, result rows, progress counter) for i = first..
/// last-1 on `threads` workers, each with its own state from make_state(),
/// merging the per-worker rows.
template <class MakeState, class Task>
std::vector<FaultCountResult> run_parallel(std::size_t first, std::size_t last, int threads, int fmin, int fmax,
                                           std::uint64_t total, const ProgressFn& progress, const MakeState& make_state,
                                           const Task& task) {
  std::atomic<std::size_t> next{first};
  std::atomic<std::uint64_t> done{0};
  threads = static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(std::max(1, threads)), std::max<std::size_t>(1, last - first)));
  std::atomic<int> running{threads};
  std::vector<std::vector<FaultCountResult>> per(static_cast<std::size_t>(threads),
                                                 std::vector<FaultCountResult>(static_cast<std::size_t>(fmax + 1)));
  ftsim::ThreadGroup pool;
  for (int t = 0; t < threads; ++t)
    pool.spawn([&, t] {
      // `running` falls even when a task throws, or the progress loop below
      // would wait for ever; join() then rethrows.
      struct Finished {
        std::atomic<int>& n;
        ~Finished() { --n; }
      } finished{running};
      auto st = make_state();
      for (std::size_t i = next++; i < last; i = next++) task(i, st, per[static_cast<std::size_t>(t)], done);
    });
  if (progress) {
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      progress(done.load(), total);
    }
  }
  pool.join();
  if (progress) progress(done.load(), total);
  std::vector<FaultCountResult> rows;
  for (int f = fmin; f <= fmax; ++f) {
    FaultCountResult r;
    r.faults = f;
    for (const auto& p : per) r += p[static_cast<std::size_t>(f)];
    rows.push_back(r);
  }
  return rows;
}

constexpr long kSamplesPerTask = 256;

}  // namespace

bool FaultToleranceAnalyzer::translation_symmetric() const {
  if (static_cast<int>(m_links.size()) != m_cube.num_links()) return false;
  for (int d = 0; d < m_cube.dimensions(); ++d)
    if (!m_cube.torus() || m_cube.radix_of(d) < 3) return false;
  return true;
}

FaultToleranceAnalyzer::Plan FaultToleranceAnalyzer::plan_exhaustive_symmetric(int fmin, int fmax) const {
  if (!translation_symmetric())
    throw ConfigError(
        fmt::format("{}: the translation-symmetric enumeration needs a torus with k >= 3 in every "
                    "dimension and every link a candidate",
                    m_cube.spec()));
  Plan out;
  for (int c = 0; c < m_cube.dimensions(); ++c) {
    const LinkId rep = m_cube.peer(0, KAryNCube::port_of(c, true)).link;
    std::vector<LinkId> order{rep};
    for (LinkId l : m_links)
      if (l != rep) order.push_back(l);
    Plan p = plan_exhaustive(fmin, fmax, order);
    if (out.class_bits.empty()) {
      out = p;
      out.prefixes.clear();
      out.combinations = 0;
    }
    const auto cls = static_cast<std::uint8_t>(out.class_bits.size());
    out.class_bits.push_back(p.bits);
    for (auto& pre : p.prefixes)
      if (pre.front() == 0) {
        out.prefixes.push_back(std::move(pre));
        out.task_class.push_back(cls);
      }
  }
  out.bits = out.class_bits.front();
  out.orbit = m_cube.num_nodes();
  for (std::size_t t = 0; t < out.tasks(); ++t) out.combinations += out.task_combinations(t);
  return out;
}

void FaultToleranceAnalyzer::unfold(const Plan& plan, std::vector<FaultCountResult>& rows) {
  if (plan.orbit == 0) return;
  const auto n = static_cast<std::uint64_t>(plan.orbit);
  for (auto& r : rows) {
    const auto f = static_cast<std::uint64_t>(r.faults);
    auto scale = [&](std::uint64_t& v) {
      if ((v * n) % f != 0)
        throw std::logic_error(fmt::format("symmetric enumeration: {} x {} not divisible by {}", v, n, f));
      v = v * n / f;
    };
    scale(r.combinations);
    scale(r.not_tolerated);
    scale(r.pairs);
    scale(r.affected);
    scale(r.unroutable);
    for (auto& c : r.by_category) scale(c);
  }
}

std::size_t FaultToleranceAnalyzer::Plan::tasks() const {
  if (kind == Kind::kExhaustive) return prefixes.size();
  const long per_count = (samples + kSamplesPerTask - 1) / kSamplesPerTask;
  return static_cast<std::size_t>(per_count * (fmax - fmin + 1));
}

std::uint64_t FaultToleranceAnalyzer::Plan::task_combinations(std::size_t t) const {
  if (kind == Kind::kSampled) {
    const long per_count = (samples + kSamplesPerTask - 1) / kSamplesPerTask;
    const long from = static_cast<long>(t % static_cast<std::size_t>(per_count)) * kSamplesPerTask;
    return static_cast<std::uint64_t>(std::min(samples, from + kSamplesPerTask) - from);
  }
  const auto& pre = prefixes[t];
  const int len = static_cast<int>(pre.size());
  if (len < depth) return 1;  // a shorter combination on its own
  const int rest = static_cast<int>(bits.size()) - 1 - pre.back();
  std::uint64_t n = 0;
  for (int f = std::max(fmin, len); f <= fmax; ++f) n += binomial(rest, f - len);
  return n;
}

FaultToleranceAnalyzer::Plan FaultToleranceAnalyzer::plan_exhaustive(int fmin, int fmax,
                                                                     const std::vector<LinkId>& links) const {
  Plan plan;
  plan.kind = Plan::Kind::kExhaustive;
  plan.fmin = fmin;
  plan.fmax = fmax;
  if (links.empty()) {
    plan.bits.resize(m_links.size());
    std::iota(plan.bits.begin(), plan.bits.end(), 0);
  } else {
    for (LinkId l : links) plan.bits.push_back(bit_of(l));
  }
  const int m = static_cast<int>(plan.bits.size());
  if (fmin < 1 || fmax < fmin || fmax > m)
    throw ConfigError(fmt::format("--faults {}..{}: allowed 1 <= A <= B <= {} (links to choose from)", fmin, fmax, m));
  for (int f = fmin; f <= fmax; ++f) plan.combinations += binomial(m, f);
  // Prefix depth: the deepest that keeps the task list within 20,000
  // (enough for hundreds of ranks to balance, cheap to hand out), and at
  // least two levels short of fmax, so that the faults near the leaves are
  // added once per parent combination, not once per combination.
  plan.depth = 1;
  std::uint64_t count = binomial(m, 1);
  while (plan.depth < fmax - 2 && count + binomial(m, plan.depth + 1) <= 20000) count += binomial(m, ++plan.depth);
  // Tasks: every combination of length < depth on its own (when it is
  // counted, length >= fmin), then every prefix of length depth with all its
  // extensions. Together they cover each combination of fmin..fmax exactly
  // once. The extended prefixes are listed first, lexicographically (the
  // earliest carry the most extensions).
  std::vector<std::uint8_t> cur;
  std::vector<std::vector<std::uint8_t>> shorter;
  std::function<void(int)> walk = [&](int start) {
    for (int i = start; i < m; ++i) {
      cur.push_back(static_cast<std::uint8_t>(i));
      const int len = static_cast<int>(cur.size());
      if (len == plan.depth)
        plan.prefixes.push_back(cur);
      else {
        if (len >= fmin) shorter.push_back(cur);
        walk(i + 1);
      }
      cur.pop_back();
    }
  };
  walk(0);
  plan.prefixes.insert(plan.prefixes.end(), shorter.begin(), shorter.end());
  return plan;
}

FaultToleranceAnalyzer::Plan FaultToleranceAnalyzer::plan_sampled(int fmin, int fmax, long samples,
                                                                  std::uint64_t seed) const {
  const int m = static_cast<int>(m_links.size());
  if (fmin < 1 || fmax < fmin || fmax > m)
    throw ConfigError(fmt::format("--faults {}..{}: allowed 1 <= A <= B <= {} (links)", fmin, fmax, m));
  if (samples < 1) throw ConfigError(fmt::format("--samples {}: allowed >= 1", samples));
  Plan plan;
  plan.kind = Plan::Kind::kSampled;
  plan.fmin = fmin;
  plan.fmax = fmax;
  plan.samples = samples;
  plan.seed = seed;
  plan.combinations = static_cast<std::uint64_t>(samples) * static_cast<std::uint64_t>(fmax - fmin + 1);
  return plan;
}

std::vector<FaultCountResult> FaultToleranceAnalyzer::run(const Plan& plan, std::size_t first, std::size_t last,
                                                          int threads, const ProgressFn& progress) const {
  last = std::min(last, plan.tasks());
  first = std::min(first, last);
  const int fmin = plan.fmin, fmax = plan.fmax;
  auto make_state = [this] { return State(*this); };
  if (plan.kind == Plan::Kind::kExhaustive) {
    const int m = static_cast<int>(plan.bits.size());
    std::uint64_t total = 0;
    for (std::size_t t = first; t < last; ++t) total += plan.task_combinations(t);
    return run_parallel(
        first, last, threads, fmin, fmax, total, progress, make_state,
        [&](std::size_t t, State& st, std::vector<FaultCountResult>& rows, std::atomic<std::uint64_t>& done) {
          const auto& bits = plan.class_bits.empty() ? plan.bits : plan.class_bits[plan.task_class[t]];
          const auto& pre = plan.prefixes[t];
          const int len = static_cast<int>(pre.size());
          std::uint64_t local = 0;
          std::function<void(int, int)> rec = [&](int start, int depth) {
            for (int i = start; i < m; ++i) {
              const std::size_t mk = st.mark();
              const bool leaf = depth + 1 == fmax;
              const int b = bits[static_cast<std::size_t>(i)];
              st.add_fault(b, leaf);
              if (depth + 1 >= fmin) {
                st.record(rows[static_cast<std::size_t>(depth + 1)]);
                if (++local == 4096) {
                  done += local;
                  local = 0;
                }
              }
              if (!leaf) rec(i + 1, depth + 1);
              st.undo_to(mk, b, leaf);
            }
          };
          // The prefix (the last fault is a leaf when nothing extends it).
          const bool extends = len == plan.depth && len < fmax;
          std::vector<std::size_t> marks;
          for (int j = 0; j < len; ++j) {
            marks.push_back(st.mark());
            st.add_fault(bits[pre[static_cast<std::size_t>(j)]], j == len - 1 && !extends);
          }
          if (len >= fmin) {
            st.record(rows[static_cast<std::size_t>(len)]);
            ++local;
          }
          if (extends) rec(pre.back() + 1, len);
          for (int j = len - 1; j >= 0; --j)
            st.undo_to(marks[static_cast<std::size_t>(j)], bits[pre[static_cast<std::size_t>(j)]],
                       j == len - 1 && !extends);
          done += local;
        });
  }
  const long per_count = (plan.samples + kSamplesPerTask - 1) / kSamplesPerTask;
  std::uint64_t total = 0;
  for (std::size_t t = first; t < last; ++t) total += plan.task_combinations(t);
  const int m = static_cast<int>(m_links.size());
  return run_parallel(
      first, last, threads, fmin, fmax, total, progress, make_state,
      [&](std::size_t t, State& st, std::vector<FaultCountResult>& rows, std::atomic<std::uint64_t>& done) {
        const int f = fmin + static_cast<int>(t / static_cast<std::size_t>(per_count));
        const long from = static_cast<long>(t % static_cast<std::size_t>(per_count)) * kSamplesPerTask;
        const long to = std::min(plan.samples, from + kSamplesPerTask);
        std::vector<int> all(static_cast<std::size_t>(m));
        for (long s = from; s < to; ++s) {
          std::seed_seq sq{static_cast<std::uint32_t>(plan.seed), static_cast<std::uint32_t>(plan.seed >> 32),
                           static_cast<std::uint32_t>(f), static_cast<std::uint32_t>(s)};
          std::mt19937_64 rng(sq);
          std::iota(all.begin(), all.end(), 0);
          for (int i = 0; i < f; ++i) {
            std::uniform_int_distribution<int> pick(i, m - 1);
            std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(pick(rng))]);
          }
          std::vector<std::size_t> marks;
          for (int i = 0; i < f; ++i) {
            marks.push_back(st.mark());
            st.add_fault(all[static_cast<std::size_t>(i)], i == f - 1);
          }
          st.record(rows[static_cast<std::size_t>(f)]);
          for (int i = f - 1; i >= 0; --i)
            st.undo_to(marks[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(i)], i == f - 1);
        }
        done += static_cast<std::uint64_t>(to - from);
      });
}

std::vector<FaultCountResult> FaultToleranceAnalyzer::exhaustive(int fmin, int fmax, const std::vector<LinkId>& links,
                                                                 int threads, const ProgressFn& progress) const {
  const Plan plan = plan_exhaustive(fmin, fmax, links);
  return run(plan, 0, plan.tasks(), threads, progress);
}

std::vector<FaultCountResult> FaultToleranceAnalyzer::sampled(int fmin, int fmax, long samples, std::uint64_t seed,
                                                              int threads, const ProgressFn& progress) const {
  const Plan plan = plan_sampled(fmin, fmax, samples, seed);
  return run(plan, 0, plan.tasks(), threads, progress);
}

std::vector<LinkId> FaultToleranceAnalyzer::distance1_region(const KAryNCube& cube, NodeId center) {
  if (center < 0 || center >= cube.num_nodes())
    throw ConfigError(fmt::format("region center {} out of range 0..{}", center, cube.num_nodes() - 1));
  const CubeGeometry geo(cube);
  std::vector<LinkId> out;
  for (const Link& lk : cube.links())
    if (geo.distance(center, lk.a) <= 1 || geo.distance(center, lk.b) <= 1) out.push_back(lk.id);
  return out;
}

}  // namespace ftsim::routing::inodes
