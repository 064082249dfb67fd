// Instruction counts of the MFMA fused kernels (runtime/kernels/include/nova/kernels/fused_mfma_kernels.hpp)
// from their gfx942 assembly (clang -S, as tools/check_kernel_compile.sh writes it with
// NOVA_KERNEL_ASM), for the MI300X prediction (tools/amd/predict_mi300x.sh). No AMD GPU is involved:
// this reads text.
//
// A kernel is split into basic blocks at its labels; each block's instructions are counted by class
// (Counts). The control-flow graph comes from the branches (s_branch, s_cbranch_*, fall-through,
// s_endpgm); its loops are the cycles of that graph, nested as strongly connected components, each
// headed by the block LLVM's comments call the loop's header ("; =>This Inner Loop Header:
// Depth=2"), so a loop that block placement gave a second entry is still one loop (LLVM's comments
// are computed before that placement and may leave such a block in the outer loop: the table shows
// both). Loops are then named by what they contain (Role), and the structure of the v2 kernel
// (commit 5d336fb: M in registers through every chunk, one output fold after the chunk loop) is
// checked: one chunk loop at depth 1 holding one input-transform loop (LDS stores and global loads)
// and one step loop (a channel step: n^2 x tile groups v_mfma an iteration), the v_mfma nowhere
// else; no fp32 arithmetic in the chunk loop's own blocks or the step loop (v1 folded M into the
// outputs there after every chunk); after the chunk loop, on the path the model counts, more fp32
// arithmetic than the bias adds (the one output fold); beside the chunk loop only the tile-origin
// loops (LDS stores) and the per-channel store loops of the epilogue. Anything else throws.
//
// Dynamic counts need the path a wave takes through each loop body: PathQuery picks the costliest
// path (every exec-masked region entered, as a wave with lanes on both sides of each branch runs
// it), the costliest that loads at most a given number of bytes a lane (a wave with tiles on both
// sides of the input transform's interior/border branch: each patch element at most twice, so that
// alternatives a uniform condition selects are not both counted), or the cheapest one that moves
// exactly a given number of bytes a lane (the input transform of interior tiles: every patch
// element loaded once, 2 bytes of one channel; the epilogue: every output stored once).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace nova::amd {

// Instructions of one block (or a path, or a whole launch) by class. Bytes are per lane: a wave64
// instruction moves 64 times as many where every lane is active.
struct Counts {
  long long mfma = 0;         // v_mfma_*
  long long valu = 0;         // every other v_* (v_accvgpr_*, v_readfirstlane, packed fp32 included)
  long long salu = 0;         // s_* arithmetic, logic, moves, compares, exec-mask updates
  long long smem = 0;         // s_load_* / s_buffer_load_* (scalar memory)
  long long control = 0;      // s_waitcnt, s_nop, s_barrier, s_branch, s_cbranch_*, s_endpgm (no unit time)
  long long lds_reads = 0;    // ds_read* instructions
  long long lds_writes = 0;   // ds_write* instructions
  long long lds_read_bytes = 0, lds_write_bytes = 0;
  long long global_loads = 0, global_stores = 0;  // global_/buffer_/flat_ loads and stores
  long long global_load_bytes = 0, global_store_bytes = 0;
  // Of the VALU: fp32 adds, subtracts and FMAs (fp32_arith()), what an output fold is made of (and
  // the input transform, the bias); not an instruction class of its own, so not in instructions().
  long long fp32_arith = 0;

  Counts& operator+=(const Counts& o);
  Counts times(long long k) const;
  long long instructions() const { return mfma + valu + salu + smem + control + lds_reads + lds_writes + global_loads + global_stores; }
};
Counts operator+(Counts a, const Counts& b);
bool operator==(const Counts& a, const Counts& b);

// Adds one instruction (its mnemonic, e.g. "ds_read2st64_b64") to `c`. Throws std::runtime_error for
// a memory instruction the model does not know (scratch, atomics, LDS DMA, an unknown width), so that
// nothing is miscounted silently.
void count_instruction(const std::string& mnemonic, Counts& c);
// Bytes a lane moves with an LDS or global memory instruction (0 for any other).
int bytes_per_lane(const std::string& mnemonic);
// Whether a VALU instruction is an fp32 add, subtract or FMA (v_add_f32, v_sub_f32, v_subrev_f32,
// v_fma_f32, v_fmac_f32, v_fmamk_f32, v_fmaak_f32, v_mac_f32, v_mad_f32, v_pk_add_f32, v_pk_fma_f32,
// any encoding). Not v_mul_f32: LLVM's 32-bit integer division (v_rcp_iflag_f32, v_mul_f32 by
// 0x4f7ffffe) has one, in the chunk loop too.
bool fp32_arith(const std::string& mnemonic);

