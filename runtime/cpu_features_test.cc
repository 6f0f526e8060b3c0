// QueryCpuFeature: the runtime's check of an artifact's required ISA
// extensions. On an AMX host the check must also leave the process
// allowed to use the tile registers (Linux grants them per process on
// request), which the test proves by running tile instructions after it.
#include "runtime/src/cpu_features.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace kiln {
namespace {

TEST(CpuFeatures, NamesAndSpellings) {
  // Every x86-64 CPU has SSE2; LLVM's spelling with or without '+'.
  EXPECT_EQ(QueryCpuFeature("sse2"), FeatureSupport::kSupported);
  EXPECT_EQ(QueryCpuFeature("+sse2"), FeatureSupport::kSupported);
  EXPECT_EQ(QueryCpuFeature("sse4_2"), QueryCpuFeature("sse4.2"));
  EXPECT_EQ(QueryCpuFeature("no-such-feature"), FeatureSupport::kUnknownName);
  for (const char* name : {"amx-tile", "amx-bf16", "amx-int8", "avx512bf16",
                           "avx512vnni", "avx512fp16"})
    EXPECT_NE(QueryCpuFeature(name), FeatureSupport::kUnknownName) << name;
}

// The 64-byte tile configuration (palette 1) of ldtilecfg.
struct TileConfig {
  uint8_t palette, start_row;
  uint8_t reserved[14];
  uint16_t bytes_per_row[16];
  uint8_t rows[16];
};

// tilezero + tilestored of one 16 x 64-byte tile, then tilerelease; the
// instructions fault (SIGILL) unless the OS granted the tile state.
__attribute__((target("amx-tile"))) void StoreZeroTile(uint8_t* out) {
  TileConfig config;
  std::memset(&config, 0, sizeof(config));
  config.palette = 1;
  config.bytes_per_row[0] = 64;
  config.rows[0] = 16;
  _tile_loadconfig(&config);
  _tile_zero(0);
  _tile_stored(0, out, 64);
  _tile_release();
}

TEST(CpuFeatures, AmxCheckGrantsTheTileState) {
  if (QueryCpuFeature("amx-tile") != FeatureSupport::kSupported)
    GTEST_SKIP() << "this CPU (or its OS) has no usable AMX: nothing to run";
  uint8_t tile[16 * 64];
  std::memset(tile, 0xff, sizeof(tile));
  StoreZeroTile(tile);
  for (uint8_t byte : tile) ASSERT_EQ(byte, 0);
}

}  // namespace
}  // namespace kiln
