# The Prometheus and JUnit views of every committed sample report, checked the way monitoring
# reads them: promtool check metrics, and the Jenkins xUnit JUnit schema's structure.
find_program(GPUCONFORM_MONITORING_PYTHON NAMES python3)
if(GPUCONFORM_MONITORING_PYTHON AND TARGET gpuconform)
  foreach(_what prometheus junit)
    add_test(NAME reports.monitoring_${_what}
      COMMAND ${GPUCONFORM_MONITORING_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_monitoring_outputs.py ${_what}
              $<TARGET_FILE:gpuconform> ${CMAKE_SOURCE_DIR}/reports/samples)
    set_tests_properties(reports.monitoring_${_what} PROPERTIES
      LABELS "reports;monitoring" SKIP_REGULAR_EXPRESSION "SKIPPED \\[[0-9]+\\]" TIMEOUT 120)
  endforeach()
endif()
