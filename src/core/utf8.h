// Text from outside (host names, environment values, log lines) may hold bytes that are
// not UTF-8; formats that must be UTF-8 (HTML, Prometheus' exposition) take it through
// valid_utf8 first.
#pragma once

#include <string>
#include <string_view>

namespace fabscope {

// `text` with every byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF included) replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

}  // namespace fabscope
