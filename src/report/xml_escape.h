// Text for XML and HTML documents (JUnit, the HTML report and its inline SVG): one escaper,
// so every format writes the same entities.
#pragma once

#include <string>
#include <string_view>

namespace fabscope {

// `text` fit for an XML or HTML element or attribute value (double- or single-quoted):
// & < > " ' written as entities (the apostrophe as &#39;, which XML and HTML both read;
// HTML 4 has no &apos;), bytes that are not UTF-8 replaced by U+FFFD (core/utf8.h), and
// control characters XML 1.0 does not allow (all below U+0020 but tab, newline and
// carriage return) dropped.
std::string xml_escape(std::string_view text);

}  // namespace fabscope
