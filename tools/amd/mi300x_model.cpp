// nova-mi300x-model: a PREDICTION of the MFMA fused kernel's time on an AMD Instinct MI300X for the
// ResNet-50 and VGG-16 3x3 layers, from the instructions counted in its gfx942 assembly
// (gfx942_asm.hpp) and MI300X's published peaks. Nothing here runs on an AMD GPU.
//
// The launch is the kernel's own: this file includes fused_mfma_kernels.hpp (compiled for the host
// through the CPU emulation the tests use) and calls fused_mfma_launch, fused_mfma_grid,
// fused_mfma_shared_bytes, make_tile_grid, tile_origin and walk_patch, so the chunks, tile groups,
// grid and LDS are what a launch on MI300X would use. The counts of each part of the kernel (the
// code outside the loops, with the one output fold; the chunk loop's own blocks; an
// input-transform iteration of an interior or a border tile; an iteration of the step loop, one
// channel step) come from the assembly; the trip counts from that launch. The kernel is v2
// (commit 5d336fb): the counter (gfx942_asm.cpp, summarize) stops on any other structure.
//
// MI300X, as published (sources: AMD Instinct MI300X data sheet; AMD CDNA 3 architecture white
// paper; ROCm Compute Profiler's gfx942 "speed of light" configuration,
// src/omniperf_soc/analysis_configs/gfx942/0200_system-speed-of-light.yaml in ROCm/omniperf):
// 304 compute units of 4 SIMDs, 2100 MHz peak engine clock, 64 KB LDS a compute unit; 1307.4
// TFLOP/s dense fp16/bf16 matrix, 163.4 TFLOP/s fp32 vector, 5.3 TB/s HBM3; LDS 128 bytes a clock a
// compute unit, vector L1 64 bytes a clock a compute unit (the profiler's peaks).
// Rates a SIMD derived from them (kRates below checks the arithmetic):
//   matrix: 1307.4e12 / (304 x 4 x 2.1e9) = 512 flop a clock a SIMD; a v_mfma_f32_16x16x16 is
//           2 x 16^3 = 8192 flop, so 16 clocks;
//   vector: 163.4e12 / (304 x 4 x 2.1e9) = 64 flop a clock a SIMD = 16 lanes x 2 (FMA) x 2 (packed
//           fp32): a wave64 VALU instruction takes 64 / 16 = 4 clocks (v_pk_* do twice the work in
//           them, which is where the 163.4 comes from);
//   scalar: one SALU instruction a clock a compute unit (the 4 SIMDs take turns; GCN/CDNA issue).
// The model and its weak points: docs/results/mi300x_prediction.md (tools/amd/predict_mi300x.sh
// writes it with this program's tables).
#include "support/kernel_emulation.hpp"  // first: it stands in for the GPU built-ins

#include "nova/kernels/fused_mfma_kernels.hpp"

#include "gfx942_asm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using nova::amd::Counts;
using nova::amd::KernelSummary;
using nova::kernels::FusedLaunch;
using nova::kernels::Layout;
using nova::kernels::TileGrid;

struct Mi300x {
  int compute_units = 304, simds = 4, wave = 64;
  double clock_hz = 2.1e9;
  double matrix_flops = 1307.4e12;  // dense fp16 / bf16
  double vector_flops = 163.4e12;   // fp32, packed
  double hbm_bytes_per_s = 5.3e12;
  long long lds_bytes = 64 * 1024;  // a compute unit (and the most a workgroup may use)
  double lds_bytes_per_clock = 128;  // a compute unit
  double l1_bytes_per_clock = 64;    // vector L1, a compute unit
  // Derived (see the top).
  double simd_clocks() const { return compute_units * simds * clock_hz; }
  double mfma_clocks() const { return 2.0 * 16 * 16 * 16 / (matrix_flops / simd_clocks()); }
  double valu_clocks() const { return wave / (vector_flops / simd_clocks() / 2 / 2); }
};

// The published peaks are rounded; the derived rates must come out as whole clocks.
void check_rates(const Mi300x& d) {
  for (const double c : {d.mfma_clocks(), d.valu_clocks()})
    if (std::fabs(c - std::round(c)) > 0.01 * c) throw std::runtime_error("the peaks do not give whole clocks an instruction");
}

