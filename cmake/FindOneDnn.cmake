# Finds oneDNN 2.x (Debian: libdnnl-dev), the third-party arithmetic under the golden reference's
# convolutions, and defines the imported target oneDNN::dnnl. Its own CMake config is not used:
# it insists on OpenCL headers, which the CPU engine never needs.
find_path(ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(ONEDNN_LIBRARY NAMES dnnl)
if(NOT ONEDNN_INCLUDE_DIR OR NOT ONEDNN_LIBRARY)
  message(FATAL_ERROR
    "oneDNN was not found (oneapi/dnnl/dnnl.hpp and libdnnl). The golden reference computes its "
    "int8 and fp32 convolutions with it: run scripts/install-deps.sh, or on Debian 12 "
    "`apt-get install libdnnl-dev`.")
endif()
file(STRINGS "${ONEDNN_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h" ONEDNN_MAJOR_LINE
  REGEX "#define DNNL_VERSION_MAJOR")
string(REGEX MATCH "[0-9]+" ONEDNN_VERSION_MAJOR "${ONEDNN_MAJOR_LINE}")
if(NOT ONEDNN_VERSION_MAJOR STREQUAL "2")
  message(FATAL_ERROR
    "oneDNN ${ONEDNN_VERSION_MAJOR}.x found in ${ONEDNN_INCLUDE_DIR}; the golden reference is "
    "written against the 2.x API (Debian 12's libdnnl-dev 2.6).")
endif()
# oneDNN's CPU runtime is OpenMP: the golden holds its team to one thread per call.
find_package(OpenMP REQUIRED COMPONENTS CXX)
if(NOT TARGET oneDNN::dnnl)
  add_library(oneDNN::dnnl UNKNOWN IMPORTED)
  set_target_properties(oneDNN::dnnl PROPERTIES
    IMPORTED_LOCATION "${ONEDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ONEDNN_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES OpenMP::OpenMP_CXX)
endif()
# find_dependency (the installed npuConfig.cmake) asks for the result variable.
set(OneDnn_FOUND TRUE)
message(STATUS "oneDNN: ${ONEDNN_LIBRARY} (${ONEDNN_VERSION_MAJOR}.x)")
