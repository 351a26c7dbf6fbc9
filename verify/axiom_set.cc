// AxiomSet (axiom_set.h): the parser of axiom files, and terms written back as text.
// Grammar (see verify/axioms/README.md):
//   entry   := comment-lines "axiom" NAME [ "unless" OP ] ":" "forall" binder+ "." term "=" term
//   binder  := NAME ":" "[" atom,* "]"  (a tensor with its shape)  |  NAME ":" KIND
//   atom    := summand { ("+" | "-") summand }  (a dimension; also groups=, into=, part=)
//   summand := NAME | NUMBER | NUMBER "*" NAME
//   term    := NAME [ "[" key "=" value,* "]" ] [ "(" term,* ")" ]
// concat and split terms must say their part sizes (part=, see param_ints.h).
// An entry continues on lines that start with white space.
#include "verify/axiom_set.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>

#include "runtime/core/error.h"
#include "runtime/core/nesting_limit.h"
#include "runtime/formats/json_text.h"
#include "verify/param_ints.h"

namespace superopt::verify {
namespace {

constexpr std::string_view kKindNames[] = {"dim",        "ksize", "stride", "padding",
                                           "activation", "axis",  "kernel"};

struct Token {
  enum Kind { name, number, punct, end } kind = end;
  std::string text;
  int line = 0;
};

std::vector<Token> tokenize(std::string_view text, int first_line, const std::string& where) {
  std::vector<Token> tokens;
  int line = first_line;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      tokens.push_back({Token::name, std::string(text.substr(i, j - i)), line});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      size_t j = i + 1;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      tokens.push_back({Token::number, std::string(text.substr(i, j - i)), line});
      i = j;
    } else if (std::string_view("[](),:.=*+-").find(c) != std::string_view::npos) {
      tokens.push_back({Token::punct, std::string(1, c), line});
      ++i;
    } else {
      throw Error(where + ":" + std::to_string(line) + ": unexpected character '" + std::string(1, c) + "'");
    }
  }
  tokens.push_back({Token::end, "end of axiom", line});
  return tokens;
}

class EntryParser {
 public:
  EntryParser(std::vector<Token> tokens, std::string where)
      : tokens_(std::move(tokens)), where_(std::move(where)) {}

  Axiom parse() {
    Axiom ax;
    expect_name("axiom");
    ax.line = peek().line;
    ax.name = take_name("an axiom name");
    if (peek().kind == Token::name && peek().text == "unless") {
      ++pos_;
      std::string op = take_name("an operator after 'unless'");
      std::optional<OpType> type = op_from_name(op);
      if (!type) fail("unknown operator '" + op + "' after 'unless'");
      ax.unless = *type;
    }
    expect(":");
    expect_name("forall");
    while (!is(".")) parse_binder(ax);
    expect(".");
    ax.lhs = parse_term();
    expect("=");
    ax.rhs = parse_term();
    if (peek().kind != Token::end) fail("expected the end of the axiom, got '" + peek().text + "'");
    if (ax.tensors.empty()) fail("axiom " + ax.name + " binds no tensor");
    if (ax.unless && ax.mentions(*ax.unless))
      fail("axiom " + ax.name + " mentions " + std::string(op_name(*ax.unless)) + ", which it is unless");
    for (const auto& [name, kind] : vars_) ax.vars.push_back({name, kind});
    check_used(ax);
    try {
      axiom_trigger(ax);
    } catch (const Error& e) {
      throw Error(where_ + ":" + std::to_string(ax.line) + ": " + e.what());
    }
    return ax;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw Error(where_ + ":" + std::to_string(peek().line) + ": " + message);
  }
  const Token& peek() const { return tokens_[pos_]; }
  bool is(std::string_view punct) const { return peek().kind == Token::punct && peek().text == punct; }
  void expect(std::string_view punct) {
    if (!is(punct)) fail("expected '" + std::string(punct) + "', got '" + peek().text + "'");
    ++pos_;
  }
  void expect_name(std::string_view word) {
    if (peek().kind != Token::name || peek().text != word)
      fail("expected '" + std::string(word) + "', got '" + peek().text + "'");
    ++pos_;
  }
  std::string take_name(const std::string& what) {
    if (peek().kind != Token::name) fail("expected " + what + ", got '" + peek().text + "'");
    return tokens_[pos_++].text;
  }
  int64_t take_number() {
    if (peek().kind != Token::number) fail("expected a number, got '" + peek().text + "'");
    const std::string& text = tokens_[pos_++].text;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    // Every number is a dimension, a factor or a parameter, all 32-bit in the
    // shapes and parameters they become: checked here, not cut to 32 bits there.
    if (ec != std::errc() || end != text.data() + text.size() || v > INT32_MAX)
      fail("number " + text + " is out of range (at most " + std::to_string(INT32_MAX) + ")");
    return v;
  }

