# CMake generated Testfile for 
# Source directory: /work/main/python_tests
# Build directory: /work/main/build-sim/python_tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test([=[python_unit]=] "/usr/bin/python3" "-m" "pytest" "/work/main/python_tests/unit" "-q" "-p" "no:cacheprovider")
set_tests_properties([=[python_unit]=] PROPERTIES  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1" LABELS "python;unit" SKIP_RETURN_CODE "77" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/python_tests/CMakeLists.txt;27;add_test;/work/main/python_tests/CMakeLists.txt;0;")
add_test([=[python_framework]=] "/usr/bin/python3" "-m" "pytest" "/work/main/python_tests/framework" "-q" "-p" "no:cacheprovider")
set_tests_properties([=[python_framework]=] PROPERTIES  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1" LABELS "python;framework" SKIP_RETURN_CODE "77" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/python_tests/CMakeLists.txt;27;add_test;/work/main/python_tests/CMakeLists.txt;0;")
