# The HIP backend module, compiled by hipcc directly. CMake 3.25's enable_language(HIP) does not
# find Debian's hip-lang config, so this does not go through it. Targets come from a fixed list
# per HIP version (what that version's device libraries support), never from the build host.
set(GPUCONFORM_BUILD_HIP OFF)
set(GPUCONFORM_HIP_WHY "disabled with -DGPUCONFORM_HIP=OFF")
if(NOT GPUCONFORM_HIP STREQUAL "OFF")
  find_program(GPUCONFORM_HIPCC hipcc PATHS /opt/rocm/bin)
  find_path(GPUCONFORM_HIP_INCLUDE hip/hip_version.h PATHS /opt/rocm/include)
  if(GPUCONFORM_HIPCC AND GPUCONFORM_HIP_INCLUDE)
    set(GPUCONFORM_BUILD_HIP ON)
  elseif(GPUCONFORM_HIP STREQUAL "ON")
    message(FATAL_ERROR "GPUCONFORM_HIP=ON but hipcc or the HIP headers were not found. "
                        "Install them with: apt-get install hipcc libamdhip64-dev (Debian/Ubuntu), or ROCm's hip-dev.")
  else()
    set(GPUCONFORM_HIP_WHY "hipcc/HIP headers not found; apt-get install hipcc libamdhip64-dev")
  endif()
endif()

if(GPUCONFORM_BUILD_HIP)
  file(STRINGS ${GPUCONFORM_HIP_INCLUDE}/hip/hip_version.h _hip_major REGEX "#define HIP_VERSION_MAJOR")
  file(STRINGS ${GPUCONFORM_HIP_INCLUDE}/hip/hip_version.h _hip_minor REGEX "#define HIP_VERSION_MINOR")
  string(REGEX MATCH "[0-9]+" _hip_major "${_hip_major}")
  string(REGEX MATCH "[0-9]+" _hip_minor "${_hip_minor}")
  set(GPUCONFORM_HIP_VERSION "${_hip_major}.${_hip_minor}")
  if(GPUCONFORM_HIP_VERSION VERSION_GREATER_EQUAL 6.0)
    set(GPUCONFORM_HIP_TARGETS gfx900 gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100)
  elseif(GPUCONFORM_HIP_VERSION VERSION_GREATER_EQUAL 5.7)
    set(GPUCONFORM_HIP_TARGETS gfx900 gfx906 gfx908 gfx90a gfx940 gfx942 gfx1030 gfx1100)
  else()
    # HIP 5.2 (Debian 12): device libraries stop at gfx90a, gfx940 and gfx1030.
    set(GPUCONFORM_HIP_TARGETS gfx900 gfx906 gfx908 gfx90a gfx940 gfx1030)
  endif()
  set(_offload "")
  foreach(t IN LISTS GPUCONFORM_HIP_TARGETS)
    list(APPEND _offload --offload-arch=${t})
  endforeach()
  set(_src ${CMAKE_SOURCE_DIR}/probes/backend/hip/hip_backend.hip.cpp)
  set(_out ${GPUCONFORM_MODULE_DIR}/libgpuconform-hip.so)
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${GPUCONFORM_MODULE_DIR}
    COMMAND ${GPUCONFORM_HIPCC} -x hip -std=c++${GPUCONFORM_GPU_CXX_STANDARD} -O2 -fPIC -shared
            ${GPUCONFORM_HIP_WARNINGS} ${_offload} -I${CMAKE_SOURCE_DIR}/probes -o ${_out} ${_src}
    DEPENDS ${_src} ${CMAKE_SOURCE_DIR}/probes/backend/hip/hip_vendor.hpp ${GPUCONFORM_GPU_BODY}
    COMMENT "Building HIP backend module (${GPUCONFORM_HIP_TARGETS})"
    VERBATIM)
  add_custom_target(gpuconform-hip ALL DEPENDS ${_out})
  add_dependencies(gpuconform gpuconform-hip)
  install(FILES ${_out} DESTINATION ${GPUCONFORM_INSTALL_MODULE_DIR} COMPONENT hip)
  # hipcc's output is no CMake target, so `cmake --install --strip` (CPACK_STRIP_FILES) skips it:
  # strip it the same way here (the dynamic symbols dlopen needs stay).
  get_filename_component(_hip_name ${_out} NAME)
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${GPUCONFORM_INSTALL_MODULE_DIR}/${_hip_name}\" COMMAND_ERROR_IS_FATAL ANY)
  endif()" COMPONENT hip)
endif()
