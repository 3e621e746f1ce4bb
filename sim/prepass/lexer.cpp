#include "sim/prepass/lexer.h"

#include <cctype>

namespace marlin::prepass {

namespace {
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  int line = 1;
  bool line_start = true;  // only whitespace so far on this line
  const auto push = [&](TokenKind kind, std::size_t begin, std::size_t end) {
    Token t;
    t.kind = kind;
    t.text = std::string(s.substr(begin, end - begin));
    t.line = line;
    for (char c : t.text) line += c == '\n' ? 1 : 0;
    out.push_back(std::move(t));
  };
  while (i < s.size()) {
    const char c = s[i];
    const std::size_t begin = i;
    if (c == '#' && line_start) {
      // A directive runs to the end of the line, including backslash continuations.
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
        ++i;
      }
      push(TokenKind::kDirective, begin, i);
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) {
        if (s[i] == '\n') line_start = true;
        ++i;
      }
      push(TokenKind::kSpace, begin, i);
      continue;
    }
    line_start = false;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      push(TokenKind::kComment, begin, i);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) ++i;
      i = i + 2 <= s.size() ? i + 2 : s.size();
      push(TokenKind::kComment, begin, i);
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < s.size() && s[i] != c) i += s[i] == '\\' ? 2 : 1;
      i = i + 1 <= s.size() ? i + 1 : s.size();
      push(TokenKind::kString, begin, i);
    } else if (ident_start(c)) {
      while (i < s.size() && ident_char(s[i])) ++i;
      push(TokenKind::kIdentifier, begin, i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() &&
                std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // pp-number: digits, letters, '.', and signs after an exponent letter.
      while (i < s.size()) {
        const char d = s[i];
        if (ident_char(d) || d == '.') {
          ++i;
        } else if ((d == '+' || d == '-') &&
                   (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P')) {
          ++i;
        } else {
          break;
        }
      }
      push(TokenKind::kNumber, begin, i);
    } else if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
      i += 2;
      push(TokenKind::kPunct, begin, i);
    } else {
      ++i;
      push(TokenKind::kPunct, begin, i);
    }
  }
  return out;
}

}  // namespace marlin::prepass
