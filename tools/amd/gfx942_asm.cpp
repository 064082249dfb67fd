// See gfx942_asm.hpp.
#include "gfx942_asm.hpp"

#include <algorithm>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <stdexcept>

namespace nova::amd {

Counts& Counts::operator+=(const Counts& o) {
  mfma += o.mfma, valu += o.valu, salu += o.salu, smem += o.smem, control += o.control;
  lds_reads += o.lds_reads, lds_writes += o.lds_writes, lds_read_bytes += o.lds_read_bytes, lds_write_bytes += o.lds_write_bytes;
  global_loads += o.global_loads, global_stores += o.global_stores;
  global_load_bytes += o.global_load_bytes, global_store_bytes += o.global_store_bytes;
  fp32_arith += o.fp32_arith;
  return *this;
}
Counts Counts::times(long long k) const {
  Counts c;
  c.mfma = mfma * k, c.valu = valu * k, c.salu = salu * k, c.smem = smem * k, c.control = control * k;
  c.lds_reads = lds_reads * k, c.lds_writes = lds_writes * k, c.lds_read_bytes = lds_read_bytes * k;
  c.lds_write_bytes = lds_write_bytes * k, c.global_loads = global_loads * k, c.global_stores = global_stores * k;
  c.global_load_bytes = global_load_bytes * k, c.global_store_bytes = global_store_bytes * k;
  c.fp32_arith = fp32_arith * k;
  return c;
}
Counts operator+(Counts a, const Counts& b) { return a += b; }
bool operator==(const Counts& a, const Counts& b) {
  return a.mfma == b.mfma && a.valu == b.valu && a.salu == b.salu && a.smem == b.smem && a.control == b.control &&
         a.lds_reads == b.lds_reads && a.lds_writes == b.lds_writes && a.lds_read_bytes == b.lds_read_bytes &&
         a.lds_write_bytes == b.lds_write_bytes && a.global_loads == b.global_loads && a.global_stores == b.global_stores &&
         a.global_load_bytes == b.global_load_bytes && a.global_store_bytes == b.global_store_bytes &&
         a.fp32_arith == b.fp32_arith;
}

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

// Bytes of one element of a memory instruction, from the width in its name: the part after the
// operation ("b64", "dwordx2", "ushort", "short_d16_hi", ...).
int element_bytes(const std::string& width) {
  static const std::map<std::string, int> widths = {
      {"b8", 1},        {"u8", 1},          {"i8", 1},        {"b16", 2},          {"u16", 2},          {"i16", 2},
      {"b32", 4},       {"b64", 8},         {"b96", 12},      {"b128", 16},        {"ubyte", 1},        {"sbyte", 1},
      {"byte", 1},      {"ushort", 2},      {"sshort", 2},    {"short", 2},        {"dword", 4},        {"dwordx2", 8},
      {"dwordx3", 12},  {"dwordx4", 16},    {"u8_d16", 1},    {"u8_d16_hi", 1},    {"i8_d16", 1},       {"i8_d16_hi", 1},
      {"u16_d16", 2},   {"u16_d16_hi", 2},  {"b8_d16_hi", 1}, {"b16_d16_hi", 2},   {"ubyte_d16", 1},    {"ubyte_d16_hi", 1},
      {"sbyte_d16", 1}, {"sbyte_d16_hi", 1}, {"short_d16", 2}, {"short_d16_hi", 2}, {"byte_d16_hi", 1}};
  const auto it = widths.find(width);
  return it == widths.end() ? 0 : it->second;
}

}  // namespace

