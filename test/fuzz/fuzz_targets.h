// fabscope's fuzz targets: every reader of outside input, the report loader with every
// renderer, and the command line's value parsers. Each is a libFuzzer-style entry point
// (bytes in, 0 out) that must return for every input: a crash, an uncaught exception or
// a hang is the bug. Driven by the unit tests (test/unit/fuzz_test.cpp: a bounded count
// of mutated fixtures, fixed seeds) and by bench/fuzz_run.cpp (long runs, any seed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope::fuzz {

struct Target {
  std::string_view name;
  int (*run)(const uint8_t* data, size_t size);
  // Fixture directories (under test/fixtures) whose files are the seed corpus.
  std::vector<std::string_view> corpus;
  bool json = false;  // the corpus is JSON: structural mutations apply too
  // The seeds also in every shape a paste comes in (fuzz/paste_shapes.h).
  bool paste_shapes = false;
};
std::span<const Target> targets();
const Target* find_target(std::string_view name);

// The seed corpus of `target`: every file of its fixture directories, in name order (each
// followed by its paste shapes where the target takes them).
std::vector<std::string> load_corpus(const Target& target, const std::string& fixtures_dir);

// One mutated input from `seed`: bytes flipped, cut, duplicated, tokens and random bytes
// spliced in, very long lines; for JSON, also a value replaced by another type, a
// number at the edge of its range, a key removed, an array emptied or deepened.
std::string mutate(const std::string& seed, bool json, std::mt19937_64& rng);

// What a run of many inputs found.
struct RunStats {
  uint64_t inputs = 0;
  uint64_t accepted = 0;  // the target returned 1 (the input was read)
};
// Runs `count` mutated inputs of `target`, seeded by `seed`; counts what was read.
RunStats run_mutations(const Target& target, const std::vector<std::string>& corpus, uint64_t count, uint64_t seed);

}  // namespace fabscope::fuzz
