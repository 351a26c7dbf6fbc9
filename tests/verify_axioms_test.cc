// Axiom validation on small symbolic tensors, the redundancy check, and the
// axiom parser's errors.
#include <catch2/catch.hpp>

#include "runtime/core/error.h"
#include "verify/axiom_redundancy.h"
#include "verify/axiom_set.h"
#include "verify/axiom_validation.h"

using namespace superopt;
using namespace superopt::verify;
using Catch::Contains;

namespace {

const std::string kTasoAxioms = SUPEROPT_SOURCE_DIR "/verify/axioms/taso.ax";

AxiomValidation validate(const Axiom& ax, int max_dim, int slice = 0, int num_slices = 1) {
  z3::context ctx;
  return validate_axiom(ctx, ax, {max_dim, 10000, slice, num_slices});
}

Axiom one_axiom(const std::string& text) {
  return parse_axioms(text, "test.ax").axioms.at(0);
}

}  // namespace

TEST_CASE("every axiom of taso.ax passes small-tensor validation", "[verify_axioms]") {
  const AxiomSet set = read_axiom_file(kTasoAxioms);
  REQUIRE(set.axioms.size() >= 43);
  for (const Axiom& ax : set.axioms) {
    DYNAMIC_SECTION(ax.name) {
      AxiomValidation v = validate(ax, 2);
      INFO(v.note);
      CHECK(v.result == AxiomResult::passed);
      CHECK(v.obligations > 0);
    }
  }
}

TEST_CASE("a convolution with relu is not linear in its input: caught with its shapes", "[verify_axioms]") {
  Axiom ax = one_axiom(
      "# wrong\n"
      "axiom conv_relu_linear: forall x:[n,e,h,m] y:[n,e,h,m] z:[o,e,kh,kw] kh:ksize kw:ksize.\n"
      "  conv2d[activation=relu](ewadd(x, y), z) = ewadd(conv2d[activation=relu](x, z), "
      "conv2d[activation=relu](y, z))\n");
  AxiomValidation v = validate(ax, 2);
  CHECK(v.result == AxiomResult::failed);
  CHECK(v.obligations == 1);  // stops at the first failure
  CHECK_THAT(v.note,
             Contains("x=1x1x1x1") && Contains("z=1x1x1x1") && Contains("output 0 element 0 differs"));
  // The right statement, with relu outside and no activation inside, passes.
  Axiom right = one_axiom(
      "# right\n"
      "axiom conv_linear: forall x:[n,e,h,m] y:[n,e,h,m] z:[o,e,kh,kw] kh:ksize kw:ksize.\n"
      "  conv2d(ewadd(x, y), z) = ewadd(conv2d(x, z), conv2d(y, z))\n");
  CHECK(validate(right, 2).result == AxiomResult::passed);
}

TEST_CASE("relu does not distribute over ewadd", "[verify_axioms]") {
  AxiomValidation v =
      validate(one_axiom("# wrong\naxiom relu_ewadd: forall x:[a,b] y:[a,b]. relu(ewadd(x, y)) = "
                         "ewadd(relu(x), relu(y))\n"),
               3);
  CHECK(v.result == AxiomResult::failed);
  CHECK_THAT(v.note, Contains("a=1 b=1 x=1x1 y=1x1"));
}

TEST_CASE("concatenations across different axes do not reassociate", "[verify_axioms]") {
  AxiomValidation v = validate(one_axiom("# wrong: the blocks y and z trade places\n"
                                         "axiom concat_swap: forall x:[a,a] y:[a,a] z:[a,a] w:[a,a].\n"
                                         "  concat[axis=0, part=a](concat[axis=1, part=a](x, y), "
                                         "concat[axis=1, part=a](z, w)) = concat[axis=1, part=a]("
                                         "concat[axis=0, part=a](x, y), concat[axis=0, part=a](z, w))\n"),
                               3);
  CHECK(v.result == AxiomResult::failed);
  CHECK_THAT(v.note, Contains("x=1x1 y=1x1 z=1x1 w=1x1: output 0 element 1 differs"));
}

