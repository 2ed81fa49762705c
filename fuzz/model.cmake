# model: snapshot (.tar.gz) extraction. Seeds are small archives made at
# build time by make_tar_seeds.sh (nothing copied from ../shared).
find_package(ZLIB REQUIRED)
set(RAILKIT_TAR_SEEDS ${CMAKE_BINARY_DIR}/fuzz-seeds/model_tar)
add_custom_command(OUTPUT ${RAILKIT_TAR_SEEDS}/tree.tar
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/make_tar_seeds.sh ${RAILKIT_TAR_SEEDS}
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/make_tar_seeds.sh
  COMMENT "model_tar_fuzz seeds")
add_custom_target(model_tar_fuzz_seeds DEPENDS ${RAILKIT_TAR_SEEDS}/tree.tar)
railkit_add_fuzzer(model_tar_fuzz SOURCE model_tar_fuzz.cc LIBS railkit_model ZLIB::ZLIB SEEDS ${RAILKIT_TAR_SEEDS})
add_dependencies(model_tar_fuzz model_tar_fuzz_seeds)
