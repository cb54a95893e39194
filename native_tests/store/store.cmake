# The results store against real databases: an SQLite file, and a PostgreSQL server the test
# starts in a temporary folder (Debian's `postgresql`; skipped, saying so, without it).
if(NOT TARGET gpuconform)
  return()
endif()
foreach(_engine sqlite postgresql)
  add_test(NAME reports.store_views_${_engine}
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/store_views.sh $<TARGET_FILE:gpuconform> ${CMAKE_SOURCE_DIR}/reports/samples ${_engine})
  set_tests_properties(reports.store_views_${_engine} PROPERTIES
    LABELS "store;reports" SKIP_REGULAR_EXPRESSION "SKIPPED:" TIMEOUT 600)
endforeach()
# Planted problems in a generated fleet: one slow GPU among eight, one driver change; exactly those named.
add_test(NAME reports.store_planted_outliers
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/planted_outliers.py $<TARGET_FILE:gpuconform>
          ${CMAKE_SOURCE_DIR}/reports/samples/ubuntu24.04-h200-2026-12-02-verdict/readme.json)
set_tests_properties(reports.store_planted_outliers PROPERTIES LABELS "store;reports" TIMEOUT 600)
# The store benchmark's script on a tiny fleet, so that it keeps running (its figures are
# measured by hand: reports/bench/README.md).
add_test(NAME reports.store_bench_script
  COMMAND /bin/sh -c "rm -rf \"$0\" && BENCH_DIR=\"$0\" \"$1\" \"$2\" 20 8 50 > \"$0.txt\" && cat \"$0.txt\" && grep -q '^| SQLite | .store baselines.' \"$0.txt\""
          ${CMAKE_CURRENT_BINARY_DIR}/store-bench-test ${CMAKE_SOURCE_DIR}/reports/bench/store_bench.sh
          $<TARGET_FILE_DIR:gpuconform>)
set_tests_properties(reports.store_bench_script PROPERTIES LABELS "store;reports" TIMEOUT 300)
