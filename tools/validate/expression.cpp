#include "tools/validate/expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "fmt/core.h"
#include "model/common/input_error.h"

namespace marlin::validate {
namespace {

bool is_integral(double value) { return std::floor(value) == value; }

// Recursive-descent parser over the expression text; evaluates while parsing.
class Parser {
 public:
  Parser(const std::string& text, const Bindings& bindings, bool integer_division)
      : text_(text), bindings_(bindings), integer_division_(integer_division) {}

  double parse() {
    const double value = conditional();
    skip_spaces();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_.substr(pos_, 1)));
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("expression \"{}\": {}", text_, what));
  }

  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])) != 0) {
      ++pos_;
    }
  }

  // Consumes `token` when it comes next.
  bool accept(const char* token) {
    skip_spaces();
    const std::string t(token);
    if (text_.compare(pos_, t.size(), t) != 0) return false;
    pos_ += t.size();
    return true;
  }

  double conditional() {
    const double condition = comparison();
    if (!accept("?")) return condition;
    const double when_true = conditional();
    if (!accept(":")) fail("expected ':' in a conditional");
    const double when_false = conditional();
    return condition != 0 ? when_true : when_false;
  }

  double comparison() {
    const double left = sum();
    if (accept("<=")) return left <= sum() ? 1 : 0;
    if (accept(">=")) return left >= sum() ? 1 : 0;
    if (accept("==")) return left == sum() ? 1 : 0;
    if (accept("!=")) return left != sum() ? 1 : 0;
    if (accept("<")) return left < sum() ? 1 : 0;
    if (accept(">")) return left > sum() ? 1 : 0;
    return left;
  }

  double sum() {
    double value = product();
    while (true) {
      if (accept("+")) {
        value += product();
      } else if (accept("-")) {
        value -= product();
      } else {
        return value;
      }
    }
  }

  double product() {
    double value = unary();
    while (true) {
      if (accept("*")) {
        value *= unary();
      } else if (accept("/")) {
        const double divisor = unary();
        if (divisor == 0) fail("division by zero");
        value = integer_division_ && is_integral(value) && is_integral(divisor)
                    ? std::trunc(value / divisor)
                    : value / divisor;
      } else if (accept("%")) {
        const double divisor = unary();
        if (divisor == 0) fail("modulo by zero");
        if (!is_integral(value) || !is_integral(divisor)) fail("'%' needs integer operands");
        value = std::fmod(value, divisor);
      } else {
        return value;
      }
    }
  }

  double unary() {
    if (accept("-")) return -unary();
    if (accept("+")) return unary();
    return primary();
  }

  double primary() {
    skip_spaces();
    if (pos_ >= text_.size()) fail("unexpected end");
    if (accept("(")) {
      const double value = conditional();
      if (!accept(")")) fail("missing ')'");
      return value;
    }
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') return name();
    fail(fmt::format("unexpected '{}'", std::string(1, c)));
  }

  double number() {
    const char* begin = text_.c_str() + pos_;
    char* end = nullptr;
    double value = 0;
    if (text_.compare(pos_, 2, "0x") == 0 || text_.compare(pos_, 2, "0X") == 0) {
      value = static_cast<double>(std::strtoll(begin, &end, 16));
    } else {
      value = std::strtod(begin, &end);
    }
    if (end == begin) fail("bad number");
    pos_ += static_cast<std::size_t>(end - begin);
    return value;
  }

  double name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_')) {
      ++pos_;
    }
    const std::string id = text_.substr(start, pos_ - start);
    if (accept("(")) return call(id);
    const auto it = bindings_.find(id);
    if (it == bindings_.end()) fail(fmt::format("unknown name '{}'", id));
    return it->second;
  }

  double call(const std::string& function) {
    const double first = conditional();
    double second = 0;
    const bool binary = function == "min" || function == "max";
    if (binary) {
      if (!accept(",")) fail(fmt::format("{}() takes two arguments", function));
      second = conditional();
    }
    if (!accept(")")) fail(fmt::format("missing ')' after {}(", function));
    if (function == "ceil") return std::ceil(first);
    if (function == "floor") return std::floor(first);
    if (function == "min") return std::min(first, second);
    if (function == "max") return std::max(first, second);
    fail(fmt::format("unknown function '{}'", function));
  }

  const std::string& text_;
  const Bindings& bindings_;
  bool integer_division_;
  std::size_t pos_ = 0;
};

}  // namespace

double evaluate_expression(const std::string& expression, const Bindings& bindings,
                           bool integer_division) {
  return Parser(expression, bindings, integer_division).parse();
}

}  // namespace marlin::validate