  // A dimension first met in a shape may be declared a kernel size afterwards.
  void bind(const std::string& name, VarKind kind) {
    bool implicit_dim = vars_.count(name) && vars_[name] == VarKind::dim && !declared_.count(name);
    if ((vars_.count(name) && !(implicit_dim && kind == VarKind::ksize)) || tensors_.count(name))
      fail("variable " + name + " is bound twice");
    vars_[name] = kind;
    declared_.insert(name);
  }

  // A dimension variable, bound as one on first use.
  std::string dim_var() {
    std::string name = take_name("a dimension");
    auto it = vars_.find(name);
    if (it == vars_.end()) {
      if (tensors_.count(name)) fail(name + " is a tensor, not a dimension");
      vars_[name] = VarKind::dim;
    } else if (it->second != VarKind::dim && it->second != VarKind::ksize) {
      fail(name + " is a " + std::string(var_kind_name(it->second)) + ", not a dimension");
    }
    return name;
  }

  // A literal, a dimension variable, or a literal multiple of one (`2*g`).
  IntAtom summand() {
    if (peek().kind != Token::number) return IntAtom::variable(dim_var());
    int64_t v = take_number();
    if (!is("*")) return IntAtom::literal(v);
    expect("*");
    if (v == 0) fail("a multiple's factor must not be 0");
    return IntAtom::variable(dim_var(), v);
  }

  // A dimension: summands added or taken away (`q+r`, `p-q`, `2*g`); a
  // literal alone must be positive.
  IntAtom dim_atom() {
    IntAtom atom = summand();
    for (;;) {
      if (is("+") || is("-")) {
        const int64_t sign = is("+") ? 1 : -1;
        ++pos_;
        atom = atom.plus(summand(), sign);
      } else if (peek().kind == Token::number && peek().text[0] == '-') {
        atom = atom.plus(summand());  // `p-1` is read as p and the number -1
      } else {
        break;
      }
    }
    if (atom.is_literal() && atom.value < 1) fail("a dimension must be positive");
    return atom;
  }

  std::vector<IntAtom> dim_list() {
    expect("[");
    std::vector<IntAtom> dims;
    while (!is("]")) {
      if (!dims.empty()) expect(",");
      dims.push_back(dim_atom());
    }
    expect("]");
    if (dims.size() > static_cast<size_t>(kMaxRank)) fail("more than 6 dimensions");
    return dims;
  }

  void parse_binder(Axiom& ax) {
    std::string name = take_name("a variable");
    expect(":");
    if (is("[")) {
      if (vars_.count(name) || tensors_.count(name)) fail("variable " + name + " is bound twice");
      tensors_.insert(name);
      ax.tensors.push_back({name, dim_list()});
      tensor_ranks_[name] = static_cast<int>(ax.tensors.back().shape.size());
      return;
    }
    std::string kind = take_name("a variable kind");
    auto it = std::find(std::begin(kKindNames), std::end(kKindNames), kind);
    if (it == std::end(kKindNames))
      fail("unknown variable kind '" + kind + "' (dim, ksize, stride, padding, activation, axis, kernel)");
    bind(name, static_cast<VarKind>(it - std::begin(kKindNames)));
  }

