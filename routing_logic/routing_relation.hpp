// Routing relation interface: given where a packet is and its header, the
// allowed (output port, VC set) candidates. Pure C++.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "routing_logic/fault_set.hpp"
#include "routing_logic/topology/topology.hpp"

namespace ftsim::routing {

/// The header bits a stateful relation carries with each packet (misroute
/// counters, saved switch digits, a port field), as a typed area: the
/// relation declares its own trivially copyable struct of at most kBytes
/// bytes and reads and writes it whole with get<T>() / set(T). The area of a
/// fresh packet is all zero bytes, so a struct whose fields are all zero is
/// the state at injection. Relations without state never touch it.
/// Examples: FatTreeDlrRouting's DlrHeader (U-turns, arrival port, port
/// field), InodeRouting's subheader position, MikantFtRouting's detour step.
class HeaderState {
 public:
  /// Capacity in bytes; a larger struct is a compile-time error.
  static constexpr std::size_t kBytes = 8;
  template <class T>
  [[nodiscard]] T get() const {
    check<T>();
    T v;
    std::memcpy(static_cast<void*>(&v), m_bytes.data(), sizeof(T));
    return v;
  }
  template <class T>
  void set(const T& v) {
    check<T>();
    std::memcpy(m_bytes.data(), static_cast<const void*>(&v), sizeof(T));
  }
  /// The raw bytes, for hashing (the CDG builder) and comparison only.
  [[nodiscard]] const std::array<std::uint8_t, kBytes>& bytes() const { return m_bytes; }
  bool operator==(const HeaderState& o) const { return m_bytes == o.m_bytes; }

 private:
  template <class T>
  static constexpr void check() {
    static_assert(std::is_trivially_copyable_v<T>, "a header state must be trivially copyable");
    static_assert(sizeof(T) <= kBytes, "a header state must fit HeaderState::kBytes");
  }
  std::array<std::uint8_t, kBytes> m_bytes{};
};

/// The part of a packet header that routing reads. Comparable and hashable
/// so that the CDG builder can enumerate reachable (channel, header) states.
struct PacketHeader {
  NodeId src = kNone;
  NodeId dst = kNone;
  /// Moves between virtual networks so far, 0..255 (saturating): the router
  /// and the CDG builder add one when the packet is allocated a candidate
  /// with counts_move (Immunet section 3's livelock bound).
  std::uint8_t moves = 0;
  /// The relation's own per-packet state (see HeaderState).
  HeaderState state;
  bool operator==(const PacketHeader& o) const {
    return src == o.src && dst == o.dst && moves == o.moves && state == o.state;
  }
};

/// One allowed output: a port and the set of VCs (bit v = VC v) of the
/// downstream input queue that the packet may take.
struct RouteCandidate {
  PortId port = kNone;
  std::uint32_t vc_mask = 0;
  /// 0 is preferred. The selection function tries lower values first, so a
  /// relation puts adaptive candidates at 0 and escape/safe ones at 1.
  std::uint8_t priority = 0;
  /// Bubble flow control: moving into this VC enters a ring (injection, from an
  /// adaptive VC, or from another dimension's ring), so the downstream queue
  /// must have room for two packets, not one.
  bool enters_ring = false;
  /// Taking this candidate counts one move between virtual networks: the
  /// router increments header.moves when it allocates it (Immunet's
  /// livelock bound).
  bool counts_move = false;
};

/// Fixed-capacity list of candidates (no allocation on the hot path).
struct RouteSet {
  static constexpr int kMax = 32;
  std::array<RouteCandidate, kMax> items;
  int size = 0;
  /// Set with an empty set when the relation discards the packet on purpose
  /// (a DLR U-turn switch that tested every upward port), not for lack of a
  /// route.
  bool discarded = false;
  void clear() {
    size = 0;
    discarded = false;
  }
  void add(const RouteCandidate& c) {
    if (size < kMax) items[size++] = c;
  }
  const RouteCandidate* begin() const { return items.data(); }
  const RouteCandidate* end() const { return items.data() + size; }
};

/// Immunet's per-router tables as seen by routing (tables/immunet/immunet_tables.hpp
/// owns them): per destination a Safe Table port mask and an Adaptive Table
/// port mask; per input port the SS-table successor (-1: not on the ring).
struct ImmunetView {
  const std::uint64_t* safe = nullptr;
  const std::uint64_t* adaptive = nullptr;
  const std::int8_t* ss_next = nullptr;
  /// false: the fault-free safe network of 2n dimension rings visited in DOR;
  /// true: one ring, the tour of the emergency tree.
  bool single_ring = false;
  /// Injection stopped (emergency state).
  bool emergency = false;
  /// Incremented whenever these tables change; routers re-route packets that
  /// wait for VC allocation under an older epoch (routing is a table lookup).
  std::uint32_t epoch = 0;
  /// Adaptive Table distances; a destination at distance `lost_distance` (N)
  /// is lost once `tables_complete` is set (section 4.3).
  const std::int32_t* distance = nullptr;
  std::int32_t lost_distance = 0;
  bool tables_complete = true;
};

/// Switch-side state of adaptive dynamic local rerouting (fat-tree ADLR,
/// section VII-A): the re-route bit vector of a U-turn switch, bit j for
/// upward port k + j, cleared after `timeout` cycles without a U-turn.
struct RerouteState {
  std::uint64_t bits = 0;
  std::uint64_t last_uturn = 0;
};

/// Read-only view of a router's local state passed to a relation.
/// The per-router state of the active mechanism's hardware, as its routing
/// relation reads it: one typed slot (at most one active mechanism has
/// per-router hardware). set(p) stores a pointer with its type; get<T>()
/// gives it back only as that type (nullptr otherwise), so a relation never
/// reads another mechanism's state by mistake. Built-in and user mechanisms
/// use the same slot (Immunet: ImmunetView; ADLR: RerouteState).
class MechanismState {
 public:
  template <typename T>
  void set(T* p) {
    m_ptr = const_cast<std::remove_const_t<T>*>(p);
    m_type = tag<std::remove_const_t<T>>();
  }
  template <typename T>
  T* get() const {
    return m_type == tag<std::remove_const_t<T>>() ? static_cast<T*>(m_ptr) : nullptr;
  }
  bool empty() const { return m_ptr == nullptr; }

