// vmafx-parity: the parity gate. Runs every GPU twin and the CPU reference on the fixtures
// (and on generated random content of odd sizes, 8 to 16 bits) and compares every per-frame
// value with the twin's contract; prints the table and exits 1 on any breach.
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "parity/gate.hpp"
#include "parity/inputs.hpp"

int main(int argc, char** argv) {
    using namespace vmafx;
    CLI::App app{"vmafx-parity: every GPU twin against the CPU reference, value by value", "vmafx-parity"};
    std::string backends = "cpu,cuda", fixtures, work = (std::filesystem::temp_directory_path() / "vmafx-parity").string();
    std::string twin_name, plant_name = "none";
    unsigned random = 0, seed = 1;
    bool hard = false;
    std::vector<std::string> pairs;  // cpu and each GPU backend of the twin registry
    for (const GpuBackendInfo& b : gpu_backends()) pairs.push_back(std::string("cpu,") + b.name);
    app.add_option("--backends", backends, "the pair compared: cpu and a GPU backend")->check(CLI::IsMember(pairs));
    app.add_option("--fixtures", fixtures, "folder of unpacked fixtures (shared/fixtures/prepare.py --out DIR)");
    app.add_option("--random", random, "also N generated random-content videos per bit depth (odd sizes)");
    app.add_flag("--hard", hard, "also the generated inputs that make sums hard (16-bit sums past 2^53 units, "
                                 "3840x2160, identical flat areas: parity/inputs.hpp hard_inputs)");
    app.add_option("--seed", seed, "seed of the random content");
    app.add_option("--work", work, "where generated videos are written");
    app.add_option("--twin", twin_name, "only the cases of this metric's twin (e.g. adm)");
    app.add_option("--plant", plant_name,
                   "plant a defect in the twins that declare it, to see the gate catch it (tests of the gate only)")
        ->check(CLI::IsMember({"none", "contraction", "mirror_shift", "rounding_constant", "reduction_order"}));
    CLI11_PARSE(app, argc, argv);
    try {
        if (fixtures.empty() && random == 0 && !hard)
            throw Error("nothing to compare: give --fixtures DIR, --random N and/or --hard");
        std::vector<ParityInput> inputs;
        if (!fixtures.empty()) inputs = fixture_inputs(fixtures);
        if (random) {
            auto r = random_inputs(work, random, seed);
            inputs.insert(inputs.end(), r.begin(), r.end());
        }
        if (hard) {
            auto h = hard_inputs(work);
            inputs.insert(inputs.end(), h.begin(), h.end());
        }
        const std::string backend = backends.substr(backends.find(',') + 1);
        const TwinDescriptor* twin = nullptr;
        if (!twin_name.empty() && !(twin = find_twin(twin_name, backend)))
            throw Error("--twin " + twin_name + ": no such twin");
        PlantedDefect plant = PlantedDefect::kNone;
        for (PlantedDefect d : {PlantedDefect::kContraction, PlantedDefect::kMirrorShift,
                                PlantedDefect::kRoundingConstant, PlantedDefect::kReductionOrder})
            if (plant_name == planted_defect_name(d)) plant = d;
        const auto rows = run_parity(inputs, parity_cases(backend, twin), plant);
        std::fputs(format_parity_table(rows).c_str(), stdout);
        return rows.empty() || count_breaches(rows) ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vmafx-parity: error: %s\n", e.what());
        return 2;
    }
}
