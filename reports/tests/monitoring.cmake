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
# The same JUnit against the real junit-10.xsd with a real validator (xmllint --schema).
if(TARGET gpuconform)
  add_test(NAME reports.junit_xsd COMMAND ${CMAKE_CURRENT_LIST_DIR}/check_junit_xsd.sh $<TARGET_FILE:gpuconform> ${CMAKE_SOURCE_DIR})
  set_tests_properties(reports.junit_xsd PROPERTIES LABELS "reports;monitoring" SKIP_RETURN_CODE 77 TIMEOUT 300
                       ENVIRONMENT "GPUCONFORM_MODULE_DIR=${GPUCONFORM_MODULE_DIR}")
endif()