int bytes_per_lane(const std::string& mnemonic) {
  // LDS: ds_read / ds_write (gfx9 names) or ds_load / ds_store (gfx11 names); read2 and write2 move
  // two elements (their st64 forms too, at other offsets).
  for (const char* op : {"ds_read", "ds_write", "ds_load", "ds_store"}) {
    if (!starts_with(mnemonic, op)) continue;
    std::string rest = mnemonic.substr(std::string(op).size());
    int elements = 1;
    if (starts_with(rest, "2st64_")) elements = 2, rest = rest.substr(6);
    else if (starts_with(rest, "2_")) elements = 2, rest = rest.substr(2);
    else if (starts_with(rest, "_")) rest = rest.substr(1);
    else return 0;
    const int bytes = element_bytes(rest);
    return bytes == 0 ? 0 : elements * bytes;
  }
  for (const char* op : {"global_load_", "global_store_", "buffer_load_", "buffer_store_", "flat_load_", "flat_store_"})
    if (starts_with(mnemonic, op)) return element_bytes(mnemonic.substr(std::string(op).size()));
  return 0;
}

bool fp32_arith(const std::string& mn) {
  static const std::regex pattern(R"(^v_(add|sub|subrev|fma|fmac|fmamk|fmaak|mac|mad|pk_add|pk_fma)_f32(_.*)?$)");
  return std::regex_match(mn, pattern);
}

void count_instruction(const std::string& mn, Counts& c) {
  if (starts_with(mn, "v_mfma")) {
    ++c.mfma;
  } else if (starts_with(mn, "v_")) {
    ++c.valu;
    if (fp32_arith(mn)) ++c.fp32_arith;
  } else if (starts_with(mn, "ds_")) {
    const int bytes = bytes_per_lane(mn);
    if (bytes == 0) fail("LDS instruction the model does not count: " + mn);
    if (starts_with(mn, "ds_read") || starts_with(mn, "ds_load")) ++c.lds_reads, c.lds_read_bytes += bytes;
    else ++c.lds_writes, c.lds_write_bytes += bytes;
  } else if (starts_with(mn, "global_") || starts_with(mn, "buffer_") || starts_with(mn, "flat_")) {
    const int bytes = bytes_per_lane(mn);
    // Loads into LDS (global_load_lds_*), atomics and cache controls are not counted: none is expected.
    if (bytes == 0 || mn.find("_lds_") != std::string::npos) fail("memory instruction the model does not count: " + mn);
    if (mn.find("_load_") != std::string::npos) ++c.global_loads, c.global_load_bytes += bytes;
    else ++c.global_stores, c.global_store_bytes += bytes;
  } else if (starts_with(mn, "scratch_")) {
    fail("scratch access (" + mn + "): the MFMA kernels must not spill");
  } else if (starts_with(mn, "s_load_") || starts_with(mn, "s_buffer_load_")) {
    ++c.smem;
  } else if (mn == "s_waitcnt" || starts_with(mn, "s_waitcnt_") || mn == "s_nop" || mn == "s_barrier" || mn == "s_branch" ||
             starts_with(mn, "s_cbranch_") || mn == "s_endpgm" || mn == "s_setprio" || mn == "s_sleep") {
    ++c.control;
  } else if (starts_with(mn, "s_setpc") || starts_with(mn, "s_swappc") || starts_with(mn, "s_getpc") ||
             starts_with(mn, "s_call")) {
    fail("indirect control flow (" + mn + ") the graph cannot follow");
  } else if (starts_with(mn, "s_")) {
    ++c.salu;
  } else {
    fail("instruction of no known class: " + mn);
  }
}

const char* role_name(Role r) {
  switch (r) {
    case Role::none: return "-";
    case Role::chunk: return "chunk";
    case Role::transform: return "transform";
    case Role::step: return "step";
    case Role::origins: return "origins";
    case Role::store: return "store";
  }
  return "?";
}

Counts Kernel::counts() const {
  Counts c;
  for (const Block& b : blocks) c += b.counts;
  return c;
}