 private:
  template <typename T>
  static const void* tag() {
    static const char t = 0;
    return &t;
  }
  void* m_ptr = nullptr;
  const void* m_type = nullptr;
};

struct RouterView {
  /// Bit p set when output port p is usable (link alive and fault detected
  /// otherwise). Routers have at most 64 ports.
  std::uint64_t port_alive = ~0ULL;
  /// Optional destination-indexed forwarding table (output port per node, or
  /// kNone); relations that are table-driven read it when present.
  const std::int32_t* forwarding = nullptr;
  int forwarding_size = 0;
  /// Current cycle (for the re-route vector's time-out).
  std::uint64_t cycle = 0;
  /// The mechanism's per-router state (set by its
  /// hw::RouterMechanism::fill_view): Immunet's tables (ImmunetView), the
  /// ADLR re-route vector of this switch (RerouteState; absent: a U-turn may
  /// take any other upward port, the superset used by CDG enumeration), or a
  /// user mechanism's own type.
  MechanismState mechanism;
};

/// Where the packet is: router, input port, input VC (the VC it occupies at
/// this router). At injection in_port is the node's port and in_vc is the VC
/// the network interface chose.
struct RouteQuery {
  RouterId router = kNone;
  PortId in_port = kNone;
  VcId in_vc = 0;
  bool injected_here = false;  ///< true when the packet comes from this router's node
  const PacketHeader* header = nullptr;
  RouterView view;
};

/// What a relation claims about deadlock freedom, in a form the channel
/// dependency graph (routing_logic/cdg.hpp) can check: `sim.check_deadlock_
/// freedom: true` builds the CDG this claim names at elaboration and refuses
/// the run when it has a cycle.
struct DeadlockClaim {
  enum class Kind : std::uint8_t {
    kNone,             ///< no claim the CDG can check (the check refuses to run)
    kAcyclicCdg,       ///< the whole relation's CDG is acyclic (Dally and Seitz)
    kAcyclicEscapeCdg  ///< Duato's extended CDG of the escape channels is acyclic
  };
  Kind kind = Kind::kNone;
  /// Bubble flow control on torus rings: dependencies between two channels of
  /// one ring are exempt (a packet entering a ring needs room for two).
  bool bubble_rings = false;
  /// The argument, for messages and stats.json.
  const char* basis = "";
};

/// VC class of a VC as seen by a relation.
enum class VcClass : std::uint8_t { kAdaptive, kEscape };

/// A routing relation R: (router, in port, in VC, header) -> candidates. It is
/// configured once per network with the topology and the VC count and then is
/// immutable and shared by all routers (per-router state lives in the
/// RouterView). Source for the general model: Duato's theory of routing
/// relations as used by all five papers.
class RoutingRelation {
 public:
  virtual ~RoutingRelation() = default;
  virtual std::string name() const = 0;
  /// Fewest VCs this relation needs.
  virtual int min_vcs() const { return 1; }
  /// True when the relation relies on bubble flow control (needs VCT and
  /// queues of at least two packets).
  virtual bool needs_bubble() const { return false; }
  virtual VcClass vc_class(VcId /*vc*/) const { return VcClass::kAdaptive; }
  /// VCs the network interface may inject into (bit mask).
  virtual std::uint32_t injection_vcs() const { return m_all_vcs; }
  /// Fills `out` with candidates. An empty set means "no route" (the router
  /// drops the packet with reason no_route). Ejection to the destination node
  /// is a candidate on the node's port with vc_mask 1.
  virtual void route(const RouteQuery& q, RouteSet& out) const = 0;
  /// Called when the packet leaves on (port, vc); relations with header state
  /// update it here. Default: nothing.
  virtual void on_hop(PacketHeader& /*h*/, RouterId /*r*/, PortId /*port*/, VcId /*vc*/) const {}

