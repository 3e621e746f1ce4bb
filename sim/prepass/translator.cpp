#include "sim/prepass/translator.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "sim/prepass/lexer.h"

namespace marlin::prepass {

namespace {

namespace fs = std::filesystem;

// ---- include inlining ------------------------------------------------------------------------

struct Source {
  std::string text;
  std::vector<std::pair<std::string, int>> line_origin;  // combined line -> (file, line)
  std::vector<std::string> files;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw TranslateError(path.string() + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Appends `path` to `src`, inlining quoted includes relative to the including file.
void inline_file(const fs::path& path, Source& src, std::set<std::string>& once, int depth) {
  if (depth > 32) throw TranslateError(path.string() + ": includes nested too deeply");
  const std::string text = read_text(path);
  const std::string name = path.string();
  src.files.push_back(name);
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  const auto emit = [&](const std::string& l, const std::string& file, int n) {
    src.text += l;
    src.text += '\n';
    src.line_origin.emplace_back(file, n);
  };
  while (std::getline(lines, line)) {
    ++number;
    std::string trimmed = line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    if (trimmed.rfind("#pragma", 0) == 0 && trimmed.find("once") != std::string::npos) {
      once.insert(name);
      emit("", name, number);
      continue;
    }
    if (trimmed.rfind("#include", 0) == 0) {
      const auto q1 = trimmed.find('"');
      const auto q2 = q1 == std::string::npos ? q1 : trimmed.find('"', q1 + 1);
      if (q1 != std::string::npos && q2 != std::string::npos) {
        const fs::path inc =
            fs::weakly_canonical(path.parent_path() / trimmed.substr(q1 + 1, q2 - q1 - 1));
        if (!fs::exists(inc)) {
          throw TranslateError(name + ":" + std::to_string(number) + ": included file " +
                               inc.string() + " not found");
        }
        if (once.count(inc.string()) == 0) {
          emit("#line 1 \"" + inc.string() + "\"", name, number);
          inline_file(inc, src, once, depth + 1);
          emit("#line " + std::to_string(number + 1) + " \"" + name + "\"", name, number);
        } else {
          emit("", name, number);
        }
        continue;
      }
      const auto a1 = trimmed.find('<');
      const auto a2 = trimmed.find('>');
      const std::string header = a1 == std::string::npos || a2 == std::string::npos
                                     ? ""
                                     : trimmed.substr(a1 + 1, a2 - a1 - 1);
      if (header.rfind("metal_", 0) != 0) {
        throw TranslateError(name + ":" + std::to_string(number) +
                             ": kernels may include only Metal standard headers with <...> "
                             "(got '" +
                             trimmed + "')");
      }
    }
    emit(line, name, number);
  }
}

// ---- token helpers ---------------------------------------------------------------------------

const std::map<std::string, std::string>& builtin_names();

class Translator {
 public:
  Translator(Source src, std::string main_file, TranslateOptions options)
      : src_(std::move(src)),
        main_file_(std::move(main_file)),
        toks_(tokenize(src_.text)),
        batch_(options.batch) {}

  std::string run();

 private:
  [[noreturn]] void fail(std::size_t i, const std::string& what) const {
    const int line = i < toks_.size() ? toks_[i].line : 0;
    std::string where = main_file_;
    if (line >= 1 && static_cast<std::size_t>(line) <= src_.line_origin.size()) {
      const auto& [file, n] = src_.line_origin[static_cast<std::size_t>(line - 1)];
      where = file + ":" + std::to_string(n);
    }
    throw TranslateError(where + ": error: " + what);
  }
  std::size_t next(std::size_t i) const {
    for (++i; i < toks_.size(); ++i)
      if (toks_[i].significant()) return i;
    return toks_.size();
  }
  std::size_t prev(std::size_t i) const {
    while (i > 0) {
      --i;
      if (toks_[i].significant()) return i;
    }
    return toks_.size();
  }
  bool is(std::size_t i, const char* text) const {
    return i < toks_.size() && toks_[i].text == text;
  }
  bool ident(std::size_t i) const {
    return i < toks_.size() && toks_[i].kind == TokenKind::kIdentifier;
  }
  // Index of the token closing the bracket opened at `i` ( '(' '[' '{' '<' ).
  std::size_t match(std::size_t i) const;
  std::string join(std::size_t begin, std::size_t end) const {  // [begin, end)
    std::string s;
    for (std::size_t k = begin; k < end; ++k) s += toks_[k].text;
    return s;
  }
  void blank(std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) toks_[k].text.clear();
  }

  void rewrite_scalar_types();
  void rewrite_template_type_parameters(const std::vector<char>& code);
  void spell_batch_namespace();
  std::vector<char> function_code_mask() const;
  bool opens_function_body(std::size_t brace) const;
  bool is_parameter_list(std::size_t paren) const;
  bool keeps_builtin_scalar(std::size_t i) const;
  void rewrite_literals_and_spaces(const std::vector<char>& code);
  void rewrite_unrolled_loops();
  void mark_unrolled_index(std::size_t for_token);
  std::size_t top_level_semicolon(std::size_t begin, std::size_t end) const;
  std::size_t statement_end(std::size_t begin) const;
  bool assigns(const std::string& var, std::size_t begin, std::size_t end) const;
  std::size_t parse_type(std::size_t i, std::string* text) const;
  void rewrite_address_space(std::size_t i);
  void scan_kernels();
  void translate_kernel(std::size_t kernel_token);
  std::size_t skip_attributes(std::size_t i, std::map<std::string, std::string>& attrs) const;
  std::string entry_code(const std::string& host, const std::string& name, const std::string& targs,
                         std::size_t lparen, std::size_t rparen, std::uint32_t max_threads);

  Source src_;
  std::string main_file_;
  std::vector<Token> toks_;
  bool batch_ = false;  // TranslateOptions::batch
  bool synchronizes_ = false;
};

std::size_t Translator::match(std::size_t i) const {
  const std::string open = toks_[i].text;
  const std::string close = open == "(" ? ")" : open == "[" ? "]" : open == "{" ? "}" : ">";
  int depth = 0;
  for (std::size_t k = i; k < toks_.size(); ++k) {
    if (!toks_[k].significant()) continue;
    if (toks_[k].text == open) ++depth;
    if (toks_[k].text == close && --depth == 0) return k;
    if (open == "<" && (toks_[k].text == ";" || toks_[k].text == "{")) break;
  }
  fail(i, "unbalanced '" + open + "'");
}

// Parses a (possibly qualified, possibly templated) type name starting at significant token
// `i`; returns the index of the first significant token after it.
std::size_t Translator::parse_type(std::size_t i, std::string* text) const {
  std::size_t k = i;
  for (;;) {
    if (is(k, "::")) {
      *text += "::";
      k = next(k);
    }
    if (!ident(k)) fail(k, "expected a type name after an address-space qualifier");
    *text += toks_[k].text;
    k = next(k);
    if (is(k, "<")) {
      const std::size_t close = match(k);
      *text += join(k, close + 1);
      k = next(close);
    }
    if (!is(k, "::")) return k;
  }
}

// ---- counted scalar types -------------------------------------------------------------------

// Metal scalar type names declared as metal::counted<T> in function code.
const std::map<std::string, std::string>& counted_scalar_names() {
  static const std::map<std::string, std::string> names = {
      {"char", "::metal::counted_char"},   {"uchar", "::metal::counted_uchar"},
      {"short", "::metal::counted_short"}, {"ushort", "::metal::counted_ushort"},
      {"int", "::metal::counted_int"},     {"uint", "::metal::counted_uint"},
      {"long", "::metal::counted_long"},   {"ulong", "::metal::counted_ulong"},
      {"float", "::metal::counted_float"}, {"half", "::metal::counted_half"},
  };
  return names;
}

// The vector type names the batched build also declares batched in function code.
const std::map<std::string, std::string>& counted_vector_names() {
  static const std::map<std::string, std::string> names = [] {
    std::map<std::string, std::string> n;
    for (const char* e : {"bool", "char", "uchar", "short", "ushort", "int", "uint", "long",
                          "ulong", "half", "float"}) {
      for (const char* width : {"2", "3", "4"}) {
        n[std::string(e) + width] = std::string("::metal::counted_") + e + width;
      }
    }
    return n;
  }();
  return names;
}

bool Translator::opens_function_body(std::size_t brace) const {
  std::size_t p = prev(brace);
  for (;;) {
    if (is(p, "const") || is(p, "noexcept") || is(p, "override") || is(p, "final")) {
      p = prev(p);
    } else if (is(p, "]") && is(prev(p), "]")) {  // a trailing [[attribute]]
      int depth = 0;
      for (; p < toks_.size(); p = prev(p)) {
        if (is(p, "]")) ++depth;
        if (is(p, "[") && --depth == 0) break;
      }
      p = prev(p);
    } else {
      break;
    }
  }
  return is(p, ")");
}

// A '(' outside function code that opens the parameter list of a function declaration or
// definition: it follows a name (or a template-id) and its ')' is followed by '{' or ';'.
bool Translator::is_parameter_list(std::size_t paren) const {
  static const std::set<std::string> not_functions = {
      "static_assert", "sizeof", "alignof", "alignas", "decltype", "__attribute__",
      "requires",      "if",     "while",   "for",     "switch",   "return",
      "noexcept",      "typeid", "defined", "operator"};
  const std::size_t p = prev(paren);
  if (!(is(p, ">") || (ident(p) && not_functions.count(toks_[p].text) == 0))) return false;
  std::size_t a = next(match(paren));
  while (is(a, "const") || is(a, "noexcept") || (is(a, "[") && is(next(a), "["))) {
    a = is(a, "[") ? next(match(a)) : next(a);
  }
  return is(a, "{") || is(a, ";");
}

// Marks the tokens of function code: function bodies, parameter lists and return types.
std::vector<char> Translator::function_code_mask() const {
  std::vector<char> code(toks_.size(), 0);
  std::vector<char> scopes;  // per open '{': inside function code
  bool in_code = false;
  for (std::size_t i = 0; i < toks_.size(); i = next(i)) {
    if (!toks_[i].significant()) continue;
    if (is(i, "{")) {
      in_code = in_code || opens_function_body(i);
      scopes.push_back(in_code ? 1 : 0);
    } else if (is(i, "}")) {
      if (!scopes.empty()) scopes.pop_back();
      in_code = !scopes.empty() && scopes.back() != 0;
    } else if (is(i, "(") && !in_code && is_parameter_list(i)) {
      const std::size_t close = match(i);
      for (std::size_t k = i; k <= close; ++k) code[k] = 1;
      // The return type: the words before the function's name.
      std::size_t name = prev(i);
      if (is(name, ">")) {
        int depth = 0;
        for (; name < toks_.size(); name = prev(name)) {
          if (is(name, ">")) ++depth;
          if (is(name, "<") && --depth == 0) break;
        }
        name = prev(name);
      }
      for (std::size_t k = prev(name);
           k < toks_.size() && (ident(k) || is(k, "*") || is(k, "&") || is(k, "::")); k = prev(k)) {
        code[k] = 1;
      }
    }
    if (in_code) code[i] = 1;
  }
  // Template parameter lists stay built-in (non-type template parameters must be integral).
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (is(i, "template") && is(next(i), "<")) {
      const std::size_t close = match(next(i));
      for (std::size_t k = i; k <= close; ++k) code[k] = 0;
    }
  }
  return code;
}

// True when the scalar type name at `i` must stay the built-in type: a template argument
// (except of static_cast and as_type), the operand of sizeof or alignof, the pointee of an
// address-space pointer or reference, part of a multi-word type (`unsigned int`), or a
// qualified name.
bool Translator::keeps_builtin_scalar(std::size_t i) const {
  static const std::set<std::string> spaces = {"device", "constant", "threadgroup"};
  static const std::set<std::string> words = {"unsigned", "signed", "long",  "short",
                                              "int",      "char",   "double"};
  const std::size_t p = prev(i);
  const std::size_t n = next(i);
  const auto text = [&](std::size_t k) { return k < toks_.size() ? toks_[k].text : std::string(); };
  if (is(p, "<")) return !(is(prev(p), "static_cast") || is(prev(p), "as_type"));
  if (is(p, "(") && (is(prev(p), "sizeof") || is(prev(p), "alignof"))) return true;
  if (is(n, ",") || is(n, ">") || is(n, ">>")) return true;
  if (spaces.count(text(p)) != 0) return true;
  if ((is(p, "const") || is(p, "volatile")) && spaces.count(text(prev(p))) != 0) return true;
  if (words.count(text(p)) != 0 || words.count(text(n)) != 0) return true;
  if (is(p, ".") || is(p, "->") || is(p, "::")) return true;
  return false;
}

void Translator::rewrite_scalar_types() {
  const std::vector<char> code = function_code_mask();
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (code[i] == 0 || !ident(i)) continue;
    auto it = counted_scalar_names().find(toks_[i].text);
    if (it == counted_scalar_names().end() && batch_) {
      it = counted_vector_names().find(toks_[i].text);
      if (it == counted_vector_names().end()) continue;
    } else if (it == counted_scalar_names().end()) {
      continue;
    }
    if (keeps_builtin_scalar(i)) continue;
    toks_[i].text = it->second;
  }
  if (batch_) rewrite_template_type_parameters(code);
}

// The batched build: in function code, a template type parameter (`template <class OUT>`)
// stands for a scalar type where it names a value's type (`OUT(x)`, `OUT v`), so it is
// spelled metal::batched_t<OUT> there, under the scalar names' rule; within the declaration
// the template header introduces only.
void Translator::rewrite_template_type_parameters(const std::vector<char>& code) {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (!is(i, "template") || !is(next(i), "<")) continue;
    const std::size_t open = next(i);
    const std::size_t close = match(open);
    std::set<std::string> names;
    for (std::size_t k = next(open); k < close; k = next(k)) {
      if ((is(k, "typename") || is(k, "class")) && ident(next(k)) &&
          (is(next(next(k)), ",") || is(next(next(k)), ">") || is(next(next(k)), "="))) {
        names.insert(toks_[next(k)].text);
      }
    }
    if (names.empty()) continue;
    // The declaration: up to its body's '}' or its ';'.
    std::size_t end = next(close);
    int depth = 0;
    for (; end < toks_.size(); end = next(end)) {
      if (is(end, "(") || is(end, "[")) ++depth;
      if (is(end, ")") || is(end, "]")) --depth;
      if (depth == 0 && is(end, "{")) {
        end = match(end);
        break;
      }
      if (depth == 0 && is(end, ";")) break;
    }
    for (std::size_t k = next(close); k < end && k < toks_.size(); k = next(k)) {
      if (code[k] == 0 || !ident(k) || names.count(toks_[k].text) == 0) continue;
      if (keeps_builtin_scalar(k)) continue;
      toks_[k].text = "::metal::batched_t<" + toks_[k].text + ">";
    }
  }
}

