// A strict XML reader: enough of XML 1.0 for topology files, with positions in errors.
#include "topo/xml.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>

namespace fabscope::topo {

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 256;

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : t_(text), source_(source) {}

  Result<XmlElement> document() {
    skip_misc();
    if (!ok_) return error_;
    if (at_end()) {
      fail("no root element (the document is empty or has only comments)");
      return error_;
    }
    if (peek() != '<') {
      fail(fmt::format("expected '<' to open the root element, found {}", shown(peek())));
      return error_;
    }
    XmlElement root;
    if (!element(root)) return error_;
    skip_misc();
    if (!ok_) return error_;
    if (!at_end()) {
      fail("content after the root element");
      return error_;
    }
    return root;
  }

 private:
  std::string_view t_;
  std::string_view source_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool ok_ = true;
  Status error_;
  struct Open {
    std::string name;
    int line;
  };
  std::vector<Open> open_;

  bool at_end() const { return i_ >= t_.size(); }
  char peek() const { return at_end() ? '\0' : t_[i_]; }
  bool starts(std::string_view s) const { return t_.substr(i_, s.size()) == s; }
  void advance(size_t n = 1) {
    for (size_t k = 0; k < n && i_ < t_.size(); ++k) {
      if (t_[i_++] == '\n') {
        ++line_;
        line_start_ = i_;
      }
    }
  }
  static std::string shown(char c) {
    if (c == '\0') return "a NUL byte";
    if (std::isprint(static_cast<unsigned char>(c))) return fmt::format("'{}'", c);
    return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
  }
  // Records the first error (with its position); parsing stops at the caller.
  void fail(const std::string& what) {
    if (ok_) {
      ok_ = false;
      error_ = Status::Invalid(fmt::format("{}:{}:{}: {}", source_, line_, i_ - line_start_ + 1, what));
    }
  }
  void eof_inside(const std::string& what) {
    std::string where = what;
    if (!open_.empty()) {
      where += fmt::format(" (inside <{}> opened at line {})", open_.back().name, open_.back().line);
    }
    fail("document ends " + where);
  }

  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) advance();
  }

  // Comments, processing instructions, the XML declaration and a doctype-less prolog.
  void skip_misc() {
    while (ok_) {
      skip_space();
      if (starts("<!--")) {
        skip_comment();
      } else if (starts("<?")) {
        skip_pi();
      } else if (starts("<!DOCTYPE")) {
        // An external DTD reference (hwloc writes one) is skipped; internal subsets
        // (entity declarations) are refused.
        size_t end = t_.find('>', i_);
        size_t bracket = t_.find('[', i_);
        if (end == std::string_view::npos) {
          i_ = t_.size();
          eof_inside("inside a DOCTYPE declaration");
        } else if (bracket != std::string_view::npos && bracket < end) {
          fail("DOCTYPE declarations with an internal subset are not supported");
        } else {
          advance(end + 1 - i_);
        }
      } else {
        return;
      }
    }
  }
  void skip_comment() {
    advance(4);
    size_t end = t_.find("-->", i_);
    if (end == std::string_view::npos) {
      i_ = t_.size();
      eof_inside("inside a comment");
      return;
    }
    advance(end + 3 - i_);
  }
  void skip_pi() {
    advance(2);
    size_t end = t_.find("?>", i_);
    if (end == std::string_view::npos) {
      i_ = t_.size();
      eof_inside("inside a processing instruction");
      return;
    }
    advance(end + 2 - i_);
  }

  static bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-' || c == '.';
  }
  bool name(std::string& out) {
    if (at_end()) {
      eof_inside("inside a tag");
      return false;
    }
    if (!name_start(peek())) {
      fail(fmt::format("expected a name, found {}", shown(peek())));
      return false;
    }
    size_t start = i_;
    while (!at_end() && name_char(peek())) advance();
    out = std::string(t_.substr(start, i_ - start));
    return true;
  }

  // Decodes entity and character references in [from, to).
  bool decode(std::string_view raw, std::string& out) {
    out.clear();
    for (size_t k = 0; k < raw.size(); ++k) {
      char c = raw[k];
      if (c == '\0') {
        fail("a NUL byte in an attribute value");
        return false;
      }
      if (c != '&') {
        out += c;
        continue;
      }
      size_t semi = raw.find(';', k);
      if (semi == std::string_view::npos || semi - k > 12) {
        fail("an '&' that starts no entity reference (write &amp;)");
        return false;
      }
      std::string_view ent = raw.substr(k + 1, semi - k - 1);
      if (ent == "lt")
        out += '<';
      else if (ent == "gt")
        out += '>';
      else if (ent == "amp")
        out += '&';
      else if (ent == "quot")
        out += '"';
      else if (ent == "apos")
        out += '\'';
      else if (ent.size() > 1 && ent[0] == '#') {
        uint32_t cp = 0;
        bool hex = ent[1] == 'x';
        std::string_view digits = ent.substr(hex ? 2 : 1);
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
        if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() || cp == 0 ||
            cp > 0x10FFFF) {
          fail(fmt::format("bad character reference '&{};'", ent));
          return false;
        }
        // UTF-8
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
      } else {
        fail(fmt::format("unknown entity '&{};'", ent));
        return false;
      }
      k = semi;
    }
    return true;
  }

  std::string inside_tag(const XmlElement& e) const {
    return fmt::format("inside the tag <{}> that starts at line {}", e.name, e.line);
  }

  // At '<name ...>': the element's name, line and attributes; `self_closing` for '/>'.
  bool start_tag(XmlElement& e, bool& self_closing) {
    advance();  // '<'
    const int line = line_;
    if (!name(e.name)) return false;
    e.line = line;
    while (true) {
      const size_t before = i_;
      skip_space();
      if (at_end()) {
        eof_inside(inside_tag(e));
        return false;
      }
      if (starts("/>")) {
        advance(2);
        self_closing = true;
        return true;
      }
      if (peek() == '>') {
        advance();
        return true;
      }
      if (i_ == before) {
        fail(fmt::format("expected whitespace, '>' or '/>' in <{}>, found {}", e.name, shown(peek())));
        return false;
      }
      if (!attribute(e)) return false;
    }
  }

  // One attribute of a start tag: name = "value" (or 'value'), references decoded, each
  // name once per element.
  bool attribute(XmlElement& e) {
    std::string key;
    if (!name(key)) return false;
    skip_space();
    if (at_end()) {
      eof_inside(inside_tag(e));
      return false;
    }
    if (peek() != '=') {
      fail(fmt::format("attribute '{}' of <{}> has no '=' and value", key, e.name));
      return false;
    }
    advance();
    skip_space();
    const char q = peek();
    if (q != '"' && q != '\'') {
      if (at_end()) {
        eof_inside(inside_tag(e));
      } else {
        fail(fmt::format("attribute '{}' of <{}>: expected a quoted value, found {}", key, e.name, shown(q)));
      }
      return false;
    }
    advance();
    const size_t end = t_.find(q, i_);
    if (end == std::string_view::npos) {
      i_ = t_.size();
      eof_inside(fmt::format("inside the value of attribute '{}' of <{}> (line {})", key, e.name, e.line));
      return false;
    }
    std::string_view raw = t_.substr(i_, end - i_);
    if (raw.find('<') != std::string_view::npos) {
      fail(fmt::format("'<' inside the value of attribute '{}' of <{}>", key, e.name));
      return false;
    }
    std::string value;
    if (!decode(raw, value)) return false;
    advance(end + 1 - i_);
    if (e.attribute(key)) {
      fail(fmt::format("attribute '{}' appears twice in <{}>", key, e.name));
      return false;
    }
    e.attributes.emplace_back(std::move(key), std::move(value));
    return true;
  }

  // At '</': the end tag, which must close `open`.
  bool end_tag(const XmlElement& open) {
    advance(2);
    std::string closing;
    if (!name(closing)) return false;
    skip_space();
    if (at_end()) {
      eof_inside(fmt::format("inside the end tag </{}>", closing));
      return false;
    }
    if (peek() != '>') {
      fail(fmt::format("expected '>' to end </{}>, found {}", closing, shown(peek())));
      return false;
    }
    if (closing != open.name) {
      fail(fmt::format("</{}> closes <{}> opened at line {}", closing, open.name, open_.back().line));
      return false;
    }
    advance();
    return true;
  }

  // Character data up to the next '<' (which an open element must still have), skipped:
  // only a NUL byte in it is an error.
  bool skip_text() {
    const size_t lt = t_.find('<', i_);
    if (lt == std::string_view::npos) {
      i_ = t_.size();
      eof_inside("before its end tag");
      return false;
    }
    for (size_t k = i_; k < lt; ++k) {
      if (t_[k] == '\0') {
        advance(k - i_);
        fail("a NUL byte in the document");
        return false;
      }
    }
    advance(lt - i_);
    return true;
  }

  bool skip_cdata() {
    const size_t end = t_.find("]]>", i_);
    if (end == std::string_view::npos) {
      i_ = t_.size();
      eof_inside("inside a CDATA section");
      return false;
    }
    advance(end + 3 - i_);
    return true;
  }

  // Content of the open elements (`stack`, innermost last) until the next child start tag,
  // added to the innermost one and returned in `child`, or until the end tag that closes
  // the outermost (`child` null).
  bool content(std::vector<XmlElement*>& stack, XmlElement*& child) {
    while (!stack.empty()) {
      XmlElement* cur = stack.back();
      if (!skip_text()) return false;
      if (starts("<!--")) {
        skip_comment();
      } else if (starts("<?")) {
        skip_pi();
      } else if (starts("<![CDATA[")) {
        skip_cdata();
      } else if (starts("</")) {
        if (!end_tag(*cur)) return false;
        open_.pop_back();
        stack.pop_back();
      } else {
        cur->children.emplace_back();
        child = &cur->children.back();
        return true;
      }
      if (!ok_) return false;
    }
    child = nullptr;
    return true;
  }

  // Parses one element at '<' (not a comment or PI), children included, iteratively
  // through an explicit stack so that deep nesting cannot overflow the call stack.
  bool element(XmlElement& root) {
    std::vector<XmlElement*> stack;
    XmlElement* target = &root;
    while (ok_ && target != nullptr) {
      bool self_closing = false;
      if (!start_tag(*target, self_closing)) return false;
      if (!self_closing) {
        if (static_cast<int>(open_.size()) >= kMaxDepth) {
          fail(fmt::format("elements nested deeper than {} levels", kMaxDepth));
          return false;
        }
        open_.push_back({target->name, target->line});
        stack.push_back(target);
      }
      if (!content(stack, target)) return false;
    }
    return ok_;
  }
};

}  // namespace

Result<XmlElement> parse_xml(std::string_view text, std::string_view source) {
  Parser p(text, source);
  return p.document();
}

}  // namespace fabscope::topo
