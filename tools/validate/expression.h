// A small arithmetic-expression evaluator for the formulas quoted in the analysis documents
// ("4 * K * (M + N)", "(simd_id / 2) * 16", "tile_linear % m_tiles", "ceil(12 / 5)").
//
// Grammar: numbers (integer, decimal, 0x hex, 1e9 exponents), identifiers bound by the caller,
// + - * / % with the usual precedence, unary minus, parentheses, comparisons (< <= > >= == !=,
// giving 1 or 0), the conditional `a ? b : c`, and the functions ceil, floor, min, max.
// Values are doubles. With `integer_division`, `/` between two integral values truncates (the
// uint arithmetic of a Metal kernel); otherwise it is exact division. `%` needs integral values.
// Contract: a malformed expression, an unbound name or a division by zero throws InputError
// naming the expression.
#pragma once

#include <map>
#include <string>

namespace marlin::validate {

using Bindings = std::map<std::string, double>;

double evaluate_expression(const std::string& expression, const Bindings& bindings,
                           bool integer_division = false);

}  // namespace marlin::validate