// The batched build names the batched shim: every `metal` the kernel or the pre-pass wrote.
void Translator::spell_batch_namespace() {
  static const std::string kPlain = "::metal::";
  static const std::string kBatch = "::metal_batch::";
  for (Token& t : toks_) {
    if (t.kind == TokenKind::kComment || t.kind == TokenKind::kDirective ||
        t.kind == TokenKind::kString) {
      continue;
    }
    if (t.kind == TokenKind::kIdentifier && t.text == "metal") {
      t.text = "metal_batch";
      continue;
    }
    for (std::size_t at = t.text.find(kPlain); at != std::string::npos;
         at = t.text.find(kPlain, at + kBatch.size())) {
      t.text.replace(at, kPlain.size(), kBatch);
    }
  }
}

// ---- loops marked for full unrolling ------------------------------------------------------

namespace {
// A directive's text without whitespace or a trailing // comment.
std::string squeezed(const std::string& directive) {
  std::string out;
  for (std::size_t k = 0; k < directive.size(); ++k) {
    if (directive.compare(k, 2, "//") == 0) break;
    if (!std::isspace(static_cast<unsigned char>(directive[k]))) out += directive[k];
  }
  return out;
}

// Loop pragmas steer Apple's code generation only; GCC does not know them.
bool is_loop_pragma(const std::string& d) {
  return d.rfind("#pragmaunroll", 0) == 0 || d.rfind("#pragmanounroll", 0) == 0 ||
         d.rfind("#pragmaclangloop", 0) == 0;
}

// `#pragma unroll` without a count, `#pragma clang loop unroll(full)` or `unroll(enable)`:
// clang unrolls the loop completely when its trip count is a compile-time constant.
bool is_full_unroll_pragma(const std::string& d) {
  if (d == "#pragmaunroll") return true;
  return d.rfind("#pragmaclangloop", 0) == 0 && (d.find("unroll(full)") != std::string::npos ||
                                                 d.find("unroll(enable)") != std::string::npos);
}

bool is_counted_integer(const std::string& type) {
  static const std::set<std::string> names = {"::metal::counted_char",  "::metal::counted_uchar",
                                              "::metal::counted_short", "::metal::counted_ushort",
                                              "::metal::counted_int",   "::metal::counted_uint",
                                              "::metal::counted_long",  "::metal::counted_ulong"};
  return names.count(type) != 0;
}
}  // namespace