TEST_CASE("a failure is reported at the shapes that break the axiom, not before", "[verify_axioms]") {
  // Transposing one factor only is right for 1x1 matrices and wrong from 2x2 on.
  Axiom ax = one_axiom(
      "# wrong\naxiom transpose_one_factor: forall x:[a,a] y:[a,a]. transpose[perm=[1,0]](ewmul(x, y)) = "
      "ewmul(transpose[perm=[1,0]](x), y)\n");
  AxiomValidation whole = validate(ax, 3);
  CHECK(whole.result == AxiomResult::failed);
  CHECK(whole.failed_at == 1);
  CHECK(whole.obligations == 2);
  CHECK_THAT(whole.note, Contains("at a=2 x=2x2 y=2x2: output 0 element 1 differs"));

  SECTION("ranks sharing the assignments find the same first failure") {
    std::vector<AxiomValidation> parts;
    for (int slice = 0; slice < 3; ++slice) parts.push_back(validate(ax, 3, slice, 3));
    AxiomValidation merged = merge_slices(parts);
    CHECK(merged.result == AxiomResult::failed);
    CHECK(merged.failed_at == whole.failed_at);
    CHECK(merged.note == whole.note);
  }
}

TEST_CASE("slices of a passing axiom add up to the whole", "[verify_axioms]") {
  const AxiomSet set = read_axiom_file(kTasoAxioms);
  for (const Axiom& ax : set.axioms) {
    if (ax.name != "conv_cpool") continue;
    AxiomValidation whole = validate(ax, 2);
    std::vector<AxiomValidation> parts;
    for (int slice = 0; slice < 2; ++slice) parts.push_back(validate(ax, 2, slice, 2));
    AxiomValidation merged = merge_slices(parts);
    CHECK(merged.result == AxiomResult::passed);
    CHECK(merged.obligations == whole.obligations);
    CHECK(merged.skipped == whole.skipped);
    CHECK(whole.obligations + whole.skipped == num_assignments(ax, 2));
    CHECK(whole.skipped > 0);  // kernels larger than the input with valid padding
  }
}

TEST_CASE("an axiom whose shapes never fit fails: it was never checked", "[verify_axioms]") {
  AxiomValidation v = validate(
      one_axiom(
          "# shapes never fit: concat on axis 0 after concat on axis 1 of equal squares\n"
          "axiom never: forall x:[a,a] y:[a,a] z:[a,a]. concat[axis=0, part=a](concat[axis=1, part=a](x, "
          "y), z) = concat[axis=1, part=a](x, concat[axis=0, part=a](y, z))\n"),
      3);
  CHECK(v.result == AxiomResult::failed);
  CHECK(v.obligations == 0);
  CHECK_THAT(v.note, Contains("no assignment applies"));
}

TEST_CASE("a part size is checked against the concat's actual first input", "[verify_axioms]") {
  // Right: the free q applies only where it is x's size along g.
  AxiomValidation right =
      validate(one_axiom("# concat and relu commute\n"
                         "axiom concat_relu: forall g:axis q:dim x:[a,b] y:[a,d].\n"
                         "  concat[axis=g, part=q](relu(x), relu(y)) = relu(concat[axis=g, part=q](x, y))\n"),
               2);
  CHECK(right.result == AxiomResult::passed);
  CHECK(right.obligations == 12);  // of 32: axis 0 where b = d and q = a (4), axis 1 where q = b (8)
  CHECK(right.skipped > 0);
  // Mis-annotated: the outer concat of x|y then z stated at x's size never
  // fits, so every assignment is skipped, which fails.
  AxiomValidation wrong = validate(one_axiom("# concat_assoc with the outer part wrong\n"
                                             "axiom assoc: forall g:axis q:dim x:[a,b] y:[a,d] z:[a,e].\n"
                                             "  concat[axis=g, part=q](concat[axis=g, part=q](x, y), z) = "
                                             "concat[axis=g, part=q](x, concat[axis=g, part=q](y, z))\n"),
                                   3);
  CHECK(wrong.result == AxiomResult::failed);
  CHECK(wrong.obligations == 0);
  CHECK_THAT(wrong.note, Contains("no assignment applies"));
  // A split's part is the size of its output 0.
  AxiomValidation split = validate(one_axiom("# split0 undoes concat\n"
                                             "axiom s: forall q:dim x:[a,b] y:[a,d].\n"
                                             "  split0[axis=1, part=q](concat[axis=1, part=b](x, y)) = x\n"),
                                   2);
  CHECK(split.result == AxiomResult::passed);
  CHECK(split.obligations == 8);  // q = b: a, b, d in 1..2
}

