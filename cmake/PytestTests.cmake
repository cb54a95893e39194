# The one way a pytest file or folder becomes a ctest test. Where `PYTHON` cannot import pytest
# the test is skipped with the reason (exit 77), never passed.
#   gpuconform_add_pytest(NAME PYTHON python PATH file-or-folder [WHOLE_SKIP]
#                         [LABELS ...] [ENVIRONMENT ...] [TIMEOUT s])
# WHOLE_SKIP: a suite that skips itself as a whole when a tool it drives is missing (a browser, a
# driver): pytest -rs prints "SKIPPED [n] ...", which ctest then shows as skipped, not passed.
function(gpuconform_add_pytest name)
  cmake_parse_arguments(ARG "WHOLE_SKIP" "PYTHON;PATH;TIMEOUT" "LABELS;ENVIRONMENT" ${ARGN})
  set(_flags "-q -p no:cacheprovider")
  if(ARG_WHOLE_SKIP)
    string(APPEND _flags " -rs")
  endif()
  add_test(NAME ${name}
    COMMAND sh -c "\"$0\" -c 'import pytest' 2>/dev/null || { echo \"SKIPPED: no pytest for $0 (apt-get install python3-pytest)\"; exit 77; }; exec \"$0\" -m pytest ${_flags} \"$1\""
            ${ARG_PYTHON} ${ARG_PATH})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${ARG_LABELS}"
                       ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;${ARG_ENVIRONMENT}")
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
  if(ARG_WHOLE_SKIP)
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED \\[[0-9]+\\]")
  endif()
endfunction()
