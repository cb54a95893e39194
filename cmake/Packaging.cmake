# Debian packages with CPack's DEB generator, one package per component:
#   gpuconform        core: executable, sim module, profiles, schema, systemd units, man page, completion
#   gpuconform-cuda   the CUDA module (cudart linked statically: needs only the driver at run time)
#   gpuconform-hip    the HIP module (depends on the distro's HIP runtime, computed by dpkg-shlibdeps)
#   gpuconform-torch  the PyTorch layer (python3-pytest; torch is the node's own)
#   gpuconform-slurm  the Slurm health check, NHC check, nightly submission and roll-up jobs
# CPack rather than debian/ + dpkg-buildpackage: the CMake install rules are the one list of what
# is installed where, the build tree and the packages cannot drift apart, and the GPU machine
# (no apt, no debhelper) can build the same packages with cmake alone.
# Build with: cmake -DCMAKE_INSTALL_PREFIX=/usr ... && cmake --build . --target package
set(GPUCONFORM_SYSTEMD_UNIT_DIR "/lib/systemd/system" CACHE STRING
    "Where the systemd units go (/lib/systemd/system on Debian 12, /usr/lib/systemd/system on Debian 13 and Ubuntu 24.04)")
set(_pkg ${CMAKE_CURRENT_SOURCE_DIR}/packaging)
set(_doc ${CMAKE_INSTALL_DATADIR}/doc)

# The operator's files are conffiles: dpkg keeps local edits across upgrades.
install(FILES ${_pkg}/options ${_pkg}/profile.yaml DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/gpuconform COMPONENT core)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/probes/profiles/default.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/profiles COMPONENT core)
install(FILES ${_pkg}/gpuconform.service ${_pkg}/gpuconform.timer DESTINATION ${GPUCONFORM_SYSTEMD_UNIT_DIR} COMPONENT core)
install(PROGRAMS ${_pkg}/nightly DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gpuconform COMPONENT core)
install(FILES ${_pkg}/tmpfiles.conf DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/tmpfiles.d RENAME gpuconform.conf COMPONENT core)
install(FILES ${_pkg}/gpuconform.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME gpuconform COMPONENT core)
install(DIRECTORY DESTINATION ${CMAKE_INSTALL_FULL_LOCALSTATEDIR}/lib/gpuconform COMPONENT core)
# Monitoring: the alert rules for Prometheus's rule_files and the Grafana dashboard with its
# provisioning file (docs/prometheus.md says where each goes).
install(FILES ${_pkg}/monitoring/gpuconform-rules.yml DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/prometheus COMPONENT core)
install(FILES ${_pkg}/monitoring/grafana/gpuconform.json DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/grafana/dashboards
        COMPONENT core)
install(FILES ${_pkg}/monitoring/grafana/provisioning.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/grafana
        RENAME gpuconform-dashboards.yaml COMPONENT core)
# Fleet glue. Slurm: /usr/lib/gpuconform/slurm (where gpuconform.nhc looks for the health check),
# the verdict script beside the health check that reads it; the NHC check for /etc/nhc/scripts.
# Kubernetes (in the core package, the helper runs inside the node's Job): the helper with its
# verdict script beside it and the manifests, under /usr/share/gpuconform/kubernetes.
set(_ci ${CMAKE_CURRENT_SOURCE_DIR}/ci)
install(PROGRAMS ${_ci}/slurm/gpuconform-healthcheck ${_ci}/slurm/gpuconform-nightly ${_ci}/slurm/gpuconform-node.sbatch
                 ${_ci}/slurm/gpuconform-rollup.sbatch
        DESTINATION lib/gpuconform/slurm COMPONENT slurm)
install(PROGRAMS ${_ci}/fleet/gpuconform_verdict.py DESTINATION lib/gpuconform/slurm COMPONENT slurm)
install(FILES ${_ci}/slurm/gpuconform.nhc DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/slurm COMPONENT slurm)
install(PROGRAMS ${_ci}/kubernetes/gpuconform_kube.py ${_ci}/fleet/gpuconform_verdict.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/kubernetes COMPONENT core)
install(FILES ${_ci}/kubernetes/gpuconform_lease.py  # a module gpuconform_kube.py imports
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/kubernetes COMPONENT core)
install(PROGRAMS ${_ci}/slurm/gpuconform-rollup.sbatch DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/kubernetes
        RENAME gpuconform-rollup COMPONENT core)
# The kustomize base and the site folder a site copies (README "Fleet: Kubernetes").
install(DIRECTORY ${_ci}/kubernetes/base ${_ci}/kubernetes/site
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuconform/kubernetes COMPONENT core)
# Who answers for the packages (Maintainer, changelog). A site or release that publishes them to an
# apt repository sets its own: -DGPUCONFORM_PACKAGE_CONTACT="Name <address>".
set(GPUCONFORM_PACKAGE_CONTACT "gpuconform maintainers <gpuconform@localhost>" CACHE STRING
    "Maintainer of the Debian packages, \"Name <address>\"")
# Each package's changelog.Debian.gz: one entry for this version, dated by SOURCE_DATE_EPOCH when
# set (reproducible builds), pointing at NEWS.md (what changed) and the git log (the history).
string(TIMESTAMP _deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(_c core cuda hip torch slurm)
  set(_deb_name gpuconform-${_c})
  if(_c STREQUAL "core")
    set(_deb_name gpuconform)
  endif()
  install(FILES ${_pkg}/copyright DESTINATION ${_doc}/${_deb_name} COMPONENT ${_c})
  configure_file(${_pkg}/changelog.Debian.in ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian @ONLY)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian.gz
    COMMAND gzip -9nkf ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian
    DEPENDS ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian VERBATIM)
  list(APPEND _changelogs ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian.gz)
  install(FILES ${CMAKE_BINARY_DIR}/changelog/${_deb_name}/changelog.Debian.gz DESTINATION ${_doc}/${_deb_name}
          COMPONENT ${_c})