namespace {

// The cycles of the blocks `set` (edges into `cut`, the enclosing loop's header, removed), as
// strongly connected components with more than one block or a block that branches to itself.
std::vector<std::vector<int>> cycles(const Kernel& k, const std::vector<int>& set, int cut) {
  std::vector<int> index(k.blocks.size(), -1), low(k.blocks.size(), 0), stack;
  std::vector<bool> member(k.blocks.size(), false), on_stack(k.blocks.size(), false);
  for (int b : set) member[b] = true;
  std::vector<std::vector<int>> out;
  int next = 0;
  const std::function<void(int)> visit = [&](int v) {
    index[v] = low[v] = next++;
    stack.push_back(v), on_stack[v] = true;
    for (int w : k.blocks[v].successors) {
      if (!member[w] || w == cut) continue;
      if (index[w] < 0) visit(w), low[v] = std::min(low[v], low[w]);
      else if (on_stack[w]) low[v] = std::min(low[v], index[w]);
    }
    if (low[v] != index[v]) return;
    std::vector<int> scc;
    int w;
    do {
      w = stack.back(), stack.pop_back(), on_stack[w] = false;
      scc.push_back(w);
    } while (w != v);
    const bool self = std::find(k.blocks[v].successors.begin(), k.blocks[v].successors.end(), v) != k.blocks[v].successors.end();
    if (scc.size() > 1 || (self && v != cut)) {
      std::sort(scc.begin(), scc.end());
      out.push_back(scc);
    }
  };
  for (int b : set)
    if (index[b] < 0) visit(b);
  std::sort(out.begin(), out.end());
  return out;
}

void find_loops(Kernel& k, const std::vector<int>& set, int cut, int parent, int depth) {
  for (const std::vector<int>& scc : cycles(k, set, cut)) {
    int header = -1;
    for (int b : scc) {
      if (!k.blocks[b].llvm_is_header) continue;
      if (header < 0 || k.blocks[b].llvm_depth < k.blocks[header].llvm_depth) header = b;
      else if (k.blocks[b].llvm_depth == k.blocks[header].llvm_depth)
        fail(k.name + ": a cycle with two loop headers of one depth, " + k.blocks[header].label + " and " + k.blocks[b].label);
    }
    if (header < 0) fail(k.name + ": a cycle through " + k.blocks[scc.front()].label + " that LLVM names no loop header for");
    if (k.blocks[header].llvm_depth != depth)
      fail(k.name + ": loop " + k.blocks[header].label + " is at depth " + std::to_string(depth) + " in the graph, " +
           std::to_string(k.blocks[header].llvm_depth) + " in LLVM's comments");
    const int id = static_cast<int>(k.loops.size());
    Loop loop;
    loop.header = header, loop.parent = parent, loop.depth = depth, loop.blocks = scc;
    for (int b : scc) loop.counts += k.blocks[b].counts, k.blocks[b].loop = id;
    k.loops.push_back(loop);
    if (parent >= 0) k.loops[parent].children.push_back(id);
    find_loops(k, scc, header, id, depth + 1);
  }
}

void finish_kernel(Kernel& k, const std::vector<std::vector<std::string>>& targets) {
  std::map<std::string, int> by_label;
  for (int b = 0; b < static_cast<int>(k.blocks.size()); ++b) by_label[k.blocks[b].label] = b;
  for (int b = 0; b < static_cast<int>(k.blocks.size()); ++b)
    for (const std::string& t : targets[b]) {
      const auto it = by_label.find(t);
      if (it == by_label.end()) fail(k.name + ": branch to an unknown label " + t);
      if (std::find(k.blocks[b].successors.begin(), k.blocks[b].successors.end(), it->second) == k.blocks[b].successors.end())
        k.blocks[b].successors.push_back(it->second);
    }
  std::vector<int> all(k.blocks.size());
  for (int b = 0; b < static_cast<int>(all.size()); ++b) all[b] = b;
  find_loops(k, all, -1, -1, 1);
  for (const Block& b : k.blocks)
    if (b.llvm_is_header && (b.loop < 0 || k.loops[b.loop].header != static_cast<int>(&b - k.blocks.data())))
      fail(k.name + ": LLVM names " + b.label + " a loop header, but no cycle of the graph goes through it");
}

}  // namespace

