# The shipped alert rules and dashboard against the real Prometheus tools (Debian's prometheus and
# prometheus-node-exporter); a missing tool is a skip with the reason (exit 77), never a pass.
set(_rules ${CMAKE_SOURCE_DIR}/packaging/monitoring/gpuconform-rules.yml)
set(_promtool_or_skip "command -v promtool >/dev/null || { echo 'SKIPPED: no promtool (apt-get install prometheus)'; exit 77; }")
add_test(NAME monitoring.rules_check COMMAND sh -c "${_promtool_or_skip}; exec promtool check rules \"$0\"" ${_rules})
# Each rule seen firing and not firing (ci/monitoring/rules-test.yml); about 5 s of CPU.
add_test(NAME monitoring.rules_unit
  COMMAND sh -c "${_promtool_or_skip}; exec promtool test rules \"$0\"" ${CMAKE_CURRENT_LIST_DIR}/rules-test.yml)
set_tests_properties(monitoring.rules_check monitoring.rules_unit PROPERTIES
  LABELS "monitoring" SKIP_RETURN_CODE 77 TIMEOUT 300)
if(TARGET gpuconform)
  # node_exporter and Prometheus started and stopped by the test, three simulated nightly runs.
  # Beside other tests: the simulated runs select only checks that time nothing (--only in the
  # script), and Prometheus and node_exporter listen on free ports.
  add_test(NAME monitoring.prometheus_end_to_end COMMAND ${CMAKE_CURRENT_LIST_DIR}/test-prometheus.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(monitoring.prometheus_end_to_end PROPERTIES LABELS "monitoring" SKIP_RETURN_CODE 77
                       TIMEOUT 600 COST 25 ENVIRONMENT "GPUCONFORM_MODULE_DIR=${GPUCONFORM_MODULE_DIR}")
endif()
