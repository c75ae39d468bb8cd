#include "routing_logic/topology/kary_ntree.hpp"

#include <fmt/format.h>

#include <cctype>

namespace ftsim::routing {

namespace {
int ipow(int b, int e) {
  long r = 1;
  for (int i = 0; i < e; ++i) {
    r *= b;
    if (r > (1L << 22)) throw ConfigError(fmt::format("topology too large: {}^{} exceeds 4M elements", b, e));
  }
  return static_cast<int>(r);
}

std::string digits(const std::vector<int>& w, int k) {
  std::string s;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (k > 10 && i > 0) s += '.';
    s += std::to_string(w[i]);
  }
  return s;
}

/// Parses "0.1.2" or "012" (single digits when k <= 10).
std::vector<int> parse_digits(const std::string& s, int k, int count, const std::string& what) {
  std::vector<int> out;
  if (s.find('.') != std::string::npos || k > 10) {
    std::size_t pos = 0;
    while (pos <= s.size()) {
      std::size_t next = s.find('.', pos);
      if (next == std::string::npos) next = s.size();
      const std::string tok = s.substr(pos, next - pos);
      if (tok.empty() || tok.size() > 6 || !std::isdigit(static_cast<unsigned char>(tok[0])))
        throw ConfigError(fmt::format("{}: '{}' is not a digit", what, tok));
      out.push_back(std::stoi(tok));
      pos = next + 1;
    }
  } else {
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        throw ConfigError(fmt::format("{}: '{}' is not a digit", what, c));
      out.push_back(c - '0');
    }
  }
  if (static_cast<int>(out.size()) != count)
    throw ConfigError(fmt::format("{}: expected {} digits, got {}", what, count, out.size()));
  for (int d : out)
    if (d < 0 || d >= k) throw ConfigError(fmt::format("{}: digit {} out of range 0..{}", what, d, k - 1));
  return out;
}
}  // namespace

KAryNTree::KAryNTree(int k, int n) : m_k(k), m_n(n) {
  if (k < 2 || k > 64) throw ConfigError(fmt::format("topology kary-ntree: k={} out of range, allowed 2..64", k));
  if (n < 1 || n > 16) throw ConfigError(fmt::format("topology kary-ntree: n={} out of range, allowed 1..16", n));
  m_per_tier = ipow(k, n - 1);
  const int nodes = ipow(k, n);
  resize(n * m_per_tier, 2 * k, nodes);
  // Switch-switch links: parent <w,l> down port j to child <w',l+1> (w'_l = j),
  // child's up port k + w_l.
  for (int l = 0; l + 1 < n; ++l) {
    for (int idx = 0; idx < m_per_tier; ++idx) {
      const RouterId parent = l * m_per_tier + idx;
      for (int j = 0; j < k; ++j) {
        std::vector<int> w(n - 1);
        for (int i = 0; i < n - 1; ++i) w[i] = switch_digit(parent, i);
        const int wl = w[l];
        w[l] = j;
        connect(parent, j, switch_id(w, l + 1), k + wl);
      }
    }
  }
  // Leaf switches <w,n-1>: down port j holds node (w_0..w_{n-2}, j).
  for (int idx = 0; idx < m_per_tier; ++idx) {
    const RouterId leaf = (n - 1) * m_per_tier + idx;
    for (int j = 0; j < k; ++j) attach_node(idx * k + j, leaf, j, true);
  }
}

int KAryNTree::switch_digit(RouterId r, int i) const {
  int idx = r % m_per_tier;
  for (int j = m_n - 2; j > i; --j) idx /= m_k;
  return idx % m_k;
}

int KAryNTree::node_digit(NodeId p, int i) const {
  for (int j = m_n - 1; j > i; --j) p /= m_k;
  return p % m_k;
}

RouterId KAryNTree::switch_id(const std::vector<int>& w, int tier) const {
  int idx = 0;
  for (int i = 0; i < m_n - 1; ++i) idx = idx * m_k + w[i];
  return tier * m_per_tier + idx;
}