std::vector<Kernel> read_kernels(std::istream& in, const std::string& name_part) {
  static const std::regex function_label(R"(^([A-Za-z_][A-Za-z0-9_$]*):)");
  static const std::regex block_label(R"(^(\.LBB[0-9_]+):|^; (%bb\.[0-9]+):)");
  static const std::regex in_loop(R"(in Loop: Header=BB([0-9_]+) Depth=([0-9]+))");
  static const std::regex is_header(R"(Loop Header: Depth=([0-9]+))");
  static const std::regex info(R"(^; (TotalNumVgprs|Occupancy|ScratchSize): ([0-9]+))");
  std::vector<Kernel> kernels;
  Kernel* k = nullptr;  // the kernel being read
  Kernel* after = nullptr;  // the kernel whose "Kernel info" comments may follow
  std::vector<std::vector<std::string>> targets;
  enum class State { open, after_conditional, closed } state = State::open;
  bool block_comments = false;  // comment lines right after a label belong to it
  std::string line;
  int number = 0;
  const auto new_block = [&](const std::string& label) {
    if (!k->blocks.empty() && state != State::closed) k->blocks.back().successors.push_back(static_cast<int>(k->blocks.size()));
    Block b;
    b.label = label, b.line = number;
    k->blocks.push_back(b);
    targets.emplace_back();
    state = State::open;
  };
  const auto loop_comment = [&](const std::string& text) {
    Block& b = k->blocks.back();
    std::smatch m;
    if (std::regex_search(text, m, is_header)) b.llvm_is_header = true, b.llvm_header = b.label, b.llvm_depth = std::stoi(m[1]);
    else if (std::regex_search(text, m, in_loop)) b.llvm_header = ".LBB" + m[1].str(), b.llvm_depth = std::stoi(m[2]);
  };
  while (std::getline(in, line)) {
    ++number;
    std::smatch m;
    if (!k) {
      if (after && std::regex_search(line, m, info)) {
        const int value = std::stoi(m[2]);
        if (m[1] == "TotalNumVgprs") after->total_vgprs = value;
        else if (m[1] == "Occupancy") after->occupancy = value;
        else after->scratch_bytes = value;
      }
      if (std::regex_search(line, m, function_label)) {
        after = nullptr;
        if (m[1].str().find(name_part) != std::string::npos) {
          kernels.emplace_back();
          k = &kernels.back();
          k->name = m[1];
          targets.clear();
          state = State::closed;  // no fall-through into the first block
        }
      }
      continue;
    }
    if (starts_with(line, ".Lfunc_end")) {
      if (k->blocks.empty()) fail(k->name + ": no instructions");
      if (state != State::closed) fail(k->name + ": the last block falls off the end of the function");
      finish_kernel(*k, targets);
      after = k, k = nullptr;
      continue;
    }
    if (std::regex_search(line, m, block_label)) {
      new_block(m[1].matched ? m[1].str() : m[2].str());
      loop_comment(line);
      block_comments = true;
      continue;
    }
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == ';') {
      if (block_comments) loop_comment(line);
      continue;
    }
    block_comments = false;
    if (line[0] != '\t' || line[1] < 'a' || line[1] > 'z') continue;  // a directive or a label of data
    const std::size_t end = line.find_first_of(" \t", 1);
    const std::string mnemonic = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    if (k->blocks.empty()) new_block("%entry");
    Block& b = k->blocks.back();
    const bool branch = mnemonic == "s_branch" || starts_with(mnemonic, "s_cbranch_");
    if (state == State::closed || (state == State::after_conditional && !branch))
      fail(k->name + ": line " + std::to_string(number) + ": an instruction after the last branch of block " + b.label);
    count_instruction(mnemonic, b.counts);
    if (branch) {
      const std::size_t at = line.find_first_not_of(" \t", end);
      const std::size_t stop = line.find_first_of(" \t;", at);
      if (at == std::string::npos) fail(k->name + ": line " + std::to_string(number) + ": a branch without a target");
      targets.back().push_back(line.substr(at, stop == std::string::npos ? std::string::npos : stop - at));
      state = mnemonic == "s_branch" ? State::closed : State::after_conditional;
    } else if (mnemonic == "s_endpgm") {
      b.ends_program = true;
      state = State::closed;
    }
  }
  if (k) fail(k->name + ": the file ends inside the function");
  return kernels;
}

