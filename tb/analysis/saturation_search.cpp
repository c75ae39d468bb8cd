#include "tb/analysis/saturation_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/config_error.hpp"

namespace ftsim::tb {

namespace {
double rounded(double x) {
  return std::round(x * 1e4) / 1e4;
}
}  // namespace

SaturationResult find_saturation(const std::function<SaturationProbe(double)>& probe, const SaturationOptions& opt) {
  if (!(opt.low > 0) || !(opt.high > opt.low) || opt.high > 1e3)
    throw ConfigError(
        fmt::format("saturation search: need 0 < --low < --high <= 1000 (got {} and {})", opt.low, opt.high));
  if (!(opt.tolerance > 0 && opt.tolerance < 0.5))
    throw ConfigError(fmt::format("saturation search: --tolerance {} out of range, allowed (0, 0.5)", opt.tolerance));
  if (!(opt.precision >= 1e-4 && opt.precision < 1))
    throw ConfigError(fmt::format("saturation search: --precision {} out of range, allowed 0.0001..1", opt.precision));
  if (opt.bracket &&
      !(opt.bracket->first >= opt.low && opt.bracket->second <= opt.high && opt.bracket->first < opt.bracket->second))
    throw ConfigError(fmt::format("saturation search: --bracket {},{} must satisfy low <= A < B <= high ({}..{})",
                                  opt.bracket->first, opt.bracket->second, opt.low, opt.high));
  SaturationResult r;
  std::map<double, std::size_t> seen;  // load -> index in r.probes
  auto at = [&](double load) -> const SaturationProbe& {
    load = rounded(load);
    if (const auto it = seen.find(load); it != seen.end()) return r.probes[it->second];
    SaturationProbe p = probe(load);
    p.load = load;
    p.sustained = !p.deadlock && p.offered > 0 && p.accepted >= (1.0 - opt.tolerance) * p.offered;
    seen[load] = r.probes.size();
    r.probes.push_back(p);
    return r.probes.back();
  };
  double lo = rounded(opt.bracket ? opt.bracket->first : opt.low);
  double hi = rounded(opt.bracket ? opt.bracket->second : opt.high);
  // The upper end must be saturated: widen up to `high`.
  while (at(hi).sustained) {
    if (hi >= rounded(opt.high)) break;
    const double width = hi - lo;
    lo = hi;
    hi = rounded(std::min(opt.high, hi + 2 * width));
  }
  if (at(hi).sustained) {  // carried at the top of the range
    r.saturated_in_range = false;
    r.knee = at(hi);
  } else {
    // The lower end must be carried: widen down to `low`.
    while (!at(lo).sustained && lo > rounded(opt.low)) {
      const double width = hi - lo;
      hi = lo;
      lo = rounded(std::max(opt.low, lo - 2 * width));
    }
    if (at(lo).sustained) {
      while (hi - lo > opt.precision * lo + 1e-12) {
        const double mid = rounded((lo + hi) / 2);
        if (mid <= lo || mid >= hi) break;  // the rounding step
        if (at(mid).sustained)
          lo = mid;
        else
          hi = mid;
      }
      r.knee = at(lo);
      r.saturated = at(hi);
    } else {
      r.saturated = at(lo);  // not even `low` is carried
    }
  }
  r.peak = *std::max_element(r.probes.begin(), r.probes.end(), [](const SaturationProbe& a, const SaturationProbe& b) {
    return a.accepted_network < b.accepted_network;
  });
  return r;
}

namespace {
nlohmann::json probe_json(const SaturationProbe& p) {
  return {{"load", p.load},
          {"offered_load", p.offered},
          {"accepted_load", p.accepted},
          {"accepted_payload_flits_per_cycle", p.accepted_network},
          {"header_overhead_flits_per_cycle", p.overhead_network},
          {"live_nodes", p.live_nodes},
          {"deadlock", p.deadlock},
          {"sustained", p.sustained},
          {"run", p.where}};
}
}  // namespace

nlohmann::json saturation_json(const SaturationResult& r, const SaturationOptions& opt) {
  nlohmann::json j;
  j["definition"] =
      "knee: the largest offered load found carried (accepted payload >= (1 - tolerance) x offered payload, no "
      "deadlock), to within precision x knee; saturation_throughput: the whole network's accepted payload "
      "flits/cycle at the knee; peak: the largest accepted payload flits/cycle of any probe. Payload only: header "
      "overhead flits (a subheader per intermediate node) are reported apart";
  j["tolerance"] = opt.tolerance;
  j["precision"] = opt.precision;
  j["low"] = opt.low;
  j["high"] = opt.high;
  if (opt.bracket) j["bracket"] = {opt.bracket->first, opt.bracket->second};
  j["saturated_in_range"] = r.saturated_in_range;
  j["knee"] = r.knee ? probe_json(*r.knee) : nlohmann::json(nullptr);
  j["saturation_throughput"] = r.knee ? nlohmann::json(r.knee->accepted_network) : nlohmann::json(nullptr);
  j["saturated"] = r.saturated ? probe_json(*r.saturated) : nlohmann::json(nullptr);
  j["peak"] = probe_json(r.peak);
  j["probes"] = nlohmann::json::array();
  for (const auto& p : r.probes) j["probes"].push_back(probe_json(p));
  return j;
}

SaturationProbe probe_from_stats(double load, const nlohmann::json& s) {
  SaturationProbe p;
  p.load = load;
  auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; };
  if (s.contains("payload") && s["payload"].is_object()) {
    const auto& pl = s["payload"];
    p.offered = num(pl.value("offered_load", nlohmann::json()));
    p.accepted = num(pl.value("accepted_load", nlohmann::json()));
    p.accepted_network = num(pl.value("accepted_flits_per_cycle", nlohmann::json()));
    p.overhead_network = num(pl.value("header_overhead_flits_per_cycle", nlohmann::json()));
  }
  p.live_nodes = num(s.value("live_nodes", nlohmann::json()));
  p.deadlock = s.value("deadlock", false);
  return p;
}

}  // namespace ftsim::tb