void Translator::rewrite_unrolled_loops() {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (toks_[i].kind != TokenKind::kDirective) continue;
    const std::string d = squeezed(toks_[i].text);
    if (!is_loop_pragma(d)) continue;
    const std::size_t loop = next(i);
    if (!is(loop, "for") && !is(loop, "while") && !is(loop, "do")) {
      fail(i, "a loop pragma must be followed by a for, while or do loop");
    }
    toks_[i].text.clear();
    if (is_full_unroll_pragma(d)) mark_unrolled_index(loop);
  }
}

// The index of `for (T i = INIT; i OP BOUND; STEP) BODY` (T a counted integer type; OP one of
// < <= > >= !=; STEP one of ++i i++ --i i-- i += S i -= S) whose BODY assigns no `i` becomes
// metal::unrolled_index<T, INIT, BOUND and S are constant expressions>, and BOUND and S are
// wrapped in metal::unrolled_bound (no counted compare against a counted constant). Any other
// loop keeps its counted index: it runs as written.
void Translator::mark_unrolled_index(std::size_t for_token) {
  if (!is(for_token, "for") || !is(next(for_token), "(")) return;
  const std::size_t open = next(for_token);
  const std::size_t close = match(open);
  // The header's two ';' (a range-for has none).
  const std::size_t init_end = top_level_semicolon(next(open), close);
  if (init_end == close) return;
  const std::size_t condition_end = top_level_semicolon(next(init_end), close);
  if (condition_end == close || top_level_semicolon(next(condition_end), close) != close) return;
  const std::size_t type = next(open);
  const std::size_t name = next(type);
  if (!ident(type) || !is_counted_integer(toks_[type].text) || !ident(name) ||
      !is(next(name), "=")) {
    return;
  }
  const std::string var = toks_[name].text;
  const std::string init = join(next(next(name)), init_end);

  std::size_t c = next(init_end);
  if (!is(c, var.c_str())) return;
  c = next(c);
  if ((is(c, "<") && !is(next(c), "<")) || (is(c, ">") && !is(next(c), ">"))) {
    c = is(next(c), "=") ? next(next(c)) : next(c);
  } else if (is(c, "!") && is(next(c), "=")) {
    c = next(next(c));
  } else {
    return;
  }
  const std::string bound = join(c, condition_end);
  const std::size_t bound_last = prev(condition_end);

  const auto step_pair = [&](std::size_t k) {
    return (is(k, "+") && is(next(k), "+")) || (is(k, "-") && is(next(k), "-"));
  };
  std::string stride = "1";
  std::size_t stride_first = toks_.size();
  const std::size_t s = next(condition_end);
  if (step_pair(s)) {
    if (!is(next(next(s)), var.c_str()) || next(next(next(s))) != close) return;
  } else if (is(s, var.c_str()) && step_pair(next(s))) {
    if (next(next(next(s))) != close) return;
  } else if (is(s, var.c_str()) && (is(next(s), "+") || is(next(s), "-")) &&
             is(next(next(s)), "=")) {
    stride_first = next(next(next(s)));
    stride = join(stride_first, close);
  } else {
    return;
  }
  // A header part that reads the index (`i < 8 && i < n`) has no constant trip count and
  // could not name the index in its type.
  for (std::size_t k = next(name); k < close; k = next(k)) {
    if (k > condition_end && k < stride_first) continue;  // the step names it, as it must
    if (k == next(init_end)) continue;                    // the condition's left side
    if (ident(k) && toks_[k].text == var) return;
  }
  const std::size_t body = next(close);
  if (assigns(var, body, statement_end(body))) return;
  toks_[type].text = "::metal::unrolled_index<" + toks_[type].text + ", (__builtin_constant_p(" +
                     init + ") && __builtin_constant_p(" + bound + ") && __builtin_constant_p(" +
                     stride + "))>";
  const std::string wrap = "::metal::unrolled_bound<decltype(" + var + ")>(";
  toks_[c].text = wrap + toks_[c].text;
  toks_[bound_last].text += ")";
  if (stride_first < close) {
    toks_[stride_first].text = wrap + toks_[stride_first].text;
    toks_[prev(close)].text += ")";
  }
}

