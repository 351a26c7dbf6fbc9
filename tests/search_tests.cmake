# The optimizer (search/): unit tests, and `superopt optimize` end to end.
add_executable(search_tests search_test.cc)
target_link_libraries(search_tests PRIVATE superopt_search Catch2::Catch2WithMain)
catch_discover_tests(search_tests)
