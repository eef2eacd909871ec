// vmafx-parity: the parity gate. Runs every GPU twin and the CPU reference on the fixtures
// (and on generated random content of odd sizes, 8 to 16 bits) and compares every per-frame
// value with the twin's contract; prints the table and exits 1 on any breach.
#include <cstdio>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/parity.hpp"

int main(int argc, char** argv) {
    using namespace vmafx;
    CLI::App app{"vmafx-parity: every GPU twin against the CPU reference, value by value", "vmafx-parity"};
    std::string backends = "cpu,cuda", fixtures, work = (std::filesystem::temp_directory_path() / "vmafx-parity").string();
    unsigned random = 0, seed = 1;
    app.add_option("--backends", backends, "the pair compared (only cpu,cuda exists)")->check(CLI::IsMember({"cpu,cuda"}));
    app.add_option("--fixtures", fixtures, "folder of unpacked fixtures (shared/fixtures/prepare.py --out DIR)");
    app.add_option("--random", random, "also N generated random-content videos per bit depth (odd sizes)");
    app.add_option("--seed", seed, "seed of the random content");
    app.add_option("--work", work, "where generated videos are written");
    CLI11_PARSE(app, argc, argv);
    try {
        if (fixtures.empty() && random == 0) throw Error("nothing to compare: give --fixtures DIR and/or --random N");
        std::vector<ParityInput> inputs;
        if (!fixtures.empty()) inputs = fixture_inputs(fixtures);
        if (random) {
            auto r = random_inputs(work, random, seed);
            inputs.insert(inputs.end(), r.begin(), r.end());
        }
        const auto rows = run_parity(inputs);
        std::fputs(format_parity_table(rows).c_str(), stdout);
        for (const auto& r : rows)
            if (r.breach) return 1;
        return rows.empty() ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vmafx-parity: error: %s\n", e.what());
        return 2;
    }
}