// The first ';' in [begin, end) outside the brackets opened there, or `end`.
std::size_t Translator::top_level_semicolon(std::size_t begin, std::size_t end) const {
  int depth = 0;
  for (std::size_t k = begin; k < end; k = next(k)) {
    if (is(k, "(") || is(k, "[") || is(k, "{")) ++depth;
    if (is(k, ")") || is(k, "]") || is(k, "}")) --depth;
    if (depth == 0 && is(k, ";")) return k;
  }
  return end;
}

// The last token of the statement starting at `begin`: a braced block's '}', else its ';'.
std::size_t Translator::statement_end(std::size_t begin) const {
  return is(begin, "{") ? match(begin) : top_level_semicolon(begin, toks_.size());
}

// True when a token in [begin, end] may assign the variable `var`: `var` followed by an
// assignment or compound assignment, or next to ++ or --.
bool Translator::assigns(const std::string& var, std::size_t begin, std::size_t end) const {
  static const std::set<std::string> compound = {"+", "-", "*", "/", "%", "&", "|", "^"};
  for (std::size_t k = begin; k <= end && k < toks_.size(); k = next(k)) {
    if (!ident(k) || toks_[k].text != var) continue;
    const std::size_t p = prev(k);
    if (is(p, ".") || is(p, "->") || is(p, "::")) continue;
    const std::size_t n = next(k);
    const std::size_t n2 = next(n);
    const auto text = [&](std::size_t i) {
      return i < toks_.size() ? toks_[i].text : std::string();
    };
    if (is(n, "=") && !is(n2, "=")) return true;
    if (compound.count(text(n)) != 0 && is(n2, "=")) return true;
    if ((is(n, "<") && is(n2, "<") && is(next(n2), "=")) ||
        (is(n, ">") && is(n2, ">") && is(next(n2), "="))) {
      return true;
    }
    if ((is(n, "+") && is(n2, "+")) || (is(n, "-") && is(n2, "-"))) return true;
    if ((is(p, "+") && is(prev(p), "+")) || (is(p, "-") && is(prev(p), "-"))) return true;
  }
  return false;
}

