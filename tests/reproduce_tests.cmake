# The papers' experiments (scripts/reproduce/*.sh --quick): each writes its CSV
# with the expected rows and a PNG; plus `optimize --exhaustive`, which the
# MetaFlow Table 3 script compares with backtracking. The optimizing scripts
# use the search tests' 3-operator candidate database (search_rules fixture).
set(reproduce_dir ${CMAKE_CURRENT_BINARY_DIR}/reproduce)
set(reproduce_check "/usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/reproduce_check.py")
set(reproduce_scripts ${PROJECT_SOURCE_DIR}/scripts/reproduce)

# reproduce_test(NAME ROWS "COLUMN ..." [ARGS]): runs scripts/reproduce/NAME.sh --quick ARGS into its
# own folder, then checks NAME.csv (ROWS rows with the COLUMNs) and NAME.png.
function(reproduce_test name rows columns)
  set(out ${reproduce_dir}/${name})
  add_test(NAME reproduce_${name}
           COMMAND sh -c "rm -rf \"$2\" && bash \"$0\" --quick --superopt \"$1\" --out \"$2\" $3 && ${reproduce_check} \"$2/${name}.csv\" ${rows} \"$2/${name}.png\" ${columns}"
                   ${reproduce_scripts}/${name}.sh ${superopt_bin} ${out} "${ARGN}")
  set_tests_properties(reproduce_${name} PROPERTIES LABELS reproduce TIMEOUT 600
                       PASS_REGULAR_EXPRESSION "reproduce_check: ok" FAIL_REGULAR_EXPRESSION "FAIL:")
endfunction()

set(reproduce_rules "--rules ${search_taso3} --allow-unverified")
reproduce_test(pruning-table 3 "source max_ops initial after_input_renaming after_common_subgraphs after_minimization")
reproduce_test(rule-size 6 "model max_ops cost_after_ms speedup check" ${reproduce_rules})
reproduce_test(search-vs-exhaustive 2 "model exhaustive_s backtracking_s same_cost same_graph" ${reproduce_rules})
reproduce_test(alpha 6 "model alpha cost_after_ms search_seconds" ${reproduce_rules})
reproduce_test(ocggs-table3 12 "model search cost_ms search_s explored peak_mb finished check" ${reproduce_rules})
reproduce_test(ocggs-scaling 20 "figure model blocks max_length search cost_ms search_s peak_mb finished check"
               ${reproduce_rules})
# TASO Figure 12 on the CPU: the input and four strategies on bert, measured.
reproduce_test(layout 5 "model strategy graph layouts ms speedup" ${reproduce_rules})
set_tests_properties(reproduce_rule-size reproduce_search-vs-exhaustive reproduce_alpha reproduce_ocggs-table3
                     reproduce_ocggs-scaling reproduce_layout
                     PROPERTIES FIXTURES_REQUIRED search_rules)

# Exhaustive search on two RNN gates: it reports itself, and finds a graph at
# least as cheap as backtracking's.
add_test(NAME cli_optimize_exhaustive_not_worse
         COMMAND sh -c "\"$0\" optimize \"$1\" --rules \"$2\" --allow-unverified --exhaustive --time-limit 5 --json > ex.json && \"$0\" optimize \"$1\" --rules \"$2\" --allow-unverified --json > bt.json && /usr/bin/python3 -c \"$3\""
                 ${superopt_bin} ${CMAKE_CURRENT_SOURCE_DIR}/data/search/rnn_gates.json ${search_taso3} [=[
import json
ex, bt = json.load(open('ex.json')), json.load(open('bt.json'))
assert ex['exhaustive'] and not bt['exhaustive'], (ex['exhaustive'], bt['exhaustive'])
assert ex['cost_after'] <= bt['cost_after'] * (1 + 1e-12), (ex['cost_after'], bt['cost_after'])
assert ex['cost_after'] < ex['cost_before'] and ex['check']['passed']
assert ex['graphs_explored'] >= bt['graphs_explored'], (ex['graphs_explored'], bt['graphs_explored'])
print('exhaustive: ok, finished:', ex['finished'], 'explored', ex['graphs_explored'], 'vs', bt['graphs_explored'])
]=]
         WORKING_DIRECTORY ${reproduce_dir})
file(MAKE_DIRECTORY ${reproduce_dir})
set_tests_properties(cli_optimize_exhaustive_not_worse PROPERTIES FIXTURES_REQUIRED search_rules TIMEOUT 120
                     PASS_REGULAR_EXPRESSION "exhaustive: ok")

# --opset names the databases (NAME-N.h5) and the generator's operator set; a
# missing or malformed file is one line and exit 2, before anything runs.
add_test(NAME reproduce_rule-size_bad_opset
         COMMAND ${superopt_expect} --one-line 2 "no opset file '/nonexistent.json'" --
                 bash ${reproduce_scripts}/rule-size.sh --superopt ${superopt_bin} --opset /nonexistent.json
                 --out ${reproduce_dir}/bad-opset)
add_test(NAME reproduce_rule-size_opset_not_json
         COMMAND ${superopt_expect} --one-line 2 "is not an operator set file" --
                 bash ${reproduce_scripts}/rule-size.sh --superopt ${superopt_bin}
                 --opset ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh --out ${reproduce_dir}/bad-opset)
set_tests_properties(reproduce_rule-size_bad_opset reproduce_rule-size_opset_not_json
                     PROPERTIES LABELS reproduce TIMEOUT 60 FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")

# --opset with the shipped matmul-2d databases (data/rules/matmul-2d-N.h5):
# proven rules of that set, sizes 2 and 3, each run's JSON kept beside the CSV.
set(rule_size_opset_out ${reproduce_dir}/rule-size-opset)
add_test(NAME reproduce_rule-size_opset
         COMMAND sh -c "rm -rf \"$2\" && bash \"$0\" --quick --superopt \"$1\" --out \"$2\" --opset \"$3\" --sizes \"2 3\" --models sru && ${reproduce_check} \"$2/rule-size.csv\" 2 \"$2/rule-size.png\" model max_ops speedup check && { test -f \"$2/rule-size-runs/sru-3.json\" && grep -q '^sru,3,verified,1260,' \"$2/rule-size.csv\" || echo 'FAIL: no run JSON or not the 1,260 usable rule directions of matmul-2d-3.h5'; }"
                 ${reproduce_scripts}/rule-size.sh ${superopt_bin} ${rule_size_opset_out}
                 ${PROJECT_SOURCE_DIR}/data/opsets/matmul-2d.json)
set_tests_properties(reproduce_rule-size_opset PROPERTIES LABELS reproduce TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "reproduce_check: ok" FAIL_REGULAR_EXPRESSION "FAIL:")