  // The integers of one parameter, in param_ints order.
  std::vector<IntAtom> param_value(OpType op, Param param) {
    auto var_of = [&](VarKind want) -> std::optional<std::string> {
      if (peek().kind != Token::name) return std::nullopt;
      auto it = vars_.find(peek().text);
      if (it == vars_.end()) return std::nullopt;
      if (it->second != want)
        fail(peek().text + " is a " + std::string(var_kind_name(it->second)) + ", not a " +
             std::string(var_kind_name(want)));
      return tokens_[pos_++].text;
    };
    auto pair = [&](VarKind kind) -> std::vector<IntAtom> {
      if (auto v = var_of(kind)) return {IntAtom::variable(*v + ".h"), IntAtom::variable(*v + ".w")};
      if (is("[")) {
        auto dims = dim_list();
        if (dims.size() != 2) fail(std::string(param_name(param)) + " takes 2 values");
        return dims;
      }
      int64_t v = take_number();
      return {IntAtom::literal(v), IntAtom::literal(v)};
    };
    auto choice = [&](VarKind kind, std::string_view a, std::string_view b) -> std::vector<IntAtom> {
      if (auto v = var_of(kind)) return {IntAtom::variable(*v)};
      std::string word = take_name(std::string(a) + " or " + std::string(b));
      if (word != a && word != b)
        fail("expected " + std::string(a) + " or " + std::string(b) + ", got " + word);
      return {IntAtom::literal(word == a ? 0 : 1)};
    };
    switch (param) {
      case Param::shape:
        return dim_list();
      case Param::perm: {
        expect("[");
        OpParams p;
        for (int i = 0; !is("]"); ++i) {
          if (i) expect(",");
          if (i == kMaxRank) fail("perm has more than 6 entries");
          const int64_t axis = take_number();
          if (axis >= kMaxRank) fail("perm entry " + std::to_string(axis) + " is out of range (0 to 5)");
          p.perm[i] = static_cast<int8_t>(axis);
        }
        expect("]");
        return {IntAtom::literal(param_ints(OpType::transpose, p)[0])};
      }
      case Param::kernel:
        return pair(VarKind::kernel);
      case Param::stride:
        return pair(VarKind::stride);
      case Param::padding:
        return choice(VarKind::padding, "same", "valid");
      case Param::activation:
        if (auto v = var_of(VarKind::activation)) return {IntAtom::variable(*v)};
        if (std::string word = take_name("an activation"); auto a = activation_from_name(word))
          return {IntAtom::literal(static_cast<int64_t>(*a))};
        else
          fail("expected an activation (none, relu, sigmoid, silu, hardswish, gelu, relu6), got " + word);
      case Param::axis:
        if (auto v = var_of(VarKind::axis)) return {IntAtom::variable(*v)};
        return {IntAtom::literal(take_number())};
      case Param::groups:
      case Param::into:
        return {dim_atom()};
      case Param::epsilon:
        fail(std::string(op_name(op)) + ": epsilon cannot be written in axioms");
      case Param::pads:
      case Param::value:
      case Param::limits:
      case Param::range:
      case Param::axes:  // only imported models' operators take these, and they have no axioms
        fail(std::string(op_name(op)) + ": " + std::string(param_name(param)) +
             " cannot be written in axioms");
    }
    fail("unknown parameter");
  }

