# The ucx backend: compiled against UCP's headers from libucx-dev (pkg-config
# "ucx", for the include directories and flags only). libucp/libucs are never
# linked: ucx_loader.cc opens them with dlopen when a ucx run starts
# (ucx_api.h says why and where it looks). Without the headers the factory
# simply has no "ucx" row and --backend ucx says it was not built in.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(RAILKIT_UCX ucx)
endif()
if(RAILKIT_UCX_FOUND)
  target_sources(railkit_bench PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ucx_config.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_loader.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_stream.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cc
    ${CMAKE_CURRENT_LIST_DIR}/ucx_worker.cc)
  target_compile_definitions(railkit_bench PUBLIC RAILKIT_HAVE_UCX)
  target_include_directories(railkit_bench SYSTEM PUBLIC ${RAILKIT_UCX_INCLUDE_DIRS})
  target_compile_options(railkit_bench PUBLIC ${RAILKIT_UCX_CFLAGS_OTHER})
  # railkit_model: the RDMA ports behind the data interface (UCX_NET_DEVICES).
  target_link_libraries(railkit_bench PUBLIC railkit_model ${CMAKE_DL_LIBS})
  message(STATUS "railkit bench: ucx backend (UCX ${RAILKIT_UCX_VERSION} headers; libucp opened at run time)")
else()
  message(STATUS "railkit bench: ucx backend off (pkg-config ucx not found)")
endif()