KernelName parse_kernel_name(const std::string& symbol) {
  static const std::regex pattern(R"(^nova_f([0-9]+)x([0-9]+)_(.+)_fused_mfma_(nhwc|nchw)_(f16|bf16)_v([0-9]+)$)");
  std::smatch m;
  if (!std::regex_match(symbol, m, pattern)) fail("not an MFMA fused kernel's symbol: " + symbol);
  KernelName n;
  n.m = std::stoi(m[1]), n.r = std::stoi(m[2]), n.n = n.m + n.r - 1;
  n.transform = "f" + m[1].str() + "x" + m[2].str() + "_" + m[3].str();
  n.layout = m[4], n.type = m[5], n.variant = std::stoi(m[6]);
  return n;
}

long long path_weight(const Counts& c) {
  return 16 * c.mfma + 4 * (c.valu + c.lds_reads + c.lds_writes + c.global_loads + c.global_stores) + c.salu + c.smem;
}

Counts path_counts(const Kernel& k, int loop, PathEnd end, const std::vector<Counts>& loop_cost, const PathQuery& q) {
  const int blocks = static_cast<int>(k.blocks.size());
  const auto inside = [&](int b) {  // is block b in `loop` (-1: everywhere)?
    for (int l = k.blocks[b].loop; l >= 0; l = k.loops[l].parent)
      if (l == loop) return true;
    return loop < 0;
  };
  // Nodes: 0 .. blocks-1 the blocks of the region itself, blocks + l loop l directly inside it.
  const auto node = [&](int b) {
    if (!inside(b)) return -1;
    int l = k.blocks[b].loop;
    if (l == loop) return b;
    while (k.loops[l].parent != loop) l = k.loops[l].parent;
    return blocks + l;
  };
  const int header = loop < 0 ? 0 : k.loops[loop].header;
  const int nodes = blocks + static_cast<int>(k.loops.size());
  std::vector<std::vector<int>> next(nodes);
  std::vector<bool> ends(nodes, false);  // an edge to the path's end (repeat or leave, as asked)
  for (int b = 0; b < blocks; ++b) {
    if (!inside(b)) continue;
    const int u = node(b);
    if (k.blocks[b].ends_program) {
      if (loop >= 0) fail(k.name + ": s_endpgm inside loop " + k.blocks[header].label);
      ends[u] = ends[u] || end == PathEnd::leave;
    }
    for (int s : k.blocks[b].successors) {
      if (loop >= 0 && s == header) {
        ends[u] = ends[u] || end == PathEnd::repeat;
        continue;
      }
      const int v = node(s);
      if (v < 0) {
        ends[u] = ends[u] || end == PathEnd::leave;
      } else if (v != u) {
        if (std::find(next[u].begin(), next[u].end(), v) == next[u].end()) next[u].push_back(v);
      } else if (u < blocks) {
        fail(k.name + ": block " + k.blocks[b].label + " branches to itself but heads no loop");
      }
    }
  }
  const auto cost = [&](int v) {
    if (v < blocks) return k.blocks[v].counts;
    if (v - blocks >= static_cast<int>(loop_cost.size())) fail(k.name + ": no cost given for a nested loop");
    return loop_cost[v - blocks];
  };
  // Topological order of the nodes reachable from the entry (Kahn); a cycle left means a loop the
  // nesting did not find.
  std::vector<int> indegree(nodes, 0), order, reach{node(header)};
  std::vector<bool> seen(nodes, false);
  seen[reach[0]] = true;
  for (std::size_t i = 0; i < reach.size(); ++i)
    for (int v : next[reach[i]])
      if (!seen[v]) seen[v] = true, reach.push_back(v);
  for (int u : reach)
    for (int v : next[u]) ++indegree[v];
  std::vector<int> ready{reach[0]};
  while (!ready.empty()) {
    const int u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (int v : next[u])
      if (--indegree[v] == 0) ready.push_back(v);
  }
  if (order.size() != reach.size()) fail(k.name + ": a cycle left in the region of " + k.blocks[header].label);

  // Best path to the end of each node: one state (costliest), or one per byte count up to q.bytes.
  struct State {
    long long weight;
    Counts counts;
  };
  using Pick = PathQuery::Pick;
  const bool unbounded = q.pick == Pick::costliest, at_most = q.pick == Pick::costliest_loading_at_most;
  const bool costliest = unbounded || at_most;
  const long long states = unbounded ? 1 : q.bytes + 1;
  const auto bytes_of = [&](const Counts& c) {
    return unbounded ? 0 : q.pick == Pick::cheapest_storing ? c.global_store_bytes : c.global_load_bytes;
  };
  const auto better = [&](long long a, long long b) { return costliest ? a > b : a < b; };
  std::vector<std::vector<std::optional<State>>> best(nodes, std::vector<std::optional<State>>(static_cast<std::size_t>(states)));
  const auto offer = [&](int v, long long s, const State& st) {
    if (s >= states) return;
    std::optional<State>& slot = best[v][static_cast<std::size_t>(s)];
    if (!slot || better(st.weight, slot->weight)) slot = st;
  };
  {
    const Counts c = cost(order[0]);
    offer(order[0], bytes_of(c), State{path_weight(c), c});
  }
  std::optional<State> answer;
  for (int u : order)
    for (long long s = 0; s < states; ++s) {
      const std::optional<State>& from = best[u][static_cast<std::size_t>(s)];
      if (!from) continue;
      if (ends[u] && (at_most || s == states - 1) && (!answer || better(from->weight, answer->weight))) answer = from;
      for (int v : next[u]) {
        const Counts c = cost(v);
        offer(v, s + bytes_of(c), State{from->weight + path_weight(c), from->counts + c});
      }
    }
  if (!answer)
    fail(k.name + ": no path through the region of " + k.blocks[header].label +
         (unbounded ? std::string() : " that moves " + std::string(at_most ? "at most " : "") + std::to_string(q.bytes) + " bytes a lane"));
  return answer->counts;
}

