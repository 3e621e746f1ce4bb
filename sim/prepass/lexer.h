// A C++/MSL tokenizer for the kernel pre-pass: splits source text into tokens that, joined
// back, reproduce the text exactly. Comments, whitespace and preprocessor lines are tokens
// of their own so transformations can skip them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace marlin::prepass {

enum class TokenKind { kIdentifier, kNumber, kString, kPunct, kSpace, kComment, kDirective };

struct Token {
  TokenKind kind = TokenKind::kPunct;
  std::string text;
  int line = 1;  // line of the token's first character
  bool significant() const {
    return kind != TokenKind::kSpace && kind != TokenKind::kComment &&
           kind != TokenKind::kDirective;
  }
};

std::vector<Token> tokenize(std::string_view source);

}  // namespace marlin::prepass
