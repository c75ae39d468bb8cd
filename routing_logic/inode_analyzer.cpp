#include "routing_logic/inode_analyzer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>

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

struct Candidate {
  LinkMask mask;
  RouteKey key;
};

/// Sorts by key (stable) and drops every candidate whose mask contains the
/// mask of an earlier kept one.
std::vector<Candidate> prune(std::vector<Candidate> c) {
  std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) { return a.key < b.key; });
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

FaultToleranceAnalyzer::FaultToleranceAnalyzer(const KAryNCube& cube, const Mechanism& mech)
    : m_cube(cube), m_mech(mech), m_nodes(cube.num_nodes()) {
  if (cube.num_links() > 256)
    throw ConfigError(fmt::format("analyze fault-tolerance: {} has {} links; the analyser supports at most 256",
                                  cube.spec(), cube.num_links()));
  if (mech.max_intermediates > 3)
    throw ConfigError(fmt::format("mechanism {}: at most 3 intermediate nodes", mech.name()));
  const CubeGeometry geo(cube);
  const bool order = uses_direction_order(mech);
  const int n = m_nodes;
  auto idx = [n](NodeId a, NodeId b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(n) + b; };
  auto add_links = [](LinkMask& m, LinkId l) { m.set(l); };
  // Minimal-path link sets and deterministic paths of every ordered pair.
  std::vector<LinkMask> minimal(idx(n, 0)), det(idx(n, 0));
  for (NodeId a = 0; a < n; ++a)
    for (NodeId b = 0; b < n; ++b) {
      for (LinkId l = 0; l < cube.num_links(); ++l)
        if (a != b && geo.on_minimal_path(l, a, b)) minimal[idx(a, b)].set(l);
      geo.deterministic_path(a, b, order, [&](LinkId l) { add_links(det[idx(a, b)], l); });
    }
  // Subpath options per ordered pair.
  constexpr int kUnbounded = 1 << 20;
  std::vector<std::vector<Candidate>> seg(idx(n, 0));
  for (NodeId a = 0; a < n; ++a) {
    std::vector<std::pair<LinkMask, std::pair<NodeId, int>>> prefixes;  // mask, (end, length)
    if (mech.misroute)
      geo.for_each_prefix(a, kUnbounded, [&](const Segment& pre, NodeId end, int len) {
        LinkMask m;
        geo.misroute_walk(a, pre, [&](LinkId l) { m.set(l); });
        prefixes.push_back({m, {end, len}});
      });
    for (NodeId b = 0; b < n; ++b) {
      if (a == b) continue;
      std::vector<Candidate> c;
      const int l = geo.distance(a, b);
      c.push_back({minimal[idx(a, b)], {l, 0, 0, 0}});
      if (mech.deterministic) c.push_back({det[idx(a, b)], {l, 0, 1, 0}});
      for (const auto& [pm, pe] : prefixes) {
        const auto [end, plen] = pe;
        const int len = plen + geo.distance(end, b);
        c.push_back({pm | minimal[idx(end, b)], {len, 0, 0, 1}});
        if (mech.deterministic) c.push_back({pm | det[idx(end, b)], {len, 0, 1, 1}});
      }
      seg[idx(a, b)] = prune(std::move(c));
    }
  }
  // Routes with up to N intermediate nodes: R_k(a, d) = seg(a, d) + seg(a, b) R_{k-1}(b, d).
  std::vector<std::vector<Candidate>> routes = seg;
  for (int level = 1; level <= mech.max_intermediates; ++level) {
    std::vector<std::vector<Candidate>> next(idx(n, 0));
    for (NodeId a = 0; a < n; ++a)
      for (NodeId d = 0; d < n; ++d) {
        if (a == d) continue;
        std::vector<Candidate> c = seg[idx(a, d)];
        for (NodeId b = 0; b < n; ++b) {
          if (b == a || b == d) continue;
          for (const Candidate& head : seg[idx(a, b)])
            for (const Candidate& tail : routes[idx(b, d)]) {
              RouteKey k = head.key + tail.key;
              k.intermediates += 1;
              c.push_back({head.mask | tail.mask, k});
            }
        }
        next[idx(a, d)] = prune(std::move(c));
      }
    routes = std::move(next);
  }
  m_first.reserve(idx(n, 0) + 1);
  for (NodeId a = 0; a < n; ++a)
    for (NodeId d = 0; d < n; ++d) {
      m_first.push_back(static_cast<std::uint32_t>(m_options.size()));
      for (const Candidate& c : routes[idx(a, d)]) {
        m_options.push_back({c.mask, static_cast<std::uint8_t>(category_index(c.key))});
        m_keys.push_back(c.key);
      }
    }
  m_first.push_back(static_cast<std::uint32_t>(m_options.size()));
}

