// The mutations: bytes (any input) and structure (JSON inputs). Deterministic for a
// given generator state, so a failure replays from its seed.
#include <limits>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_targets.h"

namespace fabscope::fuzz {

namespace {

using Json = nlohmann::ordered_json;

size_t pick(std::mt19937_64& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }

const std::vector<std::string>& splices() {
  static const std::vector<std::string> kSplices = {"99999999999999999999",
                                                    "-1",
                                                    std::string(1, '\0'),
                                                    "\xff\xfe",
                                                    "\xc3\x28",
                                                    "\xed\xa0\x80",
                                                    "<",
                                                    "</pci>",
                                                    "&#xFFFFFFFF;",
                                                    "NIC",
                                                    "GPU0",
                                                    "[",
                                                    "]",
                                                    "{",
                                                    "}",
                                                    "\"",
                                                    "\\u0000",
                                                    "\\ud800",
                                                    " -> ",
                                                    "NET/IB/",
                                                    "==>",
                                                    ":",
                                                    "0x",
                                                    ",",
                                                    "\n",
                                                    "\t",
                                                    "\r\n",
                                                    "SYSSYSSYS",
                                                    "NV",
                                                    "mlx5_",
                                                    "$ ",
                                                    "@",
                                                    "1e999",
                                                    "-1e999",
                                                    "NaN",
                                                    "null",
                                                    "#",
                                                    "# Rank",
                                                    "out-of-place",
                                                    "nan",
                                                    "inf",
                                                    "-0",
                                                    "18446744073709551616",
                                                    "%s%n%x"};
  return kSplices;
}

void mutate_bytes(std::string& s, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0:  // flip bytes
        for (int k = 0; k < 4 && !s.empty(); ++k) s[pick(rng, s.size())] = static_cast<char>(rng());
        break;
      case 1:  // truncate
        s.resize(pick(rng, s.size() + 1));
        break;
      case 2: {  // delete a range
        const size_t a = pick(rng, s.size() + 1);
        s.erase(a, pick(rng, 200));
        break;
      }
      case 3: {  // duplicate a range
        const size_t a = pick(rng, s.size() + 1);
        s.insert(a, s.substr(a, pick(rng, 400)));
        break;
      }
      case 4: {  // splice a token
        const std::string& t = splices()[pick(rng, splices().size())];
        s.insert(pick(rng, s.size() + 1), t);
        break;
      }
      case 5: {  // random bytes
        std::string r(pick(rng, 64), '\0');
        for (char& c : r) c = static_cast<char>(rng());
        s.insert(pick(rng, s.size() + 1), r);
        break;
      }
      default:  // a very long line
        s.insert(pick(rng, s.size() + 1), std::string(5000 + pick(rng, 5000), "9a -:,"[pick(rng, 6)]));
        break;
    }
  }
}

// Every value of the document, depth first (pointers stay valid while it is not changed).
void collect(Json& v, std::vector<Json*>& out) {
  out.push_back(&v);
  if (v.is_object() || v.is_array()) {
    for (auto& c : v) collect(c, out);
  }
}

Json odd_value(std::mt19937_64& rng, const Json& was) {
  switch (rng() % 16) {
    case 0:
      return nullptr;
    case 1:
      return Json::array();
    case 2:
      return Json::object();
    case 3:
      return "";
    case 4:
      return std::string("\xff\xfe host");  // not UTF-8: dumped with U+FFFD
    case 5:
      return -1;
    case 6:
      return 0;
    case 7:
      return std::numeric_limits<int64_t>::min();
    case 8:
      return std::numeric_limits<uint64_t>::max();
    case 9:
      return 1e308;
    case 10:
      return -1e308;
    case 11:
      return 5e-324;
    case 12:
      return true;
    case 13:
      return Json::array({was, was});
    case 14: {  // deeper
      Json d = was;
      for (int i = 0; i < 40; ++i) d = Json::array({d});
      return d;
    }
    default:
      return std::string(3000, 'x');
  }
}

bool mutate_json(std::string& s, std::mt19937_64& rng) {
  Json doc;
  try {
    doc = Json::parse(s);
  } catch (const Json::exception&) {
    return false;
  }
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    std::vector<Json*> all;
    collect(doc, all);
    Json& v = *all[pick(rng, all.size())];
    const auto op = rng() % 5;
    if (op == 0 && v.is_object() && !v.empty()) {  // a key removed
      auto it = v.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(pick(rng, v.size())));
      v.erase(it.key());
    } else if (op == 1 && v.is_array() && !v.empty()) {  // an element removed, or all
      if (rng() % 2) {
        v.clear();
      } else {
        v.erase(pick(rng, v.size()));
      }
    } else if (op == 2 && v.is_array() && !v.empty()) {  // an element repeated
      v.push_back(v[pick(rng, v.size())]);
    } else if (op == 3 && v.is_number()) {  // a number at an edge
      static const double kEdges[] = {0, -0.0, -1, 1e-300, 1e300, 4294967296.0, 9007199254740993.0};
      v = kEdges[pick(rng, std::size(kEdges))];
    } else {
      v = odd_value(rng, v);
    }
  }
  s = doc.dump(rng() % 2 ? 1 : -1, ' ', false, Json::error_handler_t::replace);
  return true;
}

}  // namespace

std::string mutate(const std::string& seed, bool json, std::mt19937_64& rng) {
  std::string s = seed;
  // JSON inputs: mostly structure (what the loader must check), some bytes (the parser).
  if (json && rng() % 4 != 0 && mutate_json(s, rng)) return s;
  mutate_bytes(s, rng);
  return s;
}

}  // namespace fabscope::fuzz