KernelSummary summarize(Kernel& k) {
  KernelSummary s;
  s.name = parse_kernel_name(k.name);
  s.total_vgprs = k.total_vgprs, s.occupancy = k.occupancy;
  const int n = s.name.n, m = s.name.m;
  if (k.scratch_bytes != 0) fail(k.name + ": uses scratch");
  if (k.occupancy <= 0) fail(k.name + ": no \"; Occupancy:\" in the kernel info");
  // Roles from contents.
  int chunk = -1, transform = -1, step = -1;
  for (int l = 0; l < static_cast<int>(k.loops.size()); ++l) {
    Loop& loop = k.loops[l];
    const Counts& c = loop.counts;
    const std::string where = k.name + ": loop " + k.blocks[loop.header].label;
    if (loop.depth == 1) {
      if (c.mfma > 0) {
        if (chunk >= 0) fail(where + ": a second depth-1 loop with v_mfma");
        chunk = l, loop.role = Role::chunk;
      } else if (!loop.children.empty()) {
        fail(where + ": a nested loop outside the chunk loop");
      } else if (c.lds_writes > 0 && c.global_stores == 0 && c.global_loads == 0) {
        loop.role = Role::origins;
      } else if (c.global_stores > 0 && c.lds_writes == 0 && c.global_loads == 0 && c.lds_reads == 0) {
        loop.role = Role::store;
      } else {
        fail(where + ": a depth-1 loop that is neither the chunk loop, the tile origins nor an epilogue store loop");
      }
    } else if (loop.depth == 2 && loop.parent == chunk && chunk >= 0) {
      if (!loop.children.empty()) fail(where + ": a loop nested in it");
      if (c.mfma > 0 && c.lds_writes == 0 && c.global_stores == 0) {
        if (step >= 0)
          fail(where + ": a second step loop in the chunk loop (v1 had n, one a domain row; v2 has one, all n^2 positions " +
               "an iteration)");
        step = l, loop.role = Role::step;
      } else if (c.mfma == 0 && c.lds_writes > 0 && c.global_loads > 0 && c.global_stores == 0) {
        if (transform >= 0) fail(where + ": a second input-transform loop");
        transform = l, loop.role = Role::transform;
      } else {
        fail(where + ": a loop in the chunk loop that is neither the input transform nor the step loop");
      }
    } else {
      fail(where + ": depth " + std::to_string(loop.depth) + " outside the expected nesting");
    }
  }
  if (chunk < 0) fail(k.name + ": no chunk loop (a depth-1 loop with v_mfma)");
  if (transform < 0) fail(k.name + ": no input-transform loop in the chunk loop");
  if (step < 0) fail(k.name + ": no step loop in the chunk loop");
  s.static_mfma = static_cast<int>(k.loops[step].counts.mfma);
  if (s.static_mfma != k.counts().mfma) fail(k.name + ": v_mfma outside the step loop");
  // M stays in the v_mfma accumulators through every chunk: the chunk loop's own blocks and the step
  // loop do no fp32 arithmetic (v1's fold of each domain row after each chunk did it there).
  for (const Block& b : k.blocks)
    if ((b.loop == chunk || b.loop == step) && b.counts.fp32_arith > 0)
      fail(k.name + ": block " + b.label + " of the " + (b.loop == step ? "step" : "chunk") + " loop does " +
           std::to_string(b.counts.fp32_arith) + " fp32 adds or FMAs: an output fold inside the chunk loop (v1), where " +
           "the model expects M in registers through every chunk and one fold after the loop (v2)");

  const std::vector<Counts> none(k.loops.size());
  const PathQuery costliest;
  s.steps_repeat = path_counts(k, step, PathEnd::repeat, none, costliest);
  s.steps_leave = path_counts(k, step, PathEnd::leave, none, costliest);
  for (const Counts* c : {&s.steps_repeat, &s.steps_leave})
    if (c->mfma == 0 || c->mfma % (n * n) != 0 || c->mfma != s.static_mfma)
      fail(k.name + ": step loop " + k.blocks[k.loops[step].header].label + " runs " + std::to_string(c->mfma) +
           " v_mfma on a path through an iteration, not all its " + std::to_string(s.static_mfma) + ", n^2 x tile groups (n = " +
           std::to_string(n) + ")");
  s.tile_groups = static_cast<int>(s.steps_repeat.mfma / (n * n));
  s.chunk_repeat = path_counts(k, chunk, PathEnd::repeat, none, costliest);
  s.chunk_leave = path_counts(k, chunk, PathEnd::leave, none, costliest);
  // The input transform of a tile inside the image: one channel of each of the n^2 patch elements,
  // 2 bytes each, loaded once.
  const PathQuery interior{PathQuery::Pick::cheapest_loading, 2LL * n * n};
  s.transform_interior_repeat = path_counts(k, transform, PathEnd::repeat, none, interior);
  s.transform_interior_leave = path_counts(k, transform, PathEnd::leave, none, interior);
  // A wave with interior and border tiles runs both of walk_patch's paths, each element at most twice.
  const PathQuery border{PathQuery::Pick::costliest_loading_at_most, 4LL * n * n};
  s.transform_border_repeat = path_counts(k, transform, PathEnd::repeat, none, border);
  s.transform_border_leave = path_counts(k, transform, PathEnd::leave, none, border);
  // Outside every loop: the tile-origin loops run once (a block's tiles are fewer than its
  // threads), each store loop 4 times (the lane's 4 output channels), the chunk loop is counted
  // apart; the epilogue stores 4 channels (2 bytes each) of m^2 pixels of each tile group.
  std::vector<Counts> cost(k.loops.size());
  for (int l = 0; l < static_cast<int>(k.loops.size()); ++l) {
    if (k.loops[l].role == Role::origins) cost[l] = path_counts(k, l, PathEnd::leave, none, costliest);
    if (k.loops[l].role == Role::store)
      cost[l] = path_counts(k, l, PathEnd::repeat, none, costliest).times(3) + path_counts(k, l, PathEnd::leave, none, costliest);
  }
  s.outside = path_counts(k, -1, PathEnd::leave, cost, {PathQuery::Pick::cheapest_storing, 8LL * s.tile_groups * m * m});
  // The one output fold is on that path: more fp32 arithmetic than the bias adds (4 channels of m^2
  // pixels of each tile group).
  if (s.outside.fp32_arith <= 4LL * s.tile_groups * m * m)
    fail(k.name + ": " + std::to_string(s.outside.fp32_arith) + " fp32 adds or FMAs after the chunk loop, no more than the " +
         std::to_string(4LL * s.tile_groups * m * m) + " bias adds: no output fold there");
  return s;
}