  // Parameters as written, then defaults for the rest, in param_ints order.
  std::vector<IntAtom> parse_params(OpType op) {
    std::map<Param, std::vector<IntAtom>> given;
    std::optional<IntAtom> groups;
    std::optional<std::vector<IntAtom>> parts;
    if (is("[")) {
      expect("[");
      for (bool first = true; !is("]"); first = false) {
        if (!first) expect(",");
        std::string key = take_name("a parameter name");
        if (key == "groups" && has_groups(op)) {
          if (groups) fail("parameter groups given twice");
          expect("=");
          groups = dim_atom();
          continue;
        }
        if (key == "part" && has_part_size(op)) {
          if (parts) fail("parameter part given twice");
          expect("=");
          parts = part_list();
          continue;
        }
        std::optional<Param> param;
        for (int i = 0; i < kNumParams; ++i)
          if (param_name(static_cast<Param>(i)) == key) param = static_cast<Param>(i);
        if (!param || !op_info(op).takes(*param))
          fail(std::string(op_name(op)) + " takes no parameter '" + key + "'");
        if (given.count(*param)) fail("parameter " + key + " given twice");
        expect("=");
        given[*param] = param_value(op, *param);
      }
      expect("]");
    }
    const std::vector<int64_t> defaults = param_ints(op, with_explicit_perm(OpParams{}, 2));
    std::vector<IntAtom> atoms;
    size_t default_pos = 0;
    for (int i = 0; i < kNumParams; ++i) {
      Param param = static_cast<Param>(i);
      if (!op_info(op).takes(param)) continue;
      size_t width = param == Param::shape ? 0 : (param == Param::kernel || param == Param::stride) ? 2 : 1;
      auto it = given.find(param);
      if (it != given.end()) {
        atoms.insert(atoms.end(), it->second.begin(), it->second.end());
      } else if (param == Param::perm) {
        fail(std::string(op_name(op)) + " needs its perm parameter: it says the rank the axiom holds at");
      } else if (param == Param::shape || param == Param::kernel || param == Param::axis ||
                 param == Param::groups || param == Param::into) {
        fail(std::string(op_name(op)) + " needs its " + std::string(param_name(param)) + " parameter");
      } else {
        for (size_t k = 0; k < width; ++k) atoms.push_back(IntAtom::literal(defaults[default_pos + k]));
      }
      default_pos += width;
    }
    // Unless written, a convolution property is stated for ungrouped convolutions only.
    if (has_groups(op)) atoms.push_back(groups.value_or(IntAtom::literal(1)));
    // The encoding knows where a concat's parts meet: an axiom must say it too.
    if (has_part_size(op)) {
      if (!parts)
        fail(std::string(op_name(op)) + " needs its part parameter (the size along its axis of " +
             (op == OpType::split ? "its output 0)" : "each input but the last)"));
      atoms.insert(atoms.end(), parts->begin(), parts->end());
    }
    return atoms;
  }

  // `part=e` (two inputs, or split) or `part=[e, f]` (one size per input but the last).
  std::vector<IntAtom> part_list() {
    if (!is("[")) return {dim_atom()};
    expect("[");
    std::vector<IntAtom> parts;
    while (!is("]")) {
      if (!parts.empty()) expect(",");
      parts.push_back(dim_atom());
    }
    expect("]");
    return parts;
  }

  // Each nested term is one recursive call: the depth is bounded so that a deep
  // file cannot overflow the stack (here or in whatever walks the terms later).
  Term parse_term() {
    if (depth_ == kMaxNestingDepth) throw Error(where_ + ": " + nesting_error(peek().line));
    ++depth_;
    Term t = parse_term_body();
    --depth_;
    return t;
  }

  Term parse_term_body() {
    std::string name = take_name("a tensor or an operator");
    Term t;
    if (tensors_.count(name)) {
      t.var = name;
      t.rank = tensor_ranks_[name];
      used_.insert(name);
      return t;
    }
    if (vars_.count(name)) fail(name + " is a " + std::string(var_kind_name(vars_[name])) + ", not a tensor");
    std::optional<OpType> op = op_from_name(name);
    if (!op && (name == "split0" || name == "split1")) {
      op = OpType::split;
      t.port = name == "split1";
    }
    if (!op || *op == OpType::input || *op == OpType::weight || *op == OpType::opaque)
      fail("unknown operator or unbound tensor '" + name + "'");
    if (*op == OpType::split && name == "split") fail("write split0 or split1 for split's outputs");
    t.op = *op;
    size_t before = pos_;
    t.params = parse_params(*op);
    for (size_t i = before; i < pos_; ++i)
      if (tokens_[i].kind == Token::name && vars_.count(tokens_[i].text)) used_.insert(tokens_[i].text);
    if (is("(")) {
      expect("(");
      while (!is(")")) {
        if (!t.args.empty()) expect(",");
        t.args.push_back(parse_term());
      }
      expect(")");
    }
    const OpInfo& info = op_info(*op);
    int n = static_cast<int>(t.args.size());
    if (n < info.min_inputs || n > info.max_inputs)
      fail(name + " takes " + std::to_string(info.min_inputs) +
           (info.max_inputs > info.min_inputs ? " to " + std::to_string(info.max_inputs) : "") +
           " inputs, given " + std::to_string(n));
    if (has_part_size(*op)) {
      const int parts = static_cast<int>(t.params.size()) - num_param_ints(*op, 0);
      if (parts != num_part_sizes(*op, n))
        fail(name + " with " + std::to_string(n) + " inputs takes " + std::to_string(num_part_sizes(*op, n)) +
             " part sizes, given " + std::to_string(parts));
    }
    t.rank = term_rank(t);
    return t;
  }