struct LayerShape {
  const char* net;
  int channels, size;
};
const LayerShape kLayers[] = {{"ResNet-50", 64, 56},  {"ResNet-50", 128, 28}, {"ResNet-50", 256, 14},
                              {"ResNet-50", 512, 7},  {"VGG-16", 64, 224},    {"VGG-16", 128, 112},
                              {"VGG-16", 256, 56},    {"VGG-16", 512, 28},    {"VGG-16", 512, 14}};
constexpr int kBatch = 32, kPad = 1, kR = 3;

// The time each unit of the busiest compute unit needs for its share of a launch, and the largest.
struct Times {
  double matrix = 0, vector = 0, scalar = 0, lds = 0, l1 = 0, hbm = 0, issue = 0;  // seconds
  std::string bound;
  double predicted = 0;
};

// Whether the tile at `o` takes walk_patch's checked path (a patch that leaves the image).
template <int n, Layout layout>
bool border_tile(const TileGrid& g, const nova::kernels::TileOrigin& o) {
  bool outside = false;
  nova::kernels::walk_patch<n, layout>(g, o, 0, true, [&](int, bool inside, int) { outside = outside || !inside; });
  return outside;
}
bool border_tile(int n, Layout layout, const TileGrid& g, const nova::kernels::TileOrigin& o) {
  if (n == 4) return layout == Layout::nhwc ? border_tile<4, Layout::nhwc>(g, o) : border_tile<4, Layout::nchw>(g, o);
  if (n == 6) return layout == Layout::nhwc ? border_tile<6, Layout::nhwc>(g, o) : border_tile<6, Layout::nchw>(g, o);
  throw std::runtime_error("tile side " + std::to_string(n) + " not modelled");
}

double issue_clocks(const Counts& c, const Mi300x& d) {  // one wave alone: 4 clocks an instruction, an MFMA its pipe time
  return std::max(4.0 * static_cast<double>(c.instructions()), d.mfma_clocks() * static_cast<double>(c.mfma));
}

struct Prediction {
  std::string net, transform, layout;
  int channels = 0, size = 0;
  FusedLaunch launch;
  unsigned grid_x = 0, grid_y = 0;
  long long blocks = 0, shared_bytes = 0;
  int resident = 0;             // blocks a compute unit holds at once
  long long blocks_per_cu = 0;  // on the busiest compute unit
  long long rounds = 0;         // blocks one slot of it runs one after another
  double border_share = 0;      // of the input-transform iterations, those with a border tile
  Counts launch_counts;         // every wave of the launch
  double hbm_bytes = 0;
  Times t;
};

