#include "routing_logic/mikant/mikant.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

namespace ftsim::routing {

Mikant::Mikant(int k, int n) : m_k(k), m_n(n) {
  if (k < 2 || k > 64) throw ConfigError(fmt::format("topology mikant: k={} out of range, allowed 2..64", k));
  if (n < 2 || n > 12) throw ConfigError(fmt::format("topology mikant: n={} out of range, allowed 2..12", n));
  long per = 1;
  for (int i = 0; i < n - 1; ++i) {
    per *= k;
    if (per > (1L << 20)) throw ConfigError(fmt::format("topology mikant:{},{} is too large", k, n));
  }
  m_per_level = static_cast<int>(per);
  const int routers = 2 * (n - 1) * m_per_level;
  const int nodes = 2 * m_per_level * k;
  resize(routers, 2 * k, nodes);
  // Links in label order: node links (L=0), intra-group links (L=1..n-2), inter-group links (L=n-1).
  for (int g = 0; g < 2; ++g)
    for (int idx = 0; idx < m_per_level; ++idx)
      for (int c = 0; c < k; ++c) {
        const RouterId sw = (g * (n - 1)) * m_per_level + idx;
        attach_node(g * m_per_level * k + c * m_per_level + idx, sw, c, true);
      }
  for (int g = 0; g < 2; ++g)
    for (int l = 0; l + 1 <= n - 2; ++l)
      for (int idx = 0; idx < m_per_level; ++idx) {
        const RouterId upper = (g * (n - 1) + l + 1) * m_per_level + idx;
        for (int p = 0; p < k; ++p) {
          // Lower switch: upper's D with D_l replaced by p; the lower's up port is k + upper's D_l.
          std::vector<int> d(n - 1);
          for (int i = 0; i < n - 1; ++i) d[i] = switch_digit(upper, i);
          const int upper_dl = d[l];
          d[l] = p;
          connect(upper, p, switch_id(g, l, d), k + upper_dl);
        }
      }
  for (int idx = 0; idx < m_per_level; ++idx) {
    const RouterId g1 = (1 * (n - 1) + n - 2) * m_per_level + idx;
    for (int p = 0; p < k; ++p) {
      std::vector<int> d(n - 1);
      for (int i = 0; i < n - 1; ++i) d[i] = switch_digit(g1, i);
      const int g1_top = d[n - 2];
      d[n - 2] = p;
      connect(g1, k + p, switch_id(0, n - 2, d), k + g1_top);
    }
  }
}

int Mikant::switch_digit(RouterId r, int i) const {
  int idx = r % m_per_level;
  for (int j = 0; j < i; ++j) idx /= m_k;
  return idx % m_k;
}

int Mikant::node_digit(NodeId p, int i) const {
  int idx = p % (m_per_level * m_k);
  for (int j = 0; j < i; ++j) idx /= m_k;
  return idx % m_k;
}

RouterId Mikant::switch_id(int g, int l, const std::vector<int>& d_low_first) const {
  int idx = 0;
  for (int i = m_n - 2; i >= 0; --i) idx = idx * m_k + d_low_first[i];
  return (g * (m_n - 1) + l) * m_per_level + idx;
}

std::string Mikant::spec() const {
  return fmt::format("mikant:{},{}", m_k, m_n);
}

std::string Mikant::router_label(RouterId r) const {
  std::vector<int> parts{group(r), level(r)};
  for (int i = m_n - 2; i >= 0; --i) parts.push_back(switch_digit(r, i));
  return fmt::format("<{}>", fmt::join(parts, ","));
}

std::string Mikant::node_label(NodeId p) const {
  std::vector<int> parts{node_group(p)};
  for (int i = m_n - 1; i >= 0; --i) parts.push_back(node_digit(p, i));
  return fmt::format("<{}>", fmt::join(parts, ","));
}

std::string Mikant::port_name(RouterId /*r*/, PortId p) const {
  return p < m_k ? fmt::format("down{}", p) : fmt::format("up{}", p - m_k);
}

std::string Mikant::link_label(LinkId l) const {
  const Link& lk = link(l);
  std::vector<int> parts;
  if (lk.b_is_node) {
    parts = {group(lk.a), 0};
    for (int i = m_n - 2; i >= 0; --i) parts.push_back(switch_digit(lk.a, i));
    parts.push_back(lk.a_port);
  } else if (lk.a_port < m_k) {  // intra-group: a is the upper switch, a_port = lower's D_L
    parts = {group(lk.a), level(lk.a)};
    for (int i = m_n - 2; i >= 0; --i) parts.push_back(switch_digit(lk.a, i));
    parts.push_back(lk.a_port);
  } else {  // inter-group: a is the group-1 switch, P = group-0 switch's D_{n-2}
    parts = {1, m_n - 1};
    for (int i = m_n - 2; i >= 0; --i) parts.push_back(switch_digit(lk.a, i));
    parts.push_back(lk.a_port - m_k);
  }
  return fmt::format("<{}>", fmt::join(parts, ","));
}

std::vector<int> Mikant::parse_tuple(const std::string& label, const char* what) const {
  if (label.size() < 3 || label.front() != '<' || label.back() != '>')
    throw ConfigError(fmt::format("{} '{}' in {}: expected <G,L,...>", what, label, spec()));
  std::vector<int> v;
  std::size_t pos = 1;
  while (pos < label.size()) {
    std::size_t next = label.find_first_of(",>", pos);
    const std::string tok = label.substr(pos, next - pos);
    if (tok.empty() || tok.size() > 6 || !std::isdigit(static_cast<unsigned char>(tok[0])))
      throw ConfigError(fmt::format("{} '{}' in {}: '{}' is not a number", what, label, spec(), tok));
    v.push_back(std::stoi(tok));
    pos = next + 1;
  }
  return v;
}

RouterId Mikant::parse_router(const std::string& label) const {
  const auto v = parse_tuple(label, "switch");
  if (static_cast<int>(v.size()) != m_n + 1)
    throw ConfigError(
        fmt::format("switch '{}' in {}: expected <G,L,D{}..D0> with {} fields", label, spec(), m_n - 2, m_n + 1));
  if (v[0] > 1 || v[1] > m_n - 2)
    throw ConfigError(fmt::format("switch '{}' in {}: G must be 0..1 and L 0..{}", label, spec(), m_n - 2));
  std::vector<int> d(m_n - 1);
  for (int i = 0; i < m_n - 1; ++i) {
    d[m_n - 2 - i] = v[2 + i];
    if (v[2 + i] >= m_k)
      throw ConfigError(
          fmt::format("switch '{}' in {}: digit {} out of range 0..{}", label, spec(), v[2 + i], m_k - 1));
  }
  return switch_id(v[0], v[1], d);
}

LinkId Mikant::parse_link(const std::string& label) const {
  const auto v = parse_tuple(label, "link");
  if (static_cast<int>(v.size()) != m_n + 2)
    throw ConfigError(
        fmt::format("link '{}' in {}: expected <G,L,D{}..D0,P> with {} fields", label, spec(), m_n - 2, m_n + 2));
  for (std::size_t i = 2; i < v.size(); ++i)
    if (v[i] >= m_k)
      throw ConfigError(fmt::format("link '{}' in {}: digit {} out of range 0..{}", label, spec(), v[i], m_k - 1));
  if (v[0] > 1 || v[1] > m_n - 1 || (v[1] == m_n - 1 && v[0] != 1))
    throw ConfigError(fmt::format("link '{}' in {}: G must be 0..1 and L 0..{} (L={} only with G=1)", label, spec(),
                                  m_n - 1, m_n - 1));
  std::vector<int> d(m_n - 1);
  for (int i = 0; i < m_n - 1; ++i) d[m_n - 2 - i] = v[2 + i];
  const int p = v[m_n + 1];
  if (v[1] == m_n - 1) return peer(switch_id(1, m_n - 2, d), m_k + p).link;
  return peer(switch_id(v[0], v[1], d), p).link;
}

}  // namespace ftsim::routing