  // The rank of a term's value: a shape parameter's length, else its inputs'
  // (the largest, for broadcasting). A transpose's permutation must have it.
  int term_rank(const Term& t) {
    if (op_info(t.op).takes(Param::shape)) return static_cast<int>(t.params.size()) - num_param_ints(t.op, 0);
    int rank = 0;
    for (const Term& arg : t.args) rank = std::max(rank, arg.rank);
    if (t.op == OpType::transpose) {
      int perm_rank = 0;
      for (int64_t code = t.params[0].value; code > 0; code /= 8) ++perm_rank;
      if (perm_rank != rank)
        fail("transpose's perm has " + std::to_string(perm_rank) + " entries, its input rank " +
             std::to_string(rank));
    }
    return rank;
  }

  void check_used(const Axiom& ax) {
    for (const TensorVar& tv : ax.tensors)
      if (!used_.count(tv.name)) fail("tensor " + tv.name + " is bound but not used");
    for (const ParamVar& v : ax.vars)
      if (v.kind != VarKind::dim && v.kind != VarKind::ksize && !used_.count(v.name))
        fail("variable " + v.name + " is bound but not used");
  }

  std::vector<Token> tokens_;
  std::string where_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::map<std::string, VarKind> vars_;
  std::set<std::string> tensors_;
  std::map<std::string, int> tensor_ranks_;
  std::set<std::string> declared_;
  std::set<std::string> used_;
};

bool starts_entry(std::string_view line) {
  return line.rfind("axiom", 0) == 0;
}

}  // namespace

IntAtom IntAtom::plus(const IntAtom& other, int64_t sign) const {
  IntAtom sum = *this;
  sum.value += sign * other.value;
  for (const Summand& s : other.vars) {
    auto it =
        std::find_if(sum.vars.begin(), sum.vars.end(), [&](const Summand& v) { return v.var == s.var; });
    if (it == sum.vars.end())
      sum.vars.push_back({sign * s.factor, s.var});
    else if ((it->factor += sign * s.factor) == 0)
      sum.vars.erase(it);
  }
  return sum;
}

std::string IntAtom::str() const {
  std::string s;
  for (const Summand& v : vars) {
    if (v.factor < 0)
      s += "-";
    else if (!s.empty())
      s += "+";
    const int64_t f = v.factor < 0 ? -v.factor : v.factor;
    s += (f == 1 ? "" : std::to_string(f) + "*") + v.var;
  }
  if (s.empty()) return std::to_string(value);
  if (value != 0) s += (value > 0 ? "+" : "") + std::to_string(value);
  return s;
}

std::string_view var_kind_name(VarKind k) {
  return kKindNames[static_cast<int>(k)];
}

std::set<OpType> Axiom::operators() const {
  std::set<OpType> ops;
  std::function<void(const Term&)> collect = [&](const Term& t) {
    if (t.is_var()) return;
    ops.insert(t.op);
    for (const Term& arg : t.args) collect(arg);
  };
  collect(lhs);
  collect(rhs);
  return ops;
}

bool Axiom::mentions(OpType op) const {
  return operators().count(op) > 0;
}

bool AxiomSet::mentions(OpType op) const {
  return std::any_of(axioms.begin(), axioms.end(), [&](const Axiom& a) { return a.mentions(op); });
}

std::vector<const Axiom*> AxiomSet::theory_for(const std::set<OpType>& rule_ops) const {
  std::set<OpType> left_out;  // operators whose `unless` axioms this proof uses
  for (const Axiom& a : axioms)
    if (a.unless && !rule_ops.count(*a.unless)) left_out.insert(*a.unless);
  std::vector<const Axiom*> theory;
  for (const Axiom& a : axioms) {
    if (a.unless && rule_ops.count(*a.unless)) continue;
    bool mentions_left_out =
        std::any_of(left_out.begin(), left_out.end(), [&](OpType op) { return a.mentions(op); });
    if (!mentions_left_out) theory.push_back(&a);
  }
  return theory;
}

void collect_vars(const Term& t, std::set<std::string>& names) {
  if (t.is_var()) names.insert(t.var);
  for (const IntAtom& a : t.params)
    for (const IntAtom::Summand& s : a.vars) names.insert(s.var);
  for (const Term& arg : t.args) collect_vars(arg, names);
}