void Translator::rewrite_literals_and_spaces(const std::vector<char>& code) {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    Token& t = toks_[i];
    if (t.kind == TokenKind::kNumber) {
      const char last = t.text.back();
      const bool hex =
          t.text.size() > 1 && t.text[0] == '0' && (t.text[1] == 'x' || t.text[1] == 'X');
      if ((last == 'h' || last == 'H') && !hex) {
        std::string num = t.text.substr(0, t.text.size() - 1);
        const bool floating = num.find_first_of(".eE") != std::string::npos;
        t.text = "::metal::half::round(" + num + (floating ? "f" : "") + ")";
        // Batched in the batched build's function code, so that `c ? p[i] : 0.0h` has one
        // type there too.
        if (batch_ && code[i] != 0) t.text = "::metal::counted_half(" + t.text + ")";
      }
      continue;
    }
    if (t.kind != TokenKind::kIdentifier) continue;
    if (t.text == "thread") {
      t.text.clear();
    } else if (t.text == "reinterpret_cast") {
      t.text = "::metal::reinterpret_pointer";
    } else if (t.text == "device" || t.text == "constant" || t.text == "threadgroup") {
      rewrite_address_space(i);
    } else if (builtin_names().count(t.text) != 0) {
      // Attribute names such as simdgroup_index_in_threadgroup do not synchronize.
    } else if (t.text.rfind("simd_", 0) == 0 || t.text.rfind("simdgroup_", 0) == 0 ||
               t.text == "threadgroup_barrier" || t.text == "make_filled_simdgroup_matrix" ||
               t.text.rfind("quad_", 0) == 0) {
      synchronizes_ = true;
    }
  }
}

