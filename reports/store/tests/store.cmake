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