bool has_arithmetic(const Term& t) {
  return std::any_of(t.params.begin(), t.params.end(), [](const IntAtom& a) { return a.is_arithmetic(); }) ||
         std::any_of(t.args.begin(), t.args.end(), has_arithmetic);
}

namespace {

// The largest operator subterms of t without arithmetic, in order.
void arithmetic_free_subterms(const Term& t, std::vector<const Term*>& out) {
  if (t.is_var()) return;
  if (!has_arithmetic(t)) {
    out.push_back(&t);
    return;
  }
  for (const Term& arg : t.args) arithmetic_free_subterms(arg, out);
}

}  // namespace

std::vector<const Term*> axiom_trigger(const Axiom& ax) {
  const bool left = has_arithmetic(ax.lhs), right = has_arithmetic(ax.rhs);
  if (!left && !right) return {};
  if (left && right)
    throw Error("axiom " + ax.name +
                " has arithmetic on both sides: state it as two axioms, each with one side without, "
                "which triggers it");
  const Term& plain = left ? ax.rhs : ax.lhs;
  std::set<std::string> all, covered;
  collect_vars(ax.lhs, all);
  collect_vars(ax.rhs, all);
  std::vector<const Term*> trigger, candidates;
  if (!plain.is_var()) {
    trigger.push_back(&plain);
    collect_vars(plain, covered);
  }
  arithmetic_free_subterms(left ? ax.lhs : ax.rhs, candidates);
  for (const Term* c : candidates) {
    std::set<std::string> vars;
    collect_vars(*c, vars);
    if (std::includes(covered.begin(), covered.end(), vars.begin(), vars.end())) continue;
    trigger.push_back(c);
    covered.insert(vars.begin(), vars.end());
  }
  if (covered != all)
    throw Error("axiom " + ax.name +
                ": no terms without arithmetic read every variable, so nothing can trigger it");
  return trigger;
}

AxiomSet parse_axioms(std::string_view text, std::string_view source_name) {
  AxiomSet set;
  set.source = source_name;
  std::string comment, entry;
  int line_no = 0, entry_line = 0;
  auto finish = [&] {
    if (entry.empty()) return;
    Axiom ax = EntryParser(tokenize(entry, entry_line, set.source), set.source).parse();
    ax.comment = comment;
    if (ax.comment.empty())
      throw Error(set.source + ":" + std::to_string(entry_line) + ": axiom " + ax.name +
                  " has no comment saying what it states");
    for (const Axiom& other : set.axioms)
      if (other.name == ax.name)
        throw Error(set.source + ":" + std::to_string(entry_line) + ": axiom " + ax.name +
                    " is defined twice");
    set.axioms.push_back(std::move(ax));
    entry.clear();
    comment.clear();
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (!entry.empty() && !blank && (line[0] == ' ' || line[0] == '\t')) {
      entry += "\n";
      entry += line;
      continue;
    }
    finish();
    if (blank) {
      comment.clear();
    } else if (line[0] == '#') {
      std::string_view c = line.substr(1);
      if (!c.empty() && c[0] == ' ') c.remove_prefix(1);
      comment += (comment.empty() ? "" : " ") + std::string(c);
    } else if (starts_entry(line)) {
      entry = line;
      entry_line = line_no;
    } else {
      throw Error(set.source + ":" + std::to_string(line_no) +
                  ": expected an axiom, a comment or a blank line");
    }
  }
  finish();
  if (set.axioms.empty()) throw Error(set.source + ": no axioms");
  return set;
}

AxiomSet read_axiom_file(const std::string& path) {
  return parse_axioms(json::read_text_file(path), path);
}

std::string term_str(const Term& t) {
  if (t.is_var()) return t.var;
  std::string s(op_name(t.op));
  if (t.op == OpType::split) s = "split" + std::to_string(t.port);
  if (!t.params.empty()) {
    s += "[";
    for (size_t i = 0; i < t.params.size(); ++i) s += (i ? "," : "") + t.params[i].str();
    s += "]";
  }
  if (!t.args.empty()) {
    s += "(";
    for (size_t i = 0; i < t.args.size(); ++i) s += (i ? ", " : "") + term_str(t.args[i]);
    s += ")";
  }
  return s;
}

}  // namespace superopt::verify