endforeach()
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/NEWS.md.gz
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/NEWS.md ${CMAKE_BINARY_DIR}/NEWS.md
  COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/NEWS.md
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/NEWS.md VERBATIM)
add_custom_target(gpuconform-package-docs ALL DEPENDS ${_changelogs} ${CMAKE_BINARY_DIR}/NEWS.md.gz)
install(FILES ${CMAKE_BINARY_DIR}/NEWS.md.gz DESTINATION ${_doc}/gpuconform COMPONENT core)

# gpuconform(1) from the executable's --help (cmake/ManPage.cmake), compressed as Debian wants.
set(_man ${CMAKE_BINARY_DIR}/gpuconform.1)
add_custom_command(OUTPUT ${_man}.gz
  COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpuconform> -DOUT=${_man} -DVERSION=${PROJECT_VERSION}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/ManPage.cmake
  COMMAND gzip -9nf ${_man}
  DEPENDS gpuconform ${CMAKE_CURRENT_SOURCE_DIR}/cmake/ManPage.cmake
  COMMENT "Writing gpuconform(1) from --help" VERBATIM)
add_custom_target(gpuconform-manpage ALL DEPENDS ${_man}.gz)
install(FILES ${_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT core)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpuconform)
set(CPACK_PACKAGE_VENDOR "gpuconform")
set(CPACK_PACKAGE_CONTACT "${GPUCONFORM_PACKAGE_CONTACT}")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPackDeb would put it before every component's own
# description, so each package's synopsis would be the core's and its own first line repeated
# (lintian: description-synopsis-is-duplicated). Each description's first line is its synopsis;
# CPackDeb indents the lines after it itself, so they start unindented here.
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# /etc and /var/lib are absolute destinations: stage them with DESTDIR, never onto this machine.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${GPUCONFORM_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # dpkg-shlibdeps computes the library dependencies
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_STRIP_FILES ON)  # Debian ships stripped binaries (lintian: unstripped-binary-or-object)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(_self "gpuconform (= ${PROJECT_VERSION}-${GPUCONFORM_PACKAGE_RELEASE})")

set(CPACK_DEBIAN_CORE_PACKAGE_NAME gpuconform)
set(CPACK_DEBIAN_CORE_PACKAGE_CONTROL_EXTRA "${_pkg}/conffiles;${_pkg}/postrm")
# python3 for the Kubernetes helper and its verdict script under /usr/share/gpuconform/kubernetes;
# dpkg-shlibdeps adds the libraries.
set(CPACK_DEBIAN_CORE_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_CORE_DESCRIPTION "conformance checks for GPU software installs (CUDA, ROCm/HIP)
gpuconform asks a GPU node, check by check, whether its install behaves as
the vendors document, and writes one JSON report per run. This package holds
the executable, the simulated backend, the profiles, the report schema and a
nightly systemd timer (disabled until enabled). Install gpuconform-cuda or
gpuconform-hip for the GPU checks and gpuconform-torch for the PyTorch layer.")
set(CPACK_COMPONENT_CORE_DESCRIPTION "${CPACK_DEBIAN_CORE_DESCRIPTION}")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME gpuconform-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "${_self}")
set(CPACK_COMPONENT_CUDA_DESCRIPTION "CUDA backend module for gpuconform
The CUDA checks of gpuconform. The CUDA runtime is linked in statically, so
the module needs only the NVIDIA driver (libcuda.so.1) at run time, whichever
way the driver was installed.")

set(CPACK_DEBIAN_HIP_PACKAGE_NAME gpuconform-hip)
set(CPACK_DEBIAN_HIP_PACKAGE_DEPENDS "${_self}")
set(CPACK_COMPONENT_HIP_DESCRIPTION "HIP backend module for gpuconform
The ROCm/HIP checks of gpuconform, built against the distribution's HIP
runtime.")

set(CPACK_DEBIAN_TORCH_PACKAGE_NAME gpuconform-torch)
set(CPACK_DEBIAN_TORCH_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS "${_self}, python3, python3-pytest")
set(CPACK_DEBIAN_TORCH_PACKAGE_SUGGESTS "python3-torch")
set(CPACK_COMPONENT_TORCH_DESCRIPTION "PyTorch layer of gpuconform
The framework layer of gpuconform: pytest checks of the node's own PyTorch
install (torch is not a dependency: the node's own torch is what is checked).")

set(CPACK_DEBIAN_SLURM_PACKAGE_NAME gpuconform-slurm)
set(CPACK_DEBIAN_SLURM_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_SLURM_PACKAGE_DEPENDS "${_self}, python3")
set(CPACK_DEBIAN_SLURM_PACKAGE_SUGGESTS "slurm-client, nhc")
set(CPACK_COMPONENT_SLURM_DESCRIPTION "Slurm health check and nightly jobs for gpuconform
The Slurm glue of gpuconform: a HealthCheckProgram that drains a node whose
checks fail and resumes it once they pass, an LBNL NHC check, the nightly
per-node submission and its roll-up job, in /usr/lib/gpuconform/slurm.")

set(CPACK_COMPONENTS_ALL core torch slurm)
if(TARGET gpuconform-cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
if(TARGET gpuconform-hip)
  list(APPEND CPACK_COMPONENTS_ALL hip)
endif()
include(CPack)