void Translator::rewrite_address_space(std::size_t i) {
  const std::string space = toks_[i].text;
  std::size_t k = next(i);
  if (is(k, "(")) return;  // the [[threadgroup(n)]] attribute
  std::string cv;
  if (const std::size_t p = prev(i); is(p, "const")) {
    cv = "const ";
    toks_[p].text.clear();
  }
  while (is(k, "const") || is(k, "volatile")) {
    cv += toks_[k].text + " ";
    k = next(k);
  }
  std::string type;
  k = parse_type(k, &type);
  while (is(k, "const") || is(k, "volatile")) {
    cv += toks_[k].text + " ";
    k = next(k);
  }
  if (space == "constant" && cv.find("const ") == std::string::npos) cv = "const " + cv;
  const std::string enumerator = space == "device"     ? "kDevice"
                                 : space == "constant" ? "kConstant"
                                                       : "kThreadgroup";
  if (is(k, "*")) {
    toks_[i].text = "::metal::space_ptr<" + cv + type + ", ::metal::Space::" + enumerator + "> ";
    blank(i + 1, k + 1);
  } else if (is(k, "&")) {
    toks_[i].text = cv + type + " &";
    blank(i + 1, k + 1);
  } else if (ident(k) && space == "constant") {
    toks_[i].text = "const";
  } else if (ident(k) && space == "threadgroup") {
    // A threadgroup variable: handled with its kernel (only kernel scope is allowed).
  } else {
    fail(i, "unsupported use of the '" + space +
                "' address space (expected a pointer, a "
                "reference, or a variable declaration)");
  }
}

std::size_t Translator::skip_attributes(std::size_t i,
                                        std::map<std::string, std::string>& attrs) const {
  while (is(i, "[") && is(next(i), "[")) {
    const std::size_t close = match(i);
    std::size_t k = next(next(i));
    while (k < close) {
      if (ident(k)) {
        std::string name = toks_[k].text;
        std::string arg;
        std::size_t after = next(k);
        if (is(after, "(")) {
          const std::size_t rp = match(after);
          arg = join(after + 1, rp);
          after = next(rp);
        }
        attrs[name] = arg;
        k = after;
      } else {
        k = next(k);
      }
    }
    i = next(close);
  }
  return i;
}

void Translator::scan_kernels() {
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (!toks_[i].significant()) continue;
    if (is(i, "kernel") && ident(i)) {
      translate_kernel(i);
    } else if (is(i, "[") && is(next(i), "[") && is(next(next(i)), "kernel")) {
      translate_kernel(i);
    }
  }
}

const std::map<std::string, std::string>& builtin_names() {
  static const std::map<std::string, std::string> names = {
      {"thread_position_in_threadgroup", "kThreadPositionInThreadgroup"},
      {"threadgroup_position_in_grid", "kThreadgroupPositionInGrid"},
      {"thread_position_in_grid", "kThreadPositionInGrid"},
      {"threads_per_threadgroup", "kThreadsPerThreadgroup"},
      {"threadgroups_per_grid", "kThreadgroupsPerGrid"},
      {"threads_per_grid", "kThreadsPerGrid"},
      {"thread_index_in_threadgroup", "kThreadIndexInThreadgroup"},
      {"simdgroup_index_in_threadgroup", "kSimdgroupIndexInThreadgroup"},
      {"thread_index_in_simdgroup", "kThreadIndexInSimdgroup"},
      {"simdgroups_per_threadgroup", "kSimdgroupsPerThreadgroup"},
      {"threads_per_simdgroup", "kThreadsPerSimdgroup"},
      {"thread_execution_width", "kThreadsPerSimdgroup"},
  };
  return names;
}

