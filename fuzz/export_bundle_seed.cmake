# Exports the bundled digits model's bring-up bundle into OUT/bundle (the files the
# bundle_manifest target reads beside each input) and copies its manifest into
# OUT/bundle_manifest/ (the seed). Run by ctest fuzz.bundle_seeds with -DNPU=... -DOUT=...
execute_process(COMMAND ${NPU} export --out ${OUT}/bundle RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "npu export --out ${OUT}/bundle failed (${status})")
endif()
file(MAKE_DIRECTORY ${OUT}/bundle_manifest)
file(COPY_FILE ${OUT}/bundle/manifest.yaml ${OUT}/bundle_manifest/manifest.yaml)