bool KAryNTree::is_ancestor(RouterId s, NodeId d) const {
  for (int i = 0; i < tier(s); ++i)
    if (switch_digit(s, i) != node_digit(d, i)) return false;
  return true;
}

int KAryNTree::lca_tier(NodeId s, NodeId d) const {
  for (int j = 0; j < m_n; ++j)
    if (node_digit(s, j) != node_digit(d, j)) return j;
  return m_n - 1;  // same node; not a meaningful pair
}

std::string KAryNTree::spec() const {
  return fmt::format("kary-ntree:{},{}", m_k, m_n);
}

std::string KAryNTree::router_label(RouterId r) const {
  std::vector<int> w(m_n - 1);
  for (int i = 0; i < m_n - 1; ++i) w[i] = switch_digit(r, i);
  return fmt::format("<{},{}>", digits(w, m_k), tier(r));
}

std::string KAryNTree::node_label(NodeId p) const {
  std::vector<int> d(m_n);
  for (int i = 0; i < m_n; ++i) d[i] = node_digit(p, i);
  return digits(d, m_k);
}

std::string KAryNTree::port_name(RouterId /*r*/, PortId p) const {
  return p < m_k ? fmt::format("down{}", p) : fmt::format("up{}", p - m_k);
}

std::string KAryNTree::link_label(LinkId l) const {
  const Link& lk = link(l);
  return fmt::format("{}:{}", router_label(lk.a), port_name(lk.a, lk.a_port));
}

RouterId KAryNTree::parse_router(const std::string& label) const {
  const std::string what = fmt::format("switch '{}' in {}", label, spec());
  if (label.size() < 4 || label.front() != '<' || label.back() != '>')
    throw ConfigError(what + ": expected <w,l>, e.g. <01,2>");
  const std::string body = label.substr(1, label.size() - 2);
  const std::size_t comma = body.rfind(',');
  if (comma == std::string::npos) throw ConfigError(what + ": expected <w,l>, e.g. <01,2>");
  const auto w = parse_digits(body.substr(0, comma), m_k, m_n - 1, what);
  const std::string ls = body.substr(comma + 1);
  if (ls.empty() || ls.size() > 3 || !std::isdigit(static_cast<unsigned char>(ls[0])))
    throw ConfigError(what + ": tier is not a number");
  const int l = std::stoi(ls);
  if (l < 0 || l >= m_n) throw ConfigError(fmt::format("{}: tier {} out of range 0..{}", what, l, m_n - 1));
  return switch_id(w, l);
}

LinkId KAryNTree::parse_link(const std::string& label) const {
  const std::string what = fmt::format("link '{}' in {}", label, spec());
  const std::size_t gt = label.find('>');
  if (gt == std::string::npos || gt + 1 >= label.size() || label[gt + 1] != ':')
    throw ConfigError(what + ": expected <w,l>:upJ or <w,l>:downJ (e.g. <01,2>:up1), or a link id");
  const RouterId r = parse_router(label.substr(0, gt + 1));
  const std::string port = label.substr(gt + 2);
  PortId p = kNone;
  auto num = [&](std::size_t from) {
    const std::string t = port.substr(from);
    if (t.empty() || t.size() > 3 || !std::isdigit(static_cast<unsigned char>(t[0])))
      throw ConfigError(what + ": port number missing");
    const int j = std::stoi(t);
    if (j < 0 || j >= m_k) throw ConfigError(fmt::format("{}: port {} out of range 0..{}", what, j, m_k - 1));
    return j;
  };
  if (port.rfind("up", 0) == 0)
    p = m_k + num(2);
  else if (port.rfind("down", 0) == 0)
    p = num(4);
  else
    throw ConfigError(what + ": port must be upJ or downJ");
  const PortPeer& pp = peer(r, p);
  if (pp.link == kNone) throw ConfigError(what + ": no link on that port (top tier has no up links)");
  return pp.link;
}

}  // namespace ftsim::routing
