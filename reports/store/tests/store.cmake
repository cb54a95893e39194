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