/// The incremental evaluation state of one worker.
class FaultToleranceAnalyzer::State {
 public:
  static constexpr int kUnroutableSlot = kCategories;

  explicit State(const FaultToleranceAnalyzer& a) : m_a(a) {
    const std::size_t pairs = a.m_first.size() - 1;
    for (std::size_t p = 0; p < pairs; ++p)
      if (a.m_first[p] != a.m_first[p + 1]) m_pairs.push_back(static_cast<std::uint32_t>(p));
    m_idx.assign(m_pairs.size(), 0);
    m_cur.resize(m_pairs.size());
    for (std::size_t i = 0; i < m_pairs.size(); ++i) m_cur[i] = a.m_options[a.m_first[m_pairs[i]]].mask;
    m_hist[0] = static_cast<std::int64_t>(m_pairs.size());
    m_parent.resize(static_cast<std::size_t>(a.m_nodes));
  }

  std::size_t mark() const { return m_undo.size(); }

  void add_fault(LinkId f) {
    m_faults.set(f);
    m_fault_list.push_back(f);
    const std::size_t w = static_cast<std::size_t>(f) >> 6;
    const std::uint64_t bit = 1ULL << (f & 63);
    for (std::size_t i = 0; i < m_pairs.size(); ++i) {
      if (!(m_cur[i].w[w] & bit)) continue;
      const std::uint32_t p = m_pairs[i];
      const std::uint32_t base = m_a.m_first[p];
      const std::uint32_t end = m_a.m_first[p + 1] - base;
      std::uint32_t j = m_idx[i] + 1;
      while (j < end && m_a.m_options[base + j].mask.intersects(m_faults)) ++j;
      m_undo.push_back({static_cast<std::uint32_t>(i), m_idx[i]});
      --m_hist[category(i, m_idx[i])];
      m_idx[i] = j;
      ++m_hist[category(i, j)];
      m_cur[i] = j < end ? m_a.m_options[base + j].mask : LinkMask{};
    }
  }

  void undo_to(std::size_t mark, LinkId f) {
    while (m_undo.size() > mark) {
      const auto [i, old] = m_undo.back();
      m_undo.pop_back();
      --m_hist[category(i, m_idx[i])];
      m_idx[i] = old;
      ++m_hist[category(i, old)];
      m_cur[i] = m_a.m_options[m_a.m_first[m_pairs[i]] + old].mask;
    }
    m_faults.w[static_cast<std::size_t>(f) >> 6] &= ~(1ULL << (f & 63));
    m_fault_list.pop_back();
  }

  /// Adds this combination to `r`.
  void record(FaultCountResult& r) {
    r.combinations += 1;
    const auto total = static_cast<std::uint64_t>(m_pairs.size());
    std::uint64_t unroutable = static_cast<std::uint64_t>(m_hist[kUnroutableSlot]);
    std::uint64_t disconnected = 0;
    if (unroutable > 0) {
      components();
      for (std::size_t i = 0; i < m_pairs.size(); ++i) {
        if (m_idx[i] != m_a.m_first[m_pairs[i] + 1] - m_a.m_first[m_pairs[i]]) continue;
        const auto s = static_cast<NodeId>(m_pairs[i] / static_cast<std::uint32_t>(m_a.m_nodes));
        const auto d = static_cast<NodeId>(m_pairs[i] % static_cast<std::uint32_t>(m_a.m_nodes));
        if (find(s) != find(d)) ++disconnected;
      }
      unroutable -= disconnected;
    }
    r.pairs += total - disconnected;
    r.affected += total - static_cast<std::uint64_t>(m_hist[0]) - disconnected;
    r.unroutable += unroutable;
    if (unroutable > 0) r.not_tolerated += 1;
    for (int c = 1; c < kCategories; ++c) r.by_category[static_cast<std::size_t>(c)] += static_cast<std::uint64_t>(m_hist[c]);
  }

