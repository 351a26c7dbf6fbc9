# ONNX models (issue 14): import and export unit tests, every malformed ONNX file
# through the command line (one line, exit 2, nothing written), the exported
# models through onnx.checker, and (label onnx) small torchvision models and a
# small TransformerEncoder compared with PyTorch in float64 after import and
# after optimizing with taso-3. Needs python3-onnx and python3-torchvision.
add_executable(onnx_tests imported_ops_test.cc onnx_import_test.cc onnx_export_test.cc)
target_link_libraries(onnx_tests PRIVATE superopt_runtime Catch2::Catch2WithMain)
target_compile_definitions(onnx_tests PRIVATE SUPEROPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
catch_discover_tests(onnx_tests)

set(onnx_malformed
  onnx_truncated              "not an ONNX model \\(the protobuf data is truncated or malformed\\)"
  onnx_random_bytes           "not an ONNX model"
  onnx_cycle                  "the graph has a cycle through node"
  onnx_unsupported_op         "unsupported operator 'Hardmax' \\(node 'hm', opset 13\\)"
  onnx_dynamic_input          "input 'x' has a dynamic dimension 'batch' \\(give --input-shape x=DIMS"
  onnx_initializer_size       "tensor 'w': 20 bytes of data for 36 bytes of shape"
  onnx_missing_external_data  "external data file '.*onnx_missing_weights\\.bin' cannot be opened"
  onnx_huge_external_data     "external data file '.*onnx_huge_weights\\.bin' is shorter than its tensor \\(4000000000000 bytes at offset 0\\)"
  onnx_opset10                "opset 10 is not supported \\(opsets 11 to 17 are\\)"
  # What ONNX calls invalid (issue 37, item 6): each was imported with exit 0.
  onnx_duplicate_output       "two nodes write 'y': 'relu' \\(Relu\\) and 'sig' \\(Sigmoid\\)$"
  onnx_duplicate_initializer  "two initializers are named 'w'$"
  onnx_duplicate_input        "input 'x' is listed twice$"
  onnx_shadowed_input         "input 'x' is declared 1x3 but the initializer of that name is 1x4$"
  onnx_output_shape           "output 'y' is declared 1x4, but computes 1x3$"
  onnx_output_type            "output 'y' is declared INT64, but ours is real"
  onnx_value_info_shape       "not a valid ONNX model \\(shape inference: .*Inferred shape and existing shape differ in dimension 1: \\(3\\) vs \\(4\\)\\)$"
  onnx_conv_rank_mismatch     "node 'y' \\(Conv, opset 13\\): only 2-D \\(NCHW\\) inputs are supported"
  onnx_unknown_attribute      "not a valid ONNX model \\(onnx::checker: Unrecognized attribute: alpha for operator Relu\\)$"
  # Item 10: the location's NUL and what follows it are shown (the file before it was read).
  onnx_external_nul           "external data location 'onnx_huge_weights\\.bin\\\\x00\\\\x1b.31mred' holds a NUL byte$"
  # Item 5: 64-bit values for 32-bit fields, refused with the value and the attribute (they were cut).
  onnx_conv_pads_2p40         "node 'y' \\(Conv, opset 13\\): attribute 'pads' value 1099511627776 is out of range"
  onnx_conv_pads_2p32         "attribute 'pads' value 4294967297 is out of range"
  onnx_conv_strides_2p32      "attribute 'strides' value 4294967297 is out of range"
  onnx_conv_dilations_2p32    "attribute 'dilations' value 4294967297 is out of range"
  onnx_pool_kernel_2p32       "node 'y' \\(MaxPool, opset 13\\): attribute 'kernel_shape' value 4294967298 is out of range"
  onnx_input_dim_2p32         "dimension 4294967300 is out of range"
  onnx_range_2p40             "node 'r' \\(Range, opset 13\\): a range of 1099511627776 values is over the 16777216 folded at import"
  onnx_range_nan              "node 'r' \\(Range, opset 13\\): a range of nan values is over the 16777216 folded at import"
  onnx_pad_2p32               "node 'y' \\(Pad, opset 13\\): Pad's pads value 4294967297 is out of range"
)
set(onnx_out ${CMAKE_CURRENT_BINARY_DIR}/onnx)
file(MAKE_DIRECTORY ${onnx_out})
file(GLOB onnx_malformed_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/*.onnx)
foreach(file ${onnx_malformed_files})
  get_filename_component(name ${file} NAME_WE)
  list(FIND onnx_malformed ${name} index)
  if(index EQUAL -1)
    message(SEND_ERROR "tests/data/malformed/${name}.onnx has no expected message in onnx_tests.cmake")
    continue()
  endif()
  math(EXPR index "${index} + 1")
  list(GET onnx_malformed ${index} message)
  superopt_cli_test(graph_check_malformed_${name} 2 "^superopt: .*/${name}\\.onnx: .*${message}" ONE_LINE
                    COMMAND ${superopt_bin} graph check ${file})
  # optimize and export refuse it the same way and write nothing.
  add_test(NAME cli_optimize_malformed_${name}
           COMMAND sh -c "rm -f \"$3\"; sh \"$0\" --one-line 2 \"$4\" -- \"$1\" optimize \"$2\" --rules \"$5\" --out \"$3\" && test ! -e \"$3\" && echo nothing-written"
                   ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh ${superopt_bin} ${file} ${onnx_out}/${name}-opt.onnx
                   "${name}\\.onnx: .*${message}" ${PROJECT_SOURCE_DIR}/data/rules/taso-3.h5)
  set_tests_properties(cli_optimize_malformed_${name} PROPERTIES PASS_REGULAR_EXPRESSION "nothing-written"
                       FAIL_REGULAR_EXPRESSION "expect_exit: FAIL")
endforeach()

set(onnx_tiny ${CMAKE_CURRENT_SOURCE_DIR}/data/onnx/tiny.onnx)
# 13: the Conv's bias is conv2d's third input, no add of its own
superopt_cli_test(graph_check_onnx 0 "" STDOUT "conv2d +#2,w,b .*operators: +13\n"
                  COMMAND ${superopt_bin} graph check ${onnx_tiny})
superopt_cli_test(graph_run_onnx_input_shape 0 "" STDOUT "total checksum"
                  COMMAND ${superopt_bin} graph run ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed/onnx_dynamic_input.onnx
                          --input-shape x=2x3)
superopt_cli_test(graph_check_input_shape_bad 2 "--input-shape: expected NAME=DIMS" ONE_LINE
                  COMMAND ${superopt_bin} graph check ${onnx_tiny} --input-shape x=1xx3)
superopt_cli_test(graph_check_input_shape_not_onnx 2 "--input-shape applies to ONNX models only" ONE_LINE
                  COMMAND ${superopt_bin} graph check builtin:squeezenet --input-shape x=1x3)
# Exported models pass onnx.checker (the writer runs the C++ checker too; this is the Python one).
foreach(model builtin:squeezenet builtin:bert ${onnx_tiny})
  get_filename_component(name ${model} NAME_WE)
  string(REGEX REPLACE "^builtin:" "" name ${name})
  add_test(NAME onnx_export_checker_${name}
           COMMAND sh -c "\"$0\" graph export \"$1\" --out \"$2\" && /usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(sys.argv[1]); print(\"checker ok\")' \"$2\""
                   ${superopt_bin} ${model} ${onnx_out}/${name}-export.onnx)
  set_tests_properties(onnx_export_checker_${name} PROPERTIES PASS_REGULAR_EXPRESSION "checker ok" TIMEOUT 120)
endforeach()

# PyTorch in float64 against the import and the optimized export (scripts/bench/onnx_torch.py).
# CI sizes: four small models, the CNNs at 64x64 (as the zoo runs them), search limited to 10 s each.
foreach(mode preserve fold)
  set(flag)
  if(mode STREQUAL "preserve")
    set(flag --preserve)
  endif()
  add_test(NAME onnx_torch_${mode}
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/scripts/bench/onnx_torch.py resnet18 squeezenet1_1
                   mobilenet_v2 transformer_small ${flag} --image-size 64 --superopt ${superopt_bin}
                   --rules ${PROJECT_SOURCE_DIR}/data/rules/taso-3.h5 --time-limit 10 --out ${onnx_out}/torch_${mode})
  set_tests_properties(onnx_torch_${mode} PROPERTIES LABELS onnx TIMEOUT 600 FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()

# The zoo's operators (issue 36): each imported from a small ONNX model written at
# test time, against PyTorch in float64, on the CPU executor with --check, and
# through an export round trip (tests/onnx_zoo_ops_test.py; a few seconds).
add_test(NAME onnx_zoo_ops
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/onnx_zoo_ops_test.py ${superopt_bin} ${onnx_out}/zoo_ops)
set_tests_properties(onnx_zoo_ops PROPERTIES LABELS onnx TIMEOUT 300 PASS_REGULAR_EXPRESSION "onnx_zoo_ops_test: ok")

# Batch normalization folded into the preceding convolution on import (issue 36,
# item 2): no batchnorm left, one bias add, equal to PyTorch in float64; a conv
# read twice keeps it (tests/onnx_batchnorm_fold_test.py; a few seconds).
add_test(NAME onnx_batchnorm_fold
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/onnx_batchnorm_fold_test.py ${superopt_bin} ${onnx_out}/batchnorm_fold)
set_tests_properties(onnx_batchnorm_fold PROPERTIES LABELS onnx TIMEOUT 300 PASS_REGULAR_EXPRESSION "onnx_batchnorm_fold_test: ok")

# What torch.onnx.export writes at opsets 11 to 17 passes the import's validation
# (onnx::checker, strict shape inference) and imports, also with every tensor
# external and with a dynamic batch (issue 37, item 6; tests/onnx_torch_opsets_test.py,
# about 15 s).
add_test(NAME onnx_torch_opsets
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/onnx_torch_opsets_test.py ${superopt_bin}
                 ${onnx_out}/torch_opsets)
set_tests_properties(onnx_torch_opsets PROPERTIES LABELS onnx TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "onnx_torch_opsets_test: ok" FAIL_REGULAR_EXPRESSION "FAIL")