  /// Static fault model with offline route computation (intermediate nodes,
  /// section 3): the faults present from cycle 0, given once before the run.
  /// Default: nothing (relations that read port_alive at run time).
  virtual void set_static_faults(const FaultSet& /*faults*/) {}
  /// True when the relation supports only faults present from cycle 0 (the
  /// run rejects later faults and repairs with a ConfigError).
  virtual bool static_faults_only() const { return false; }
  /// Extra header flits of a packet from src to dst (subheaders of Figure 8
  /// in the intermediate-nodes paper); added to the packet's length.
  virtual int header_overhead_flits(NodeId /*src*/, NodeId /*dst*/, int /*flit_bytes*/) const { return 0; }
  /// Largest header_overhead_flits over all pairs (for buffer checks).
  virtual int max_header_overhead_flits(int /*flit_bytes*/) const { return 0; }
  /// The deadlock-freedom claim `sim.check_deadlock_freedom` checks (after
  /// configure()). Default: none.
  virtual DeadlockClaim deadlock_claim() const { return {}; }
  /// Figures for stats.json ("routing" object): name -> number.
  virtual std::vector<std::pair<std::string, double>> report() const { return {}; }

  const Topology& topology() const { return *m_topo; }
  int vcs() const { return m_vcs; }

  /// Binds the relation to a topology and a VC count. Throws ConfigError when
  /// the topology kind is wrong or vcs < min_vcs() or vcs > 16.
  void configure(const Topology& topo, int vcs);

 protected:
  virtual void check_topology(const Topology& topo) const = 0;
  virtual void on_configure() {}
  std::uint32_t all_vcs() const { return m_all_vcs; }

 private:
  const Topology* m_topo = nullptr;
  int m_vcs = 0;
  std::uint32_t m_all_vcs = 0;
};

/// Registry of routing relations by name ("dor", "dor-dateline", "duato",
/// "updown", "mikant-shortest", ..., then the user's). Throws ConfigError for
/// an unknown name, listing the known ones.
std::unique_ptr<RoutingRelation> make_routing(const std::string& name);
/// Built-in and registered relations: (name, description).
std::vector<std::pair<std::string, std::string>> routing_names();

/// Makes a new, unconfigured relation (the network configures it).
using RoutingFactory = std::function<std::unique_ptr<RoutingRelation>()>;
/// Registers a user routing relation under `name`, so that `routing: name`
/// in an experiment (and make_routing) builds it. Process-wide, thread-safe;
/// register before loading experiments. Throws ConfigError for an empty name,
/// a name of a built-in relation (or starting with "inodes:"), a name
/// registered before, or an empty factory.
void register_routing(const std::string& name, const std::string& description, RoutingFactory factory);

}  // namespace ftsim::routing