Prediction predict(const LayerShape& layer, const KernelSummary& k, const Mi300x& d) {
  const int m = k.name.m, n = k.name.n, C = layer.channels, K = layer.channels;
  const Layout layout = k.name.layout == "nhwc" ? Layout::nhwc : Layout::nchw;
  Prediction p;
  p.net = layer.net, p.transform = k.name.transform, p.layout = k.name.layout, p.channels = C, p.size = layer.size;
  TileGrid g{};
  if (!nova::kernels::make_tile_grid(m, kR, kBatch, C, layer.size, layer.size, kPad, g)) throw std::runtime_error("no tile grid");
  p.launch = nova::kernels::fused_mfma_launch(n, C, K, g.tiles, d.lds_bytes, d.compute_units);
  if (p.launch.tile_groups != k.tile_groups)
    throw std::runtime_error(p.transform + " " + p.layout + ": the launch takes " + std::to_string(p.launch.tile_groups) +
                             " tile groups, the kernel counted has " + std::to_string(k.tile_groups));
  if (nova::kernels::fused_padded_outputs(K) % nova::kernels::kMfmaBlockK != 0)
    throw std::runtime_error("K leaves waves without output channels: the model counts every wave active");
  const dim3 grid = nova::kernels::fused_mfma_grid(g, K, p.launch);
  p.grid_x = grid.x, p.grid_y = grid.y;
  p.blocks = static_cast<long long>(grid.x) * grid.y;
  p.shared_bytes = nova::kernels::fused_mfma_shared_bytes(n, p.launch.chunk, p.launch.tile_groups);
  p.resident = static_cast<int>(std::min<long long>(d.lds_bytes / p.shared_bytes, k.occupancy));  // 1 wave a SIMD a block
  p.blocks_per_cu = (p.blocks + d.compute_units - 1) / d.compute_units;

  // The chunks of the channels, as the kernel's chunk loop takes them.
  const int Cp = nova::kernels::fused_padded_channels(C), width = p.launch.chunk;
  std::vector<int> chunks;
  for (int c0 = 0; c0 < Cp; c0 += width) chunks.push_back(std::min(width, Cp - c0));
  const int capacity = nova::kernels::kMfmaSide * p.launch.tile_groups;
  const int waves = nova::kernels::kMfmaWaves, threads = nova::kernels::kMfmaThreads, lanes = nova::kernels::kMfmaWave;

  // Every block of one grid row (grid.y repeats it for the other output-channel slices).
  Counts row;
  double block_max = 0, block_sum = 0;  // blocks' own issue times, their phases one after another
  long long iterations = 0, border_iterations = 0;
  for (unsigned bx = 0; bx < grid.x; ++bx) {
    const long long first = static_cast<long long>(bx) * capacity;
    const int tiles = static_cast<int>(std::min<long long>(capacity, g.tiles - first));
    std::vector<bool> border(capacity, true);  // a slot past the grid's last tile takes the checked path too
    for (int t = 0; t < tiles; ++t) border[t] = border_tile(n, layout, g, nova::kernels::tile_origin(g, first + t, m));
    double block = 0;  // this block's issue time
    std::vector<Counts> wave_total(waves, k.outside);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      const bool last_chunk = c + 1 == chunks.size();
      const int channels = chunks[c], items = channels * capacity, steps = channels / nova::kernels::kMfmaSide;
      double phase1 = 0, phase2 = 0;
      for (int w = 0; w < waves; ++w) {
        Counts transform;
        for (int start = w * lanes; start < items; start += threads) {
          bool any_border = false;
          for (int item = start; item < std::min(start + lanes, items); ++item)
            any_border = any_border || border[nova::kernels::mfma_item(layout, item, channels, capacity).tile];
          const bool last = start + threads >= items;
          transform += any_border ? (last ? k.transform_border_leave : k.transform_border_repeat)
                                  : (last ? k.transform_interior_leave : k.transform_interior_repeat);
          ++iterations, border_iterations += any_border;
        }
        // The chunk loop's own blocks and the step loop, one iteration a channel step; M stays in
        // registers, so nothing is folded here (the fold is in k.outside, once a block).
        const Counts products = (last_chunk ? k.chunk_leave : k.chunk_repeat) + k.steps_repeat.times(steps - 1) + k.steps_leave;
        wave_total[w] += transform + products;
        phase1 = std::max(phase1, issue_clocks(transform, d));
        phase2 = std::max(phase2, issue_clocks(products, d));
      }
      block += phase1 + phase2;
    }
    for (int w = 0; w < waves; ++w) row += wave_total[w];
    block += issue_clocks(k.outside, d);
    block_max = std::max(block_max, block), block_sum += block;
  }
  p.launch_counts = row.times(grid.y);
  p.border_share = iterations ? static_cast<double>(border_iterations) / static_cast<double>(iterations) : 0;

  // The busiest compute unit's share of the launch (blocks spread evenly, an average block each).
  const double share = static_cast<double>(p.blocks_per_cu) / static_cast<double>(p.blocks);
  const auto per_cu = [&](long long count) { return share * static_cast<double>(count); };
  const double lane_bytes = static_cast<double>(d.wave);
  Times& t = p.t;
  t.matrix = per_cu(p.launch_counts.mfma) * d.mfma_clocks() / d.simds / d.clock_hz;
  t.vector = per_cu(p.launch_counts.valu) * d.valu_clocks() / d.simds / d.clock_hz;
  t.scalar = per_cu(p.launch_counts.salu + p.launch_counts.smem) / d.clock_hz;
  t.lds = per_cu(p.launch_counts.lds_read_bytes + p.launch_counts.lds_write_bytes) * lane_bytes / d.lds_bytes_per_clock / d.clock_hz;
  t.l1 = per_cu(p.launch_counts.global_load_bytes + p.launch_counts.global_store_bytes) * lane_bytes / d.l1_bytes_per_clock /
         d.clock_hz;
  // HBM: x read once, y written once, U (fused_filter_order's padded filter) read once.
  p.hbm_bytes = 2.0 * (static_cast<double>(kBatch) * C * layer.size * layer.size +
                       static_cast<double>(kBatch) * K * g.out_height * g.out_width +
                       static_cast<double>(n) * n * Cp * nova::kernels::fused_padded_outputs(K));
  t.hbm = p.hbm_bytes / d.hbm_bytes_per_s;
  // A compute unit runs `resident` blocks at once; the blocks beyond wait for a slot, so the busiest
  // slot runs ceil(blocks_per_cu / resident) blocks one after another, each no faster than its own
  // phases in sequence (the barriers keep a block's transform and products apart), at an average
  // block's time, and the launch lasts at least as long as its slowest block.
  p.rounds = (p.blocks_per_cu + p.resident - 1) / p.resident;
  t.issue = std::max(static_cast<double>(p.rounds) * block_sum / grid.x, block_max) / d.clock_hz;
  const std::pair<const char*, double> units[] = {{"matrix", t.matrix}, {"vector", t.vector}, {"scalar", t.scalar}, {"LDS", t.lds},
                                                  {"L1", t.l1},         {"HBM", t.hbm},       {"issue", t.issue}};
  for (const auto& [name, time] : units)
    if (time > t.predicted) t.predicted = time, t.bound = name;
  return p;
}

