# The nccl backend is always built: NCCL and the CUDA runtime are opened with
# dlopen at run time (nccl_api.h), so no CUDA toolkit is needed here.
target_sources(railkit_bench PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/nccl_env.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_loader.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_transport.cc)
target_compile_definitions(railkit_bench PUBLIC RAILKIT_HAVE_NCCL)
target_link_libraries(railkit_bench PUBLIC ${CMAKE_DL_LIBS})
