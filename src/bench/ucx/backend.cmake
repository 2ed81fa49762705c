# The ucx backend: UCP from libucx-dev (pkg-config "ucx"). Without it the
# factory simply has no "ucx" row and --backend ucx says it was not built in.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(RAILKIT_UCX IMPORTED_TARGET ucx)
endif()
if(RAILKIT_UCX_FOUND)
  target_sources(railkit_bench PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ucx_config.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_stream.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_worker.cc)
  target_compile_definitions(railkit_bench PUBLIC RAILKIT_HAVE_UCX)
  # railkit_model: the RDMA ports behind the data interface (UCX_NET_DEVICES).
  target_link_libraries(railkit_bench PUBLIC PkgConfig::RAILKIT_UCX railkit_model)
  message(STATUS "railkit bench: ucx backend ${RAILKIT_UCX_VERSION}")
else()
  message(STATUS "railkit bench: ucx backend off (pkg-config ucx not found)")
endif()