void print_counts_header(std::ostream& out) {
  out << "mfma\tvalu\tsalu\tsmem\tcontrol\tlds_reads\tlds_read_bytes\tlds_writes\tlds_write_bytes\tglobal_loads\t"
         "global_load_bytes\tglobal_stores\tglobal_store_bytes\tfp32_arith";
}
void print_counts(std::ostream& out, const Counts& c) {
  out << c.mfma << '\t' << c.valu << '\t' << c.salu << '\t' << c.smem << '\t' << c.control << '\t' << c.lds_reads << '\t'
      << c.lds_read_bytes << '\t' << c.lds_writes << '\t' << c.lds_write_bytes << '\t' << c.global_loads << '\t'
      << c.global_load_bytes << '\t' << c.global_stores << '\t' << c.global_store_bytes << '\t' << c.fp32_arith;
}

void print_kernel(std::ostream& out, Kernel& k, bool summary) {
  // Roles first, so that the block and loop lines can name them.
  std::optional<KernelSummary> s;
  if (summary) s = summarize(k);
  const auto loop_label = [&](int l) { return l < 0 ? std::string("-") : k.blocks[k.loops[l].header].label; };
  out << "kernel\t" << k.name << "\tvgprs " << k.total_vgprs << "\toccupancy " << k.occupancy << "\tscratch " << k.scratch_bytes
      << "\tblocks " << k.blocks.size() << "\tloops " << k.loops.size() << '\n';
  out << "#block\tlabel\tline\tloop\tdepth\trole\tllvm_loop\tllvm_depth\t";
  print_counts_header(out);
  out << '\n';
  for (const Block& b : k.blocks) {
    const int depth = b.loop < 0 ? 0 : k.loops[b.loop].depth;
    out << "block\t" << b.label << '\t' << b.line << '\t' << loop_label(b.loop) << '\t' << depth << '\t'
        << role_name(b.loop < 0 ? Role::none : k.loops[b.loop].role) << '\t' << (b.llvm_header.empty() ? "-" : b.llvm_header)
        << '\t' << b.llvm_depth << '\t';
    print_counts(out, b.counts);
    out << '\n';
  }
  out << "#loop\theader\tdepth\tparent\trole\tblocks\t";
  print_counts_header(out);
  out << '\n';
  for (const Loop& l : k.loops) {
    out << "loop\t" << k.blocks[l.header].label << '\t' << l.depth << '\t' << loop_label(l.parent) << '\t' << role_name(l.role)
        << '\t' << l.blocks.size() << '\t';
    print_counts(out, l.counts);
    out << '\n';
  }
  out << "#total\t";
  print_counts_header(out);
  out << "\ntotal\t";
  print_counts(out, k.counts());
  out << '\n';
  if (!s) return;
  out << "#path (tile groups " << s->tile_groups << ", n " << s->name.n << ")\t";
  print_counts_header(out);
  out << '\n';
  const std::pair<const char*, const Counts*> paths[] = {
      {"outside", &s->outside},
      {"chunk_repeat", &s->chunk_repeat},
      {"chunk_leave", &s->chunk_leave},
      {"transform_interior_repeat", &s->transform_interior_repeat},
      {"transform_interior_leave", &s->transform_interior_leave},
      {"transform_border_repeat", &s->transform_border_repeat},
      {"transform_border_leave", &s->transform_border_leave},
      {"steps_repeat", &s->steps_repeat},
      {"steps_leave", &s->steps_leave}};
  for (const auto& [name, c] : paths) {
    out << "path\t" << name << '\t';
    print_counts(out, *c);
    out << '\n';
  }
}

}  // namespace nova::amd