TEST_CASE("part sizes are linear forms: parsed, printed, and triggered by the side without them",
          "[verify_axioms]") {
  const Axiom ax = one_axiom(
      "# reassociated\n"
      "axiom assoc: forall g:axis p:dim q:dim x:[a,b] y:[a,d] z:[a,e].\n"
      "  concat[axis=g, part=p](concat[axis=g, part=q](x, y), z) = concat[axis=g, part=q](x, concat[axis=g, "
      "part=p-q](y, z))\n");
  CHECK(term_str(ax.rhs) == "concat[g,q](x, concat[g,p-q](y, z))");
  CHECK(has_arithmetic(ax.rhs));
  CHECK_FALSE(has_arithmetic(ax.lhs));
  const std::vector<const Term*> trigger = axiom_trigger(ax);
  REQUIRE(trigger.size() == 1);
  CHECK(trigger[0] == &ax.lhs);
  CHECK(validate(ax, 2).result == AxiomResult::passed);
  const Axiom sums = one_axiom(
      "# a sum, a literal and a multiple\n"
      "axiom sums: forall q:dim r:dim x:[a,b] y:[a,d] z:[a,e].\n"
      "  concat[axis=1, part=q](x, concat[axis=1, part=r](y, z)) = concat[axis=1, part=q+r](concat[axis=1, "
      "part=q](x, y), z)\n");
  CHECK(term_str(sums.rhs) == "concat[1,q+r](concat[1,q](x, y), z)");
  CHECK(validate(sums, 2).result == AxiomResult::passed);
  IntAtom atom = IntAtom::variable("p").plus(IntAtom::variable("q", 2), -1).plus(IntAtom::literal(1));
  CHECK(atom.str() == "p-2*q+1");
  CHECK(atom.is_arithmetic());
  CHECK(atom.plus(IntAtom::variable("q", 2)).str() == "p+1");
  CHECK(IntAtom::variable("g").is_plain_var());
}

TEST_CASE("a multi-pattern binds what the side without arithmetic does not read", "[verify_axioms]") {
  // The right side does not read e (x's channels), which only the left's concat says.
  const AxiomSet set = read_axiom_file(kTasoAxioms);
  for (const Axiom& ax : set.axioms) {
    if (ax.name != "conv_groups_double_concat") continue;
    const std::vector<const Term*> trigger = axiom_trigger(ax);
    REQUIRE(trigger.size() == 2);
    CHECK(trigger[0] == &ax.rhs);
    CHECK(term_str(*trigger[1]) == "concat[1,e](x, z)");
  }
}

TEST_CASE("a group count written 2*g doubles the variable: wrong doublings are caught", "[verify_axioms]") {
  const Axiom ax = one_axiom(
      "# wrong: 2g groups over two copies of a g-group input read other blocks for g > 1\n"
      "axiom double_repeated: forall g:dim x:[n,e,h,m] y:[o,d,kh,kw] kh:ksize kw:ksize.\n"
      "    conv2d[groups=2*g](concat[axis=1, part=e](x, x), y) = conv2d[groups=g](x, y)\n");
  CHECK(term_str(ax.lhs).find("2*g") != std::string::npos);
  // Groups 4 need 4 output channels: at sizes up to 3 only g = 1 applies, where it holds.
  CHECK(validate(ax, 3).result == AxiomResult::passed);
  AxiomValidation v = validate(ax, 4);
  CHECK(v.result == AxiomResult::failed);
  CHECK_THAT(v.note, Contains("g=2"));
}

TEST_CASE("an axiom with 2*g is triggered by its other side, whole: no matching loop", "[verify_axioms]") {
  // merge_groups_double_concat triggered by merge_groups[g, f](x) alone would
  // match its own instance merge_groups[2g, 2f](concat(x, x)) without end, and
  // the redundancy check of the other merge_groups axioms ran out of its rlimit.
  const AxiomSet set = read_axiom_file(kTasoAxioms);
  z3::context ctx;
  for (size_t i = 0; i < set.axioms.size(); ++i) {
    if (set.axioms[i].name.rfind("merge_groups", 0) != 0) continue;
    INFO(set.axioms[i].name);
    CHECK(check_redundancy(ctx, set, i, 10000, 200000).result == Redundancy::independent);
  }
}