  /// Per pair: option index (end of list = none).
  std::uint32_t option_of(std::size_t i) const { return m_idx[i]; }
  const std::vector<std::uint32_t>& pairs() const { return m_pairs; }
  bool connected(NodeId s, NodeId d) {
    components();
    return find(s) == find(d);
  }

 private:
  int category(std::size_t i, std::uint32_t j) const {
    const std::uint32_t p = m_pairs[i];
    const std::uint32_t base = m_a.m_first[p];
    return j < m_a.m_first[p + 1] - base ? m_a.m_options[base + j].category : kUnroutableSlot;
  }
  void components() {
    std::iota(m_parent.begin(), m_parent.end(), 0);
    for (const Link& lk : m_a.m_cube.links()) {
      if (m_faults.test(lk.id)) continue;
      const NodeId x = find(lk.a), y = find(lk.b);
      if (x != y) m_parent[static_cast<std::size_t>(x)] = y;
    }
  }
  NodeId find(NodeId x) {
    while (m_parent[static_cast<std::size_t>(x)] != x) {
      m_parent[static_cast<std::size_t>(x)] = m_parent[static_cast<std::size_t>(m_parent[static_cast<std::size_t>(x)])];
      x = m_parent[static_cast<std::size_t>(x)];
    }
    return x;
  }

  const FaultToleranceAnalyzer& m_a;
  std::vector<std::uint32_t> m_pairs;
  std::vector<std::uint32_t> m_idx;
  std::vector<LinkMask> m_cur;
  std::array<std::int64_t, kCategories + 1> m_hist{};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_undo;
  LinkMask m_faults;
  std::vector<LinkId> m_fault_list;
  std::vector<NodeId> m_parent;
};

std::vector<PairOutcome> FaultToleranceAnalyzer::evaluate(const std::vector<LinkId>& faults) const {
  State st(*this);
  for (LinkId f : faults) {
    if (f < 0 || f >= m_cube.num_links())
      throw ConfigError(fmt::format("link {} does not exist in {} (0..{})", f, m_cube.spec(), m_cube.num_links() - 1));
    st.add_fault(f);
  }
  std::vector<PairOutcome> out(static_cast<std::size_t>(m_nodes) * static_cast<std::size_t>(m_nodes));
  for (std::size_t i = 0; i < st.pairs().size(); ++i) {
    const std::uint32_t p = st.pairs()[i];
    const std::uint32_t j = st.option_of(i);
    PairOutcome& o = out[p];
    if (j < m_first[p + 1] - m_first[p]) {
      o.key = m_keys[m_first[p] + j];
    } else {
      const auto s = static_cast<NodeId>(p / static_cast<std::uint32_t>(m_nodes));
      const auto d = static_cast<NodeId>(p % static_cast<std::uint32_t>(m_nodes));
      o.status = st.connected(s, d) ? PairOutcome::Status::kUnroutable : PairOutcome::Status::kDisconnected;
    }
  }
  return out;
}

namespace {

/// Runs task(i, result rows, progress counter) for i = 0..tasks-1 on
/// `threads` workers, merging the per-worker rows.
std::vector<FaultCountResult> run_parallel(int tasks, int threads, int fmin, int fmax, std::uint64_t total,
                                           const ProgressFn& progress,
                                           const std::function<void(int, std::vector<FaultCountResult>&,
                                                                    std::atomic<std::uint64_t>&)>& task) {
  std::atomic<int> next{0};
  std::atomic<std::uint64_t> done{0};
  std::atomic<int> running{threads};
  std::vector<std::vector<FaultCountResult>> per(static_cast<std::size_t>(threads),
                                                 std::vector<FaultCountResult>(static_cast<std::size_t>(fmax + 1)));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = next++; i < tasks; i = next++) task(i, per[static_cast<std::size_t>(t)], done);
      --running;
    });
  if (progress) {
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      progress(done.load(), total);
    }
  }
  for (auto& th : pool) th.join();
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

}  // namespace

