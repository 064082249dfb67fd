#include "nova/exact/config_json.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

using namespace nova::exact;
namespace fs = std::filesystem;

namespace {

Config sample_config() {
  const TileSize tile{4, 3};
  Transform t = build_transform(tile, finite_points_for_tile(tile, parse_point_list("0,5/6,-5/6,7/6,-7/6")),
                                Scaling::DenominatorsInG);
  return make_config(transform_name(tile, "nova"), std::move(t), false,
                     {{"tool", "test"}, {"command", "test"}, {"objective", "evaluate"}, {"seed", nullptr}});
}

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("nova_json_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string read_error(const nlohmann::json& doc) {
  try {
    config_from_json(doc, "x.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a written config reads back identically and verifies") {
  const fs::path dir = temp_dir();
  const Config c = sample_config();
  write_config(dir / "f4x3_nova.json", c);
  const Config back = read_config(dir / "f4x3_nova.json");
  CHECK(back.name == c.name);
  CHECK(back.transform.AT == c.transform.AT);
  CHECK(back.transform.G == c.transform.G);
  CHECK(back.transform.BT == c.transform.BT);
  CHECK(back.metrics.kappa2_V == c.metrics.kappa2_V);
  CHECK(serialise(back) == serialise(c));
  CHECK(verify_config(back).ok);
  // The atomic write leaves only the target behind.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
  fs::remove_all(dir);
}

TEST_CASE("the reader names the bad field") {
  const nlohmann::json good = to_json(sample_config());
  auto edited = [&](auto&& edit) {
    nlohmann::json doc = good;
    edit(doc);
    return read_error(doc);
  };
  CHECK(read_error(good) == "no error");
  CHECK_THAT(edited([](auto& d) { d.erase("schema"); }), Catch::Contains("'schema': missing"));
  CHECK_THAT(edited([](auto& d) { d["schema"] = "nova.transform/9"; }), Catch::Contains("'schema'"));
  CHECK_THAT(edited([](auto& d) { d["tile"]["m"] = "4"; }), Catch::Contains("'tile.m'"));
  CHECK_THAT(edited([](auto& d) { d["tile"]["r"] = 0; }), Catch::Contains("'tile'"));
  CHECK_THAT(edited([](auto& d) { d["name"] = "f6x3_nova"; }), Catch::Contains("'name'"));
  CHECK_THAT(edited([](auto& d) { d["points"][1] = "abc"; }), Catch::Contains("'points[1]'"));
  CHECK_THAT(edited([](auto& d) { d["points"].erase(d["points"].size() - 1); }), Catch::Contains("'points'"));
  CHECK_THAT(edited([](auto& d) { d["scaling"] = "C"; }), Catch::Contains("'scaling'"));
  CHECK_THAT(edited([](auto& d) { d["AT"][1].erase(0); }), Catch::Contains("'AT[1]'"));
  CHECK_THAT(edited([](auto& d) { d["G"][2][1] = 0.5; }), Catch::Contains("'G[2][1]'"));
  CHECK_THAT(edited([](auto& d) { d["BT"][0][0] = "1/0"; }), Catch::Contains("'BT[0][0]'"));
  CHECK_THAT(edited([](auto& d) { d["verification"]["exact"] = false; }), Catch::Contains("'verification.exact'"));
  CHECK_THAT(edited([](auto& d) { d["metrics"].erase("amp2D"); }), Catch::Contains("'metrics.amp2D'"));
  CHECK_THAT(edited([](auto& d) { d["provenance"] = 3; }), Catch::Contains("'provenance'"));
}

TEST_CASE("aliases: other names of the same tile, each once, written and read back") {
  Config c = sample_config();
  c.aliases = {"f4x3_second", "f4x3_third"};
  const Config back = config_from_json(nlohmann::json::parse(serialise(c)), "x.json");
  CHECK(back.aliases == c.aliases);
  CHECK(serialise(back) == serialise(c));
  CHECK(serialise(sample_config()).find("aliases") == std::string::npos);  // absent when there are none
  const nlohmann::json good = to_json(c);
  auto edited = [&](auto&& edit) {
    nlohmann::json doc = good;
    edit(doc);
    return read_error(doc);
  };
  CHECK_THAT(edited([](auto& d) { d["aliases"] = "f4x3_x"; }), Catch::Contains("'aliases': expected an array"));
  CHECK_THAT(edited([](auto& d) { d["aliases"][1] = 7; }), Catch::Contains("'aliases[1]': expected a string"));
  CHECK_THAT(edited([](auto& d) { d["aliases"][1] = "f6x3_third"; }), Catch::Contains("'aliases'") && Catch::Contains("f4x3_<pointset>"));
  CHECK_THAT(edited([](auto& d) { d["aliases"][1] = "f4x3_Bad"; }), Catch::Contains("does not follow"));
  CHECK_THAT(edited([](auto& d) { d["aliases"][1] = "f4x3_second"; }), Catch::Contains("appears twice"));
  CHECK_THAT(edited([](auto& d) { d["aliases"][1] = d["name"]; }), Catch::Contains("the config's own name"));
}

TEST_CASE("verify_config catches edited matrices and metrics") {
  Config c = sample_config();
  REQUIRE(verify_config(c).ok);
  SECTION("matrix entry") {
    c.transform.G(2, 1) += 1;
    const Verification v = verify_config(c);
    CHECK_FALSE(v.ok);
    CHECK_THAT(v.message, Catch::Contains("G[2][1]"));
  }
  SECTION("consistent but different matrices") {
    // Matrices of another scaling verify the identity but do not match the declared scaling.
    c.transform.AT = build_transform(c.transform.tile, c.transform.finite_points, Scaling::DenominatorsInA).AT;
    CHECK_THAT(verify_config(c).message, Catch::Contains("AT["));
  }
  SECTION("metric") {
    c.metrics.kappa2_V *= 0.5;
    CHECK_THAT(verify_config(c).message, Catch::Contains("metrics.kappa2_V"));
  }
}

TEST_CASE("every shipped config verifies") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(NOVA_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path());
    const Config c = read_config(entry.path());
    CHECK(verify_config(c).ok);
    CHECK(entry.path().stem() == c.name);
    ++count;
  }
  CHECK(count >= 9);
}

TEST_CASE("unreadable and malformed files give clear errors") {
  CHECK_THROWS_WITH(read_config("/nonexistent/x.json"), Catch::Contains("cannot open"));
  const fs::path dir = temp_dir();
  std::ofstream(dir / "bad.json") << "{ \"schema\": ";
  CHECK_THROWS_WITH(read_config(dir / "bad.json"), Catch::Contains("malformed JSON"));
  fs::remove_all(dir);
}

TEST_CASE("hostile files are refused before they can exhaust the stack, memory or patience") {
  const fs::path dir = temp_dir();
  // A valid config whose provenance nests 100000 arrays (a few hundred KB).
  nlohmann::json doc = to_json(sample_config());
  std::string text = doc.dump();
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  text.insert(text.find("\"provenance\":{") + 14, "\"deep\":" + deep + ",");
  std::ofstream(dir / "deep.json") << text;
  CHECK_THROWS_WITH(read_config(dir / "deep.json"), Catch::Contains("deep.json") && Catch::Contains("nested deeper"));
  // Larger than any config can be.
  std::ofstream(dir / "huge.json") << std::string(kMaxConfigBytes + 1, ' ');
  CHECK_THROWS_WITH(read_config(dir / "huge.json"), Catch::Contains("huge.json") && Catch::Contains("more than"));
  // A FIFO would block the reader forever; a folder is not a file.
  REQUIRE(::mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_config(dir / "fifo.json"), Catch::Contains("not a regular file"));
  CHECK_THROWS_WITH(read_config(dir), Catch::Contains("not a regular file"));
  fs::remove_all(dir);
}
