#!/usr/bin/env python3
# The tests the sanitizer build runs (scripts/sanitize-tests.sh): every test of
# `ctest --show-only=json-v1` (read on stdin) except those below, printed as
# ctest's -I list ("0,0,0,N,N,..."); with the argument `mpi` only the tests
# labelled mpi among them, with `other` the rest (the MPI tests run without
# leak checking: Open MPI's plugins keep memory by design, allocated inside
# MPI calls from modules unloaded before the check; sanitize-tests.sh).
# Left out, with why (each runs code the kept
# tests run too, at sizes that take minutes at -O1 under the sanitizers):
#  - labels slurm, torch, reproduce, gpu, python: a Slurm cluster, PyTorch, the
#    papers' experiments, a GPU, the Python extension (a module the interpreter
#    loads, which the sanitizers' runtime must be preloaded into);
#  - the search_rules fixture (TASO's operator set enumerated at 3 operators,
#    over 5 minutes here) and the 35 optimize tests that read its database;
#  - the tests named in HEAVY: the CPU reference and oneDNN on whole builtin
#    models, optimizing them with the shipped 10 MB database (160 s each here),
#    enumerations and verifications of hundreds of rules;
#  - tests of wall time (optimize_time_limit_holds: a 20,000-operator chain
#    within 15 s; optimize_check_time_limit and optimize_overflow_chain: the
#    check within --time-limit), which -O1 under the sanitizers does not measure;
#    optimize_search_memory, which optimizes a 600-operator chain with the
#    shipped database (search_tests covers the same code under the sanitizers);
#    cli_end_to_end_acceptance, whose search must rewrite within --time-limit 20
#    before the timings it checks (at -O1 under the sanitizers it did not);
#    cli_optimize_analytic_unchanged, which needs bert's and resnet50's searches
#    with the shipped database to finish within --time-limit 300 (340 s under
#    the sanitizers, and bert stopped at its input's cost);
#    eqsat_nasrnn_below_backtracking, whose rounds must reach their 30,000
#    e-nodes within its --eqsat-time-limit of 60 s (eqsat_cost_vs_backtracking
#    runs the same code on a small graph under the sanitizers);
#  - mpi_enumerate_bounded_memory (193 s here: an enumeration on 2 ranks
#    spilling under a memory bound; record_store_test's spilled runs and
#    mpi_enumerate_ranks_and_resume's exchange and resume stay in) and
#    gpu_rehearsal_cpu_quick (100 s: the GPU bundle's whole script on the CPU,
#    whose commands the CLI tests run one by one);
#  - readme_commands (75 s here: it checks that the README's commands run as
#    written, which the release build checks; 47 s of it are the README's
#    fire_bias and mbconv_silu optimize lines, the very commands of
#    cli_optimize_conv_bias_rules and cli_optimize_conv_activation_rules, and
#    its graph check/run/export lines the CLI tests run too);
#  - cli_optimize_conv_bias_rules, cli_optimize_conv_activation_without_rules
#    and cli_db_info_conv_activations (60 s here together): each reads shipped
#    databases that cli_optimize_conv_activation_rules, which stays in, reads
#    too (taso-3, conv-bias-3 and conv-activations-3.h5), and the search and
#    db-info code they run is the CLI tests' with small databases;
#  - likewise cli_optimize_shipped_rules (it reads all four shipped
#    databases), cli_optimize_linear_without_rules and cli_db_info_linear:
#    cli_optimize_linear_rules, which stays in, reads taso-3 and linear-3.h5.
# Run with the MPI tests, without the leak check: full_disk, whose small file
# size limit makes Open MPI's shared-memory setup fail inside MPI_Init and
# keep what its unloaded plugins allocated; and the tests labelled slurm and
# reproduce (only in --all), whose jobs and scripts start superopt under
# mpirun/srun (LeakSanitizer: 64 bytes from "<unknown module>" per rank).
# With a second argument --all nothing is left out (scripts/sanitize-tests.sh
# --all: the whole suite, still split into the two leak-check groups).
import json
import re
import sys

SKIPPED_LABELS = {"slurm", "torch", "reproduce", "gpu", "python"}
SKIPPED_FIXTURE = "search_rules"
HEAVY = re.compile(
    r"^(cli_model_run_|cli_run_cpu_check_|cli_optimize_shipped_rules_|enumerate_taso_rule_kinds$|cli_derive_and_check_proofs$|soundness_fresh|mpi_verify_ranks_and_resume$"
    r"|onnx_torch_|completeness: TASO's operator set at 2|completeness: the small operator set at 3"
    r"|verify_axioms:every axiom of taso\.ax passes small-tensor validation"
    r"|whole models agree with the CPU reference|the operator timer and the cpu cost model measure once"
    r"|optimize_time_limit_holds$|optimize_check_time_limit$|optimize_overflow_chain$|optimize_search_memory$|cli_end_to_end_acceptance$|cli_optimize_analytic_unchanged$|eqsat_nasrnn_below_backtracking$|mpi_enumerate_bounded_memory$|gpu_rehearsal_cpu_quick$|readme_commands$"
    r"|cli_optimize_conv_bias_rules$|cli_optimize_conv_activation_without_rules$|cli_db_info_conv_activations$"
    r"|cli_optimize_shipped_rules$|cli_optimize_linear_without_rules$|cli_db_info_linear$)")
NO_LEAK_CHECK = {"full_disk"}
NO_LEAK_CHECK_LABELS = {"mpi", "slurm", "reproduce"}

want_mpi = sys.argv[1] == "mpi"
everything = sys.argv[2:] == ["--all"]
kept = []
for number, test in enumerate(json.load(sys.stdin)["tests"], start=1):
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    labels = set(props.get("LABELS", []))
    leaks_unchecked = bool(NO_LEAK_CHECK_LABELS & labels) or test["name"] in NO_LEAK_CHECK
    if leaks_unchecked != want_mpi:
        continue
    if everything:
        kept.append(str(number))
        continue
    if SKIPPED_LABELS & labels:
        continue
    if SKIPPED_FIXTURE in props.get("FIXTURES_REQUIRED", []) or SKIPPED_FIXTURE in props.get("FIXTURES_SETUP", []):
        continue
    if HEAVY.search(test["name"]):
        continue
    kept.append(str(number))
print("0,0,0," + ",".join(kept))