TEST_CASE("the redundancy check flags an axiom stated twice", "[verify_axioms]") {
  AxiomSet set = parse_axioms(
      "# ewadd is commutative.\n"
      "axiom ewadd_comm: forall x:[a,b] y:[a,b]. ewadd(x, y) = ewadd(y, x)\n\n"
      "# relu and transpose commute.\n"
      "axiom relu_transpose: forall x:[a,b]. relu(transpose[perm=[1,0]](x)) = "
      "transpose[perm=[1,0]](relu(x))\n\n"
      "# ewadd is commutative, under another name.\n"
      "axiom add_comm: forall p:[a,b] q:[a,b]. ewadd(q, p) = ewadd(p, q)\n",
      "test.ax");
  z3::context ctx;
  RedundancyCheck first = check_redundancy(ctx, set, 0, 10000, 200000);
  CHECK(first.result == Redundancy::redundant);
  CHECK(first.from == std::vector<std::string>{"add_comm"});
  CHECK(check_redundancy(ctx, set, 2, 10000, 200000).result == Redundancy::redundant);
  RedundancyCheck relu = check_redundancy(ctx, set, 1, 10000, 200000);
  CHECK(relu.result != Redundancy::redundant);
}

TEST_CASE("axiom files: errors name the file and line", "[verify_axioms]") {
  auto error_of = [](const std::string& text) {
    try {
      parse_axioms(text, "f.ax");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string ok = "# fine\naxiom ok: forall x:[a,b]. relu(x) = relu(x)\n\n";
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b]. frobnicate(x) = x\n"),
             Contains("f.ax:5: unknown operator or unbound tensor 'frobnicate'"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b]. relu(y) = x\n"),
             Contains("f.ax:5: unknown operator or unbound tensor 'y'"));
  CHECK_THAT(error_of(ok + "axiom a: forall x:[a,b]. relu(x) = x\n"),
             Contains("f.ax:4: axiom a has no comment"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b]. relu(x, x) = x\n"),
             Contains("f.ax:5: relu takes 1 inputs, given 2"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b] s:stride.\n  relu(x) =\n  frob(x)\n"),
             Contains("f.ax:7: unknown operator or unbound tensor 'frob'"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b] s:speed. relu(x) = x\n"),
             Contains("f.ax:5: unknown variable kind 'speed'"));
  CHECK_THAT(error_of(ok + "# again\naxiom ok: forall x:[a,b]. x = x\n"),
             Contains("f.ax:5: axiom ok is defined twice"));
  // A multiple is a literal times a dimension variable, nothing else.
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[2*3,b]. relu(x) = x\n"),
             Contains("f.ax:5: expected a dimension, got '3'"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall s:stride x:[2*s,b]. relu(x) = x\n"),
             Contains("f.ax:5: s is a stride, not a dimension"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a*2,b]. relu(x) = x\n"),
             Contains("f.ax:5: expected ',', got '*'"));
  // A concat or split must say where its parts meet, with as many sizes as it has cuts.
  CHECK(error_of(ok + "# c\naxiom a: forall x:[a,b] y:[a,d]. concat[axis=1](x, y) = x\n") ==
        "f.ax:5: concat needs its part parameter (the size along its axis of each input but the last)");
  CHECK(error_of(
            ok +
            "# c\naxiom a: forall x:[a,b] y:[a,d].\n  split0[axis=1](concat[axis=1, part=b](x, y)) = x\n") ==
        "f.ax:6: split needs its part parameter (the size along its axis of its output 0)");
  CHECK_THAT(
      error_of(ok + "# c\naxiom a: forall x:[a,b] y:[a,d] z:[a,e]. concat[axis=1, part=b](x, y, z) = x\n"),
      Contains("f.ax:5: concat with 3 inputs takes 2 part sizes, given 1"));
  CHECK_THAT(
      error_of(ok + "# c\naxiom a: forall x:[a,b] y:[a,d]. concat[axis=1, part=b, part=b](x, y) = x\n"),
      Contains("f.ax:5: parameter part given twice"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b]. relu[part=b](x) = x\n"),
             Contains("f.ax:5: relu takes no parameter 'part'"));
  // Z3 needs one side without arithmetic to trigger the axiom.
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall q:dim x:[a,b] y:[a,d]. concat[axis=1, part=q+1](x, y) = "
                           "concat[axis=1, part=q-1](x, y)\n"),
             Contains("f.ax:5: axiom a has arithmetic on both sides"));
  CHECK_THAT(error_of(ok + "# c\naxiom a: forall x:[a,b] y:[a,d]. concat[axis=1, part=b-b](x, y) = x\n"),
             Contains("f.ax:5: a dimension must be positive"));
}
