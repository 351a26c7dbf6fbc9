# The sanitizer build (-DSUPEROPT_SANITIZE=ON) and the fuzzing build
# (-DSUPEROPT_FUZZ=ON, clang only), both in a build folder of their own:
# scripts/test.sh uses build-asan, scripts/bench/fuzz.sh build-fuzz.
# Only our code is instrumented; Z3, HDF5, protobuf/ONNX, oneDNN and Open MPI
# are the system's packages.
option(SUPEROPT_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer (halt on the first report)" OFF)
option(SUPEROPT_FUZZ "Build the libFuzzer harnesses of tests/fuzz/ (clang; implies SUPEROPT_SANITIZE)" OFF)

if(SUPEROPT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SUPEROPT_FUZZ needs clang (libFuzzer): CC=clang-14 CXX=clang++-14 cmake ...")
  endif()
  set(SUPEROPT_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(SUPEROPT_SANITIZE)
  # -O1 keeps the tests fast enough while the reports stay exact; the frame
  # pointer gives full stacks; every report is fatal (no recovery), so a test
  # with a report fails. Line tables are all a report's stack needs (function,
  # file and line); full debug information made the objects 1.6x larger and the
  # build slower (pass -DCMAKE_CXX_FLAGS=-g to debug in a debugger).
  set(superopt_sanitize_flags -fsanitize=address,undefined -fno-sanitize-recover=all
      -fno-omit-frame-pointer -O1 -gline-tables-only)
  if(SUPEROPT_FUZZ)
    # Coverage for libFuzzer in every library; the harnesses link libFuzzer's main
    # (tests/fuzz/CMakeLists.txt), the other executables only the sanitizers.
    list(APPEND superopt_sanitize_flags -fsanitize=fuzzer-no-link)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${superopt_sanitize_flags}>")
  add_link_options(-fsanitize=address,undefined)
  # nvcc does not take the sanitizer flags; the GPU tests skip without a device anyway.
  set(SUPEROPT_CUDA OFF CACHE BOOL "" FORCE)
  message(STATUS "superopt sanitizers: ASan+UBSan, fuzz harnesses: ${SUPEROPT_FUZZ}")
endif()
