# Install rules and packaging: `cmake --install` puts the npu binary, the public headers, the
# static libraries, the data files the tools read by default (share/npu: hardware presets, the
# bundled digits model, the benchmark suites), a CMake package config (find_package(npu CONFIG))
# and a pkg-config file under the prefix; `cpack -G DEB` packs the same tree. docs/install.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The data folder, relative to the prefix; npu::dataDir() finds it as the nearest share/npu above
# the running code, so it must stay PREFIX/share/npu.
set(NPU_INSTALL_DATADIR "${CMAKE_INSTALL_DATAROOTDIR}/npu")
set(NPU_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/npu")
set(npu_installed_libraries
  support golden isa compiler simulator rtl runtime subnet_bench)

foreach(name IN LISTS npu_installed_libraries)
  set(target npu_${name})
  # Build-tree include folders (the library's include/, and for npu_rtl Verilator's generated
  # model and runtime headers) hold only in the build tree; installed, every public header is
  # under include/npu/<library>/, and no public header includes the Verilated model.
  get_target_property(include_dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  set(wrapped "")
  foreach(dir IN LISTS include_dirs)
    if(NOT IS_ABSOLUTE "${dir}")
      get_target_property(source_dir ${target} SOURCE_DIR)
      set(dir "${source_dir}/${dir}")
    endif()
    list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
  endforeach()
  set_target_properties(${target} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${wrapped}"
    EXPORT_NAME ${name})
  add_library(npu::${name} ALIAS ${target})
  get_target_property(source_dir ${target} SOURCE_DIR)
  install(DIRECTORY "${source_dir}/include/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
    COMPONENT development)
endforeach()
list(TRANSFORM npu_installed_libraries PREPEND npu_ OUTPUT_VARIABLE npu_installed_targets)

install(TARGETS ${npu_installed_targets}
  EXPORT npuTargets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS npu RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)
install(EXPORT npuTargets NAMESPACE npu:: DESTINATION "${NPU_INSTALL_CMAKEDIR}"
  COMPONENT development)

configure_package_config_file(cmake/npuConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/npuConfig.cmake"
  INSTALL_DESTINATION "${NPU_INSTALL_CMAKEDIR}"
  PATH_VARS NPU_INSTALL_DATADIR)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/npuConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/npuConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/npuConfigVersion.cmake"
  cmake/FindOneDnn.cmake
  DESTINATION "${NPU_INSTALL_CMAKEDIR}" COMPONENT development)

# pkg-config: static libraries, so Libs lists the third-party ones pkg-config cannot name
# (ONNX and oneDNN ship no .pc file) and sc_main is pulled out of the simulator for libsystemc.
list(REVERSE npu_installed_targets)
list(TRANSFORM npu_installed_targets PREPEND "-l" OUTPUT_VARIABLE npu_pc_libs)
list(JOIN npu_pc_libs " " NPU_PC_LIBS)
string(APPEND NPU_PC_LIBS " -Wl,--undefined=sc_main -lonnx_proto -ldnnl -fopenmp -pthread")
file(RELATIVE_PATH NPU_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(cmake/npu.pc.in "${CMAKE_CURRENT_BINARY_DIR}/npu.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/npu.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT development)

# The data the tools read by default (npu::dataDir()), laid out as in the source tree.
install(DIRECTORY configs DESTINATION "${NPU_INSTALL_DATADIR}" COMPONENT runtime)
install(DIRECTORY examples/digits examples/asm DESTINATION "${NPU_INSTALL_DATADIR}/examples"
  COMPONENT runtime)
install(DIRECTORY subnet_bench/suites subnet_bench/graphs subnet_bench/baselines
  subnet_bench/quant DESTINATION "${NPU_INSTALL_DATADIR}/subnet_bench" COMPONENT runtime)
install(FILES scripts/npu-completion.bash RENAME npu
  DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions" COMPONENT runtime)

# The build tree's data folder: links to the source folders, so binaries and tests run from the
# build tree find the same files through the same lookup as an installed tree.
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/share/npu/examples")
foreach(dir configs examples/digits examples/asm subnet_bench)
  file(CREATE_LINK "${CMAKE_SOURCE_DIR}/${dir}" "${CMAKE_BINARY_DIR}/share/npu/${dir}" SYMBOLIC)
endforeach()

# A Debian package of the whole install tree (cpack -G DEB, from the build folder).
set(CPACK_PACKAGE_NAME "npu-toolchain")
set(CPACK_PACKAGE_VENDOR "npu-toolchain")
set(CPACK_PACKAGE_CONTACT "npu-toolchain maintainers <npu-toolchain@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "int8 NPU toolchain: compiler, cycle-accurate simulator, golden reference, RTL co-simulation")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_GENERATOR "DEB")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
# Shared libraries the npu binary links, as Debian 12 names them (dpkg-shlibdeps would need a
# debian/ folder); the -dev packages are what a consumer of the static libraries builds with.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libsystemc-dev, libyaml-cpp-dev, libfmt-dev, libonnx-dev, libprotobuf-dev, libdnnl-dev, zlib1g-dev, libzip-dev, nlohmann-json3-dev, pkg-config, python3, python3-numpy")
include(CPack)