std::vector<FaultCountResult> FaultToleranceAnalyzer::exhaustive(int fmin, int fmax, const std::vector<LinkId>& links,
                                                                 int threads, const ProgressFn& progress) const {
  std::vector<LinkId> cand = links;
  if (cand.empty()) {
    cand.resize(static_cast<std::size_t>(m_cube.num_links()));
    std::iota(cand.begin(), cand.end(), 0);
  }
  const int m = static_cast<int>(cand.size());
  if (fmin < 1 || fmax < fmin || fmax > m)
    throw ConfigError(fmt::format("--faults {}..{}: allowed 1 <= A <= B <= {} (links to choose from)", fmin, fmax, m));
  std::uint64_t total = 0;
  for (int f = fmin; f <= fmax; ++f) total += binomial(m, f);
  return run_parallel(m, std::max(1, threads), fmin, fmax, total, progress,
                      [&](int first, std::vector<FaultCountResult>& rows, std::atomic<std::uint64_t>& done) {
                        State st(*this);
                        std::uint64_t local = 0;
                        std::function<void(int, int)> rec = [&](int start, int depth) {
                          for (int i = start; i < m; ++i) {
                            const std::size_t mk = st.mark();
                            st.add_fault(cand[static_cast<std::size_t>(i)]);
                            if (depth + 1 >= fmin) {
                              st.record(rows[static_cast<std::size_t>(depth + 1)]);
                              if (++local == 4096) {
                                done += local;
                                local = 0;
                              }
                            }
                            if (depth + 1 < fmax) rec(i + 1, depth + 1);
                            st.undo_to(mk, cand[static_cast<std::size_t>(i)]);
                          }
                        };
                        const std::size_t mk = st.mark();
                        st.add_fault(cand[static_cast<std::size_t>(first)]);
                        if (fmin <= 1) {
                          st.record(rows[1]);
                          ++local;
                        }
                        if (fmax > 1) rec(first + 1, 1);
                        st.undo_to(mk, cand[static_cast<std::size_t>(first)]);
                        done += local;
                      });
}

std::vector<FaultCountResult> FaultToleranceAnalyzer::sampled(int fmin, int fmax, long samples, std::uint64_t seed,
                                                              int threads, const ProgressFn& progress) const {
  const int m = m_cube.num_links();
  if (fmin < 1 || fmax < fmin || fmax > m)
    throw ConfigError(fmt::format("--faults {}..{}: allowed 1 <= A <= B <= {} (links)", fmin, fmax, m));
  if (samples < 1) throw ConfigError(fmt::format("--samples {}: allowed >= 1", samples));
  const long per_task = 256;
  const long tasks_per_count = (samples + per_task - 1) / per_task;
  const int tasks = static_cast<int>(tasks_per_count * (fmax - fmin + 1));
  const std::uint64_t total = static_cast<std::uint64_t>(samples) * static_cast<std::uint64_t>(fmax - fmin + 1);
  return run_parallel(tasks, std::max(1, threads), fmin, fmax, total, progress,
                      [&](int t, std::vector<FaultCountResult>& rows, std::atomic<std::uint64_t>& done) {
                        State st(*this);
                        const int f = fmin + static_cast<int>(t / tasks_per_count);
                        const long first = (t % tasks_per_count) * per_task;
                        const long last = std::min(samples, first + per_task);
                        std::vector<LinkId> all(static_cast<std::size_t>(m));
                        for (long s = first; s < last; ++s) {
                          std::seed_seq sq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
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
                            st.add_fault(all[static_cast<std::size_t>(i)]);
                          }
                          st.record(rows[static_cast<std::size_t>(f)]);
                          for (int i = f - 1; i >= 0; --i)
                            st.undo_to(marks[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(i)]);
                        }
                        done += static_cast<std::uint64_t>(last - first);
                      });
}

std::vector<LinkId> FaultToleranceAnalyzer::distance1_region(NodeId center) const {
  if (center < 0 || center >= m_nodes)
    throw ConfigError(fmt::format("region center {} out of range 0..{}", center, m_nodes - 1));
  const CubeGeometry geo(m_cube);
  std::vector<LinkId> out;
  for (const Link& lk : m_cube.links())
    if (geo.distance(center, lk.a) <= 1 || geo.distance(center, lk.b) <= 1) out.push_back(lk.id);
  return out;
}

}  // namespace ftsim::routing::inodes