// The measured H200 numbers (predict_mi300x.sh passes docs/results/fused_v5/full_b1_b8_b32/speed.csv,
// the final full run: graph replay, batch 32): NOVA's fastest path of a layer and layout (AUTO, -3
// three-pass, -f fused) and cuDNN's fastest time in those rows.
struct Measured {
  double nova_us = 0, cudnn_us = 0;
  std::string nova_path;
};
std::map<std::string, Measured> read_speed(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, ',');) header.push_back(f);
  }
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw std::runtime_error(file + ": no column " + name);
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_layer = column("layer"), c_channels = column("channels"), c_size = column("size"), c_batch = column("batch"),
                    c_layout = column("layout"), c_transform = column("transform"), c_nova = column("nova_graph_us"),
                    c_cudnn = column("cudnn_graph_us");
  std::map<std::string, Measured> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string v; std::getline(s, v, ',');) f.push_back(v);
    if (f.size() < header.size() || std::stoi(f[c_batch]) != kBatch) continue;
    const std::string layout = f[c_layout].substr(0, 4);
    const std::string path = f[c_layout].size() == 4 ? "AUTO" : f[c_layout].substr(5) == "3" ? "3-pass" : "fused";
    Measured& m = out[f[c_layer] + "," + f[c_channels] + "," + f[c_size] + "," + layout];
    const double nova = std::stod(f[c_nova]), cudnn = std::stod(f[c_cudnn]);
    if (m.nova_us == 0 || nova < m.nova_us) m.nova_us = nova, m.nova_path = path + " " + f[c_transform];
    if (m.cudnn_us == 0 || cudnn < m.cudnn_us) m.cudnn_us = cudnn;
  }
  return out;
}

std::string fixed(double v, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}
std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

