#include <fmt/format.h>

#include "routing_logic/dor.hpp"
#include "routing_logic/duato.hpp"
#include "routing_logic/dlr/fat_tree_dlr.hpp"
#include "routing_logic/immunet/immunet_routing.hpp"
#include "routing_logic/inodes/inode_routing.hpp"
#include "routing_logic/lft_routing.hpp"
#include "routing_logic/mikant/mikant_ft.hpp"
#include "routing_logic/mikant/mikant_shortest.hpp"
#include "routing_logic/named_registry.hpp"
#include "routing_logic/updown.hpp"

namespace ftsim::routing {

namespace {

const std::vector<std::pair<std::string, std::string>>& builtin_routing_names() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"dor", "dimension-order routing; mesh: any VC; torus: bubble flow control (VCT)"},
      {"dor-dateline", "dimension-order routing on a torus with dateline VC classes (>= 2 VCs)"},
      {"dor-unprotected", "dimension-order routing with no deadlock avoidance on tori (deadlocks; a baseline)"},
      {"duato", "Duato fully adaptive minimal; escape VC 0 = DOR (bubble on tori); >= 2 VCs"},
      {"immunet",
       "Immunet adaptive bubble routing over Safe/Adaptive/SS tables, with emergency reconfiguration (torus)"},
      {"updown", "k-ary n-tree: adaptive up to a least common ancestor, deterministic down"},
      {"updown-det", "k-ary n-tree: deterministic destination-based (D-mod-k) up/down; table-driven under DDRC"},
      {"ddlr", "k-ary n-tree: deterministic dynamic local rerouting, NL + ML layers, Algorithm 1 tables (>= 2 VCs)"},
      {"ddlr-1fault", "k-ary n-tree: deterministic dynamic local rerouting for one fault, no extra layer"},
      {"adlr", "k-ary n-tree: adaptive dynamic local rerouting with a re-route bit vector per U-turn switch"},
      {"ddlr-switch",
       "k-ary n-tree: deterministic DLR around switch faults, NL + ML1 + ML2 layers, port field (>= 3 VCs)"},
      {"adlr-switch", "k-ary n-tree: adaptive DLR around switch faults, port field and re-route vector"},
      {"mikant-shortest", "MiKANT shortest path, Algorithm 1"},
      {"go-neighbor-switch", "MiKANT: Algorithm 1 + Go-Neighbor-Switch around a faulty up link"},
      {"go-down-level", "MiKANT: Algorithm 1 + Go-Down-Level around a faulty down link"},
      {"gns+gdl", "MiKANT: Go-Neighbor-Switch and Go-Down-Level"},
      {"three-turn", "MiKANT: Algorithm 1 + Three-Turn across the groups"},
      {"gns+xt+gdl", "MiKANT: Go-Neighbor-Switch, X-Turns and Go-Down-Level (Algorithm 2)"},
      {"tt+gdl", "MiKANT: Three-Turn and Go-Down-Level"},
      {"lft", "destination-based linear forwarding tables (InfiniBand LFTs; e.g. imported from an OpenSM dump)"},
      {"inodes:MECH",
       "intermediate nodes on a mesh/torus, static faults; MECH = I, D, M, I+D, I+M, D+M, I+D+M, IxN, Ix2+D, none; "
       ">= N+2 VCs"},
  };
  return names;
}

NamedRegistry<RoutingFactory>& user_routings() {
  static NamedRegistry<RoutingFactory> r("routing");
  return r;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> routing_names() {
  auto out = builtin_routing_names();
  for (auto& e : user_routings().names()) out.push_back(std::move(e));
  return out;
}

void register_routing(const std::string& name, const std::string& description, RoutingFactory factory) {
  user_routings().add(name, description, std::move(factory), [](const std::string& n) {
    if (n == "inodes" || n.rfind("inodes:", 0) == 0) return true;
    for (const auto& [b, d] : builtin_routing_names())
      if (b == n) return true;
    return false;
  });
}

std::unique_ptr<RoutingRelation> make_routing(const std::string& name) {
  if (name == "dor") return std::make_unique<DorRouting>(DorRouting::Mode::kBubble);
  if (name == "dor-dateline") return std::make_unique<DorRouting>(DorRouting::Mode::kDateline);
  if (name == "dor-unprotected") return std::make_unique<DorRouting>(DorRouting::Mode::kUnprotected);
  if (name == "duato") return std::make_unique<DuatoRouting>();
  if (name == "immunet") return std::make_unique<ImmunetRouting>();
  if (name == "updown") return std::make_unique<UpDownRouting>();
  if (name == "updown-det") return std::make_unique<UpDownDeterministicRouting>();
  if (name == "ddlr") return std::make_unique<FatTreeDlrRouting>(FatTreeDlrRouting::Variant::kDeterministic);
  if (name == "ddlr-1fault") return std::make_unique<FatTreeDlrRouting>(FatTreeDlrRouting::Variant::kOneFault);
  if (name == "adlr") return std::make_unique<FatTreeDlrRouting>(FatTreeDlrRouting::Variant::kAdaptive);
  if (name == "ddlr-switch")
    return std::make_unique<FatTreeDlrRouting>(FatTreeDlrRouting::Variant::kDeterministicSwitch);
  if (name == "adlr-switch") return std::make_unique<FatTreeDlrRouting>(FatTreeDlrRouting::Variant::kAdaptiveSwitch);
  if (name == "mikant-shortest") return std::make_unique<MikantShortestRouting>();
  if (name == "go-neighbor-switch") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{true, false});
  if (name == "go-down-level") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{false, true});
  if (name == "gns+gdl") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{true, true});
  if (name == "three-turn") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{false, false, false, true});
  if (name == "gns+xt+gdl") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{true, true, true, false});
  if (name == "tt+gdl") return std::make_unique<MikantFtRouting>(name, MikantFtFeatures{false, true, false, true});
  if (name == "lft") return std::make_unique<LftRouting>();
  if (name == "inodes") return std::make_unique<InodeRouting>(inodes::parse_mechanism("I"));
  if (name.rfind("inodes:", 0) == 0) return std::make_unique<InodeRouting>(inodes::parse_mechanism(name.substr(7)));
  if (const RoutingFactory factory = user_routings().find(name)) {
    auto relation = factory();
    if (!relation) throw ConfigError(fmt::format("routing '{}': the registered factory returned no relation", name));
    return relation;
  }

  std::string known;
  for (const auto& [n, d] : routing_names()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError(fmt::format("routing '{}' is unknown; allowed: {}", name, known));
}

}  // namespace ftsim::routing