namespace {
std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string identifier_of(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n");
  const auto e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
}  // namespace

std::string Translator::entry_code(const std::string& host, const std::string& name,
                                   const std::string& targs, std::size_t lparen, std::size_t rparen,
                                   std::uint32_t max_threads) {
  std::string args;
  std::string params;
  std::size_t begin = next(lparen);
  while (begin < rparen) {
    // One parameter: [begin, end) up to a top-level comma.
    std::size_t end = begin;
    while (end < rparen && !is(end, ",")) {
      if (is(end, "(") || is(end, "[") || is(end, "<")) end = match(end);
      end = next(end);
    }
    std::size_t attr = begin;
    while (attr < end && !(is(attr, "[") && is(next(attr), "["))) attr = next(attr);
    if (attr >= end) fail(begin, "kernel parameter without a Metal attribute ([[buffer(n)]], ...)");
    std::map<std::string, std::string> attrs;
    skip_attributes(attr, attrs);
    const std::size_t pname = prev(attr);
    if (!ident(pname)) fail(begin, "cannot find the name of a kernel parameter");
    const std::string type = trim(join(begin, pname));
    const std::string pn = toks_[pname].text;
    if (!args.empty()) {
      args += ", ";
    }
    const std::string bind = batch_ ? "::marlin::sim::bind_batch_" : "::marlin::sim::bind_";
    if (attrs.count("buffer") != 0) {
      const std::string index = trim(attrs["buffer"]);
      args += bind + "buffer<" + type + ">(marlin_ctx, " + index + ", " + c_string(pn) + ")";
      params += "{::marlin::sim::ParamKind::kBuffer, " + index + ", " + c_string(pn) + "}, ";
    } else if (attrs.count("threadgroup") != 0) {
      const std::string index = trim(attrs["threadgroup"]);
      args += bind + "threadgroup<" + type + ">(marlin_ctx, " + index + ", " + c_string(pn) + ")";
      params += "{::marlin::sim::ParamKind::kThreadgroup, " + index + ", " + c_string(pn) + "}, ";
    } else {
      std::string builtin;
      for (const auto& [a, v] : attrs) {
        if (builtin_names().count(a) != 0) builtin = builtin_names().at(a);
      }
      if (builtin.empty()) {
        fail(begin, "unsupported kernel parameter attribute on '" + pn + "'");
      }
      args += bind + "builtin<" + type + ">(marlin_ctx, ::marlin::sim::Builtin::" + builtin + ")";
      params += "{::marlin::sim::ParamKind::kBuiltin, 0, " + c_string(pn) + "}, ";
    }
    begin = end < rparen ? next(end) : rparen;
  }
  const std::string id = identifier_of(host);
  std::string code;
  if (batch_) {
    code += " void marlin_batch_entry_" + id + "(::marlin::sim::BatchBindContext& marlin_ctx) { " +
            name + targs + "(" + args + "); }";
    code += " const ::marlin::sim::BatchKernelRegistrar marlin_batch_registrar_" + id + "{" +
            c_string(host) + ", &marlin_batch_entry_" + id + "};";
    return code;
  }
  code += " void marlin_entry_" + id + "(::marlin::sim::BindContext& marlin_ctx) { " + name +
          targs + "(" + args + "); }";
  code += " const ::marlin::sim::KernelRegistrar marlin_registrar_" + id +
          "{::marlin::sim::KernelInfo{.name = " + c_string(host) + ", .entry = &marlin_entry_" +
          id + ", .params = {" + params + "}, .threadgroup_decls = marlin_tgl_" + name + targs +
          "::decls(), .synchronizes = " + (synchronizes_ ? "true" : "false") +
          ", .max_total_threads_per_threadgroup = " + std::to_string(max_threads) +
          ", .source = " + c_string(main_file_) + "}};";
  return code;
}

void Translator::translate_kernel(std::size_t kt) {
  // Backwards: attributes, then a template header or `template` (explicit instantiation).
  std::map<std::string, std::string> attrs;
  std::size_t start = kt;
  for (std::size_t p = prev(kt); p < toks_.size() && is(p, "]") && is(prev(p), "]");) {
    std::size_t depth = 0;
    std::size_t q = p;
    for (; q < toks_.size(); q = prev(q)) {
      if (is(q, "]")) ++depth;
      if (is(q, "[") && --depth == 0) break;
    }
    skip_attributes(q, attrs);
    blank(q, p + 1);
    start = q;
    p = prev(q);
  }
  std::string template_header;
  bool instantiation = false;
  if (const std::size_t p = prev(start); is(p, "template")) {
    instantiation = true;
    start = p;
  } else if (is(p, ">")) {
    std::size_t depth = 0;
    std::size_t q = p;
    for (; q < toks_.size(); q = prev(q)) {
      if (is(q, ">")) ++depth;
      if (is(q, "<") && --depth == 0) break;
    }
    if (is(prev(q), "template")) {
      template_header = "template " + join(q, p + 1);
      start = prev(q);
    }
  }
  // Forwards: kernel keyword or [[kernel]], attributes, void NAME [<targs>] (params).
  std::size_t k = kt;
  if (is(k, "kernel")) {
    toks_[k].text.clear();
    k = next(k);
  }
  const std::size_t attrs_begin = k;
  k = skip_attributes(k, attrs);
  blank(attrs_begin, k);
  if (!is(k, "void")) fail(k, "a kernel must return void");
  const std::size_t name_tok = next(k);
  if (!ident(name_tok)) fail(name_tok, "expected the kernel's name");
  const std::string name = toks_[name_tok].text;
  k = next(name_tok);
  std::string targs;
  if (is(k, "<")) {
    const std::size_t close = match(k);
    targs = join(k, close + 1);
    k = next(close);
  }
  if (!is(k, "(")) fail(k, "expected the kernel's parameter list");
  const std::size_t lparen = k;
  const std::size_t rparen = match(lparen);
  std::map<std::string, std::string> trailing;
  const std::size_t after = skip_attributes(next(rparen), trailing);
  blank(next(rparen), after);
  for (auto& [a, v] : trailing) attrs[a] = v;
  std::uint32_t max_threads = 0;
  if (attrs.count("max_total_threads_per_threadgroup") != 0) {
    max_threads =
        static_cast<std::uint32_t>(std::stoul(trim(attrs["max_total_threads_per_threadgroup"])));
  }
  std::string host = name;
  if (attrs.count("host_name") != 0) {
    host = trim(attrs["host_name"]);
    if (host.size() >= 2 && host.front() == '"') host = host.substr(1, host.size() - 2);
  }

  if (instantiation) {
    if (!is(after, ";")) fail(after, "expected ';' after an explicit kernel instantiation");
    if (attrs.count("host_name") == 0)
      fail(kt, "an explicit kernel instantiation needs [[host_name(\"...\")]]");
    const std::string code = entry_code(host, name, targs, lparen, rparen, max_threads);
    blank(start, after + 1);
    toks_[start].text = code;
    return;
  }
  if (!is(after, "{")) return;  // a declaration only
  const std::size_t body_end = match(after);
  // Kernel-scope threadgroup declarations.
  std::string decls;
  std::uint32_t index = 0;
  int depth = 0;
  for (std::size_t i = after; i <= body_end; i = next(i)) {
    if (is(i, "{")) ++depth;
    if (is(i, "}")) --depth;
    if (!(ident(i) && is(i, "threadgroup"))) continue;
    if (is(next(i), "(")) continue;
    const std::size_t before = prev(i);
    if (depth != 1 || !(is(before, ";") || is(before, "{") || is(before, "}"))) {
      fail(i, "threadgroup variables must be declared at kernel scope");
    }
    std::size_t t = next(i);
    std::string type;
    while (is(t, "const") || is(t, "volatile")) {
      type += toks_[t].text + " ";
      t = next(t);
    }
    t = parse_type(t, &type);
    if (!ident(t)) fail(t, "expected a threadgroup variable name");
    const std::string var = toks_[t].text;
    std::string dims;
    std::size_t d = next(t);
    while (is(d, "[")) {
      const std::size_t close = match(d);
      dims += join(d, close + 1);
      d = next(close);
    }
    if (!is(d, ";")) fail(d, "threadgroup variables take no initializer and one declarator each");
    const std::string full = type + dims;
    toks_[i].text = "auto " + var + " = ::metal::detail::threadgroup_decl<" + full + ">(" +
                    std::to_string(index) + ", " + c_string(var) + ")";
    blank(i + 1, d);
    decls += "{sizeof(" + full + "), alignof(" + full + "), " + c_string(var) + "}, ";
    ++index;
  }
  toks_[start].text = template_header + " struct marlin_tgl_" + name +
                      " { static std::vector<::marlin::sim::ThreadgroupDecl> decls() { return {" +
                      decls + "}; } }; " + toks_[start].text;
  if (template_header.empty()) {
    toks_[body_end].text += entry_code(host, name, "", lparen, rparen, max_threads);
  }
}

std::string Translator::run() {
  const std::vector<char> code = function_code_mask();
  rewrite_scalar_types();
  rewrite_literals_and_spaces(code);
  rewrite_unrolled_loops();
  scan_kernels();
  for (std::size_t i = 0; i < toks_.size(); ++i) {
    if (ident(i) && is(i, "threadgroup") && !is(next(i), "(")) {
      fail(i, "threadgroup variables must be declared at kernel scope");
    }
  }
  if (batch_) spell_batch_namespace();
  std::string out;
  out += "// Generated by marlin-msl-prepass" + std::string(batch_ ? " --batch" : "") + " from " +
         main_file_ + "; do not edit.\n";
  if (batch_) {
    out += "#include <metal_batch_stdlib>\n#include <vector>\n";
    out += "#include \"sim/runtime/batch_binding.h\"\n";
  } else {
    out += "#include <metal_stdlib>\n#include <vector>\n";
    out += "#include \"sim/runtime/binding.h\"\n";
  }
  out += "#include \"sim/runtime/kernel_registry.h\"\n";
  out += "namespace {\n#line 1 \"" + main_file_ + "\"\n";
  for (const Token& t : toks_) out += t.text;
  out += "\n}  // namespace\n";
  return out;
}

}  // namespace

Translation translate_file(const std::string& path, TranslateOptions options) {
  Source src;
  std::set<std::string> once;
  const fs::path p = fs::weakly_canonical(fs::path(path));
  inline_file(p, src, once, 0);
  Translation t;
  t.dependencies = src.files;
  Translator translator(std::move(src), p.string(), options);
  t.cpp = translator.run();
  return t;
}

}  // namespace marlin::prepass