int run(int argc, char** argv) {
  std::vector<std::string> assembly;
  std::string speed, csv_file, counts_file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--asm" && i + 1 < argc) assembly.push_back(argv[++i]);
    else if (arg == "--speed" && i + 1 < argc) speed = argv[++i];
    else if (arg == "--csv" && i + 1 < argc) csv_file = argv[++i];
    else if (arg == "--counts" && i + 1 < argc) counts_file = argv[++i];
    else throw std::invalid_argument("unknown argument " + arg);
  }
  if (assembly.empty() || speed.empty() || csv_file.empty())
    throw std::invalid_argument("usage: nova-mi300x-model --asm FILE.s ... --speed speed.csv --csv OUT.csv [--counts OUT.md]");
  const Mi300x d;
  check_rates(d);
  // The fp16 kernels of every file, by transform, layout and variant.
  std::map<std::string, KernelSummary> kernels;
  std::map<std::string, nova::amd::KernelName> transforms;
  for (const std::string& file : assembly) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file);
    for (nova::amd::Kernel& k : nova::amd::read_kernels(in)) {
      const KernelSummary s = nova::amd::summarize(k);
      if (s.name.type != "f16") continue;
      if (s.tile_groups != nova::kernels::kFusedMfmaTileGroups[s.name.variant])
        throw std::runtime_error(k.name + ": " + std::to_string(s.tile_groups) + " tile groups in the assembly, the kernel table says " +
                                 std::to_string(nova::kernels::kFusedMfmaTileGroups[s.name.variant]));
      transforms[s.name.transform] = s.name;
      kernels[s.name.transform + "/" + s.name.layout + "/" + std::to_string(s.name.variant)] = s;
    }
  }
  const std::map<std::string, Measured> measured = read_speed(speed);

  std::ofstream csv(csv_file);
  csv << "layer,channels,size,batch,layout,transform,tile_groups,chunk,grid_x,grid_y,blocks,lds_bytes,resident_blocks_per_cu,"
         "blocks_on_busiest_cu,block_rounds,border_iteration_share,mfma,valu,salu,lds_bytes_moved,global_bytes_moved,hbm_bytes,"
         "matrix_us,vector_us,scalar_us,lds_us,l1_us,hbm_us,issue_us,predicted_mi300x_us,bound,"
         "measured_h200_nova_us,measured_h200_nova_path,measured_h200_cudnn_us\n";
  // Markdown: one row a layer and layout, both transforms, the preferred one, H200 beside.
  std::ostringstream md;
  md << "| layer | layout | MI300X, predicted: F(4,3) µs (bound) | MI300X, predicted: F(2,3) µs (bound) | model prefers | "
        "MI300X HBM floor µs | H200, measured: NOVA µs (path) | H200, measured: cuDNN µs |\n|---|---|---|---|---|---|---|---|\n";
  // The launch and every unit's time, per layer, layout and transform.
  std::ostringstream detail;
  detail << "| layer | layout | transform | tile groups, chunk | blocks (busiest CU, resident, rounds) | border iterations | "
            "matrix | vector | scalar | LDS | L1 | HBM | issue | predicted µs |\n"
            "|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const LayerShape& layer : kLayers)
    for (const char* layout : {"nhwc", "nchw"}) {
      std::map<std::string, Prediction> by_transform;
      const std::string key = std::string(layer.net) + "," + std::to_string(layer.channels) + "," + std::to_string(layer.size) + "," +
                              upper(layout);
      const auto it = measured.find(key);
      const Measured h200 = it == measured.end() ? Measured{} : it->second;
      for (const auto& [transform, name] : transforms) {
        TileGrid g{};
        if (name.r != kR || !nova::kernels::make_tile_grid(name.m, name.r, kBatch, layer.channels, layer.size, layer.size, kPad, g))
          continue;
        const FusedLaunch launch =
            nova::kernels::fused_mfma_launch(name.n, layer.channels, layer.channels, g.tiles, d.lds_bytes, d.compute_units);
        if (launch.tile_groups == 0) continue;
        const auto k = kernels.find(transform + "/" + layout + "/" + std::to_string(nova::kernels::fused_mfma_variant(launch.tile_groups)));
        if (k == kernels.end()) throw std::runtime_error("no counted kernel for " + transform + " " + layout);
        const Prediction p = predict(layer, k->second, d);
        by_transform[transform] = p;
        const Times& t = p.t;
        const auto us = [](double s) { return fixed(s * 1e6, 2); };
        csv << p.net << ',' << p.channels << ',' << p.size << ',' << kBatch << ',' << upper(p.layout) << ',' << p.transform << ','
            << p.launch.tile_groups << ',' << p.launch.chunk << ',' << p.grid_x << ',' << p.grid_y << ',' << p.blocks << ','
            << p.shared_bytes << ',' << p.resident << ',' << p.blocks_per_cu << ',' << p.rounds << ',' << fixed(p.border_share, 3) << ','
            << p.launch_counts.mfma << ',' << p.launch_counts.valu << ',' << p.launch_counts.salu << ','
            << (p.launch_counts.lds_read_bytes + p.launch_counts.lds_write_bytes) * d.wave << ','
            << (p.launch_counts.global_load_bytes + p.launch_counts.global_store_bytes) * d.wave << ','
            << fixed(p.hbm_bytes, 0) << ',' << us(t.matrix) << ',' << us(t.vector) << ',' << us(t.scalar) << ',' << us(t.lds) << ','
            << us(t.l1) << ',' << us(t.hbm) << ',' << us(t.issue) << ',' << us(t.predicted) << ',' << t.bound << ','
            << (h200.nova_us > 0 ? fixed(h200.nova_us, 2) : "") << ',' << h200.nova_path << ','
            << (h200.cudnn_us > 0 ? fixed(h200.cudnn_us, 2) : "") << '\n';
        const auto us1 = [](double v) { return fixed(v * 1e6, 1); };
        detail << "| " << p.net << " " << p.channels << "@" << p.size << " | " << upper(p.layout) << " | " << p.transform << " | "
               << p.launch.tile_groups << ", " << p.launch.chunk << " | " << p.blocks << " (" << p.blocks_per_cu << ", " << p.resident
               << ", " << p.rounds << ") | " << fixed(100 * p.border_share, 0) << " % | " << us1(t.matrix) << " | " << us1(t.vector)
               << " | " << us1(t.scalar) << " | " << us1(t.lds) << " | " << us1(t.l1) << " | " << us1(t.hbm) << " | " << us1(t.issue)
               << " | **" << us1(t.predicted) << "** |\n";
      }
      const auto cell = [&](const char* transform) {
        const auto p = by_transform.find(transform);
        return p == by_transform.end() ? std::string("not launched")
                                       : fixed(p->second.t.predicted * 1e6, 1) + " (" + p->second.t.bound + ")";
      };
      std::string best;
      double best_time = 0, floor = 0;
      for (const auto& [transform, p] : by_transform)
        if (best.empty() || p.t.predicted < best_time) best = transform, best_time = p.t.predicted, floor = p.t.hbm;
      md << "| " << layer.net << " " << layer.channels << "@" << layer.size << " | " << upper(layout) << " | "
         << cell("f4x3_standard") << " | " << cell("f2x3_standard") << " | " << best << " | " << fixed(floor * 1e6, 1) << " | "
         << (h200.nova_us > 0 ? fixed(h200.nova_us, 1) + " (" + h200.nova_path + ")" : "not measured") << " | "
         << (h200.cudnn_us > 0 ? fixed(h200.cudnn_us, 1) : "not measured") << " |\n";
    }
  std::cout << md.str() << "\n" << detail.str();

  if (!counts_file.empty()) {  // the counted paths of each fp16 kernel, per wave and execution
    std::ofstream out(counts_file);
    out << "| kernel | part | v_mfma | VALU | SALU | LDS bytes a lane (read + write) | global bytes a lane (load + store) |\n"
           "|---|---|---:|---:|---:|---:|---:|\n";
    for (const auto& [key, s] : kernels) {
      const std::string name = s.name.transform + " " + upper(s.name.layout) + " v" + std::to_string(s.name.variant) + " (" +
                               std::to_string(s.tile_groups) + " tile group" + (s.tile_groups > 1 ? "s" : "") + ", " +
                               std::to_string(s.total_vgprs) + " VGPRs, " + std::to_string(s.occupancy) + " waves a SIMD)";
      const std::pair<const char*, const Counts*> parts[] = {
          {"outside the loops, the output fold with it (once)", &s.outside},
          {"chunk loop's own blocks (a chunk)", &s.chunk_repeat},
          {"input transform, interior tiles (an iteration)", &s.transform_interior_repeat},
          {"input transform, border tiles (an iteration)", &s.transform_border_repeat},
          {"the step loop (a channel step)", &s.steps_repeat}};
      for (const auto& [part, c] : parts)
        out << "| " << name << " | " << part << " | " << c->mfma << " | " << c->valu << " | " << c->salu + c->smem << " | "
            << c->lds_read_bytes << " + " << c->lds_write_bytes << " | " << c->global_load_bytes << " + " << c->global_store_bytes
            << " |\n";
    }
    out << "\n| MI300X | value |\n|---|---|\n"
        << "| compute units x SIMDs, wave | " << d.compute_units << " x " << d.simds << ", " << d.wave << " lanes |\n"
        << "| peak engine clock | " << fixed(d.clock_hz / 1e6, 0) << " MHz |\n"
        << "| dense fp16/bf16 matrix | " << fixed(d.matrix_flops / 1e12, 1) << " TFLOP/s |\n"
        << "| fp32 vector (packed) | " << fixed(d.vector_flops / 1e12, 1) << " TFLOP/s |\n"
        << "| HBM3 | " << fixed(d.hbm_bytes_per_s / 1e12, 1) << " TB/s |\n"
        << "| LDS | " << d.lds_bytes / 1024 << " KB a compute unit, " << fixed(d.lds_bytes_per_clock, 0) << " bytes a clock |\n"
        << "| vector L1 | " << fixed(d.l1_bytes_per_clock, 0) << " bytes a clock a compute unit |\n";
    out << "\nRates a SIMD from the peaks: " << fixed(d.matrix_flops / d.simd_clocks(), 1) << " matrix flop a clock (a "
        << "v_mfma_f32_16x16x16 " << fixed(d.mfma_clocks(), 2) << " clocks), " << fixed(d.vector_flops / d.simd_clocks(), 1)
        << " vector flop a clock (a wave64 VALU instruction " << fixed(d.valu_clocks(), 2) << " clocks).\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "nova-mi300x-model: " << e.what() << '\n';
    return 1;
  }
}