enum class Role { none, chunk, transform, step, origins, store };
const char* role_name(Role r);

struct Block {
  std::string label;         // ".LBB40_27", or "%bb.5" for a block LLVM left unlabelled
  int line = 0;              // of the label in the file
  Counts counts;
  std::vector<int> successors;
  bool ends_program = false;  // s_endpgm
  std::string llvm_header;    // the loop LLVM's comments put the block in ("" outside any), e.g. ".LBB40_24"
  int llvm_depth = 0;
  bool llvm_is_header = false;
  int loop = -1;              // innermost loop (index into Kernel::loops), -1 outside every loop
};

struct Loop {
  int header = -1;            // block
  int parent = -1;            // loop, -1 at depth 1
  int depth = 1;
  std::vector<int> blocks;    // every block of the loop, nested loops' included
  std::vector<int> children;  // loops directly inside
  Role role = Role::none;
  Counts counts;              // static: every instruction of the loop, nested loops' included
};

struct Kernel {
  std::string name;
  std::vector<Block> blocks;
  std::vector<Loop> loops;
  // From LLVM's "; Kernel info:" comments after the function.
  int total_vgprs = 0, occupancy = 0, scratch_bytes = 0;
  Counts counts() const;  // static, the whole kernel
};

// Every kernel of an assembly file whose name contains `name_part`, with its blocks, graph and loops.
// Throws std::runtime_error on what it cannot follow (an indirect branch, an instruction after a
// block's last branch, a cycle LLVM names no header for, a branch to an unknown label).
std::vector<Kernel> read_kernels(std::istream& in, const std::string& name_part = "_fused_mfma_");

// The fused kernel's own facts, from its symbol nova_f<m>x<r>_<transform>_fused_mfma_<layout>_<type>_v<variant>.
struct KernelName {
  int m = 0, r = 0, n = 0;
  std::string transform, layout, type;
  int variant = -1;
};
KernelName parse_kernel_name(const std::string& symbol);

// A path through one loop body (one iteration: from the header to the edge back to it, or to the edge
// leaving the loop) or through the code outside every loop (from the entry to s_endpgm). Nested loops
// count as one node each, with the cost the caller gives per loop (a whole execution of it).
enum class PathEnd { repeat, leave };
struct PathQuery {
  enum class Pick { costliest, costliest_loading_at_most, cheapest_loading, cheapest_storing } pick = Pick::costliest;
  long long bytes = 0;  // per lane, global loads (or stores) on the path: at most (costliest_*) or exactly (cheapest_*)
};
// The cost that orders paths: issue cycles of one wave alone on its SIMD (4 a VALU or memory
// instruction, 16 an MFMA, 1 a scalar one).
long long path_weight(const Counts& c);
// Throws where the query has no path (no path moves exactly that many bytes).
Counts path_counts(const Kernel& k, int loop, PathEnd end, const std::vector<Counts>& loop_cost, const PathQuery& q);

// What the MI300X model needs of one kernel: the checked structure and the counts of the paths a
// wave takes, per execution of each part.
struct KernelSummary {
  KernelName name;
  int tile_groups = 0;  // v_mfma an iteration of the step loop / n^2
  int total_vgprs = 0, occupancy = 0;
  Counts outside;                        // prologue and epilogue (the output fold once), with the
                                         // tile-origin loops once and the store loops 4 times, the
                                         // path storing every output
  Counts chunk_repeat, chunk_leave;      // the chunk loop's own blocks, costliest path
  Counts transform_interior_repeat, transform_interior_leave;  // every patch element loaded
  Counts transform_border_repeat, transform_border_leave;      // costliest path loading each element at most twice
  Counts steps_repeat, steps_leave;      // an iteration of the step loop (one channel step)
  int static_mfma = 0;
};
// Checks the structure above and computes the paths; throws, naming the kernel, where it differs.
KernelSummary summarize(Kernel& k);

// The table of tools/amd/count_gfx942.cpp: one line per block, then each loop, then (with
// `summary`) the paths of summarize().
void print_kernel(std::ostream& out, Kernel& k, bool summary);
void print_counts_header(std::ostream& out);
void print_counts(std::ostream& out, const Counts& c);

}  // namespace nova::amd
