# cmake -DCXX=... -DSRC=<src> -DLAYERS=<layers.cmake> -DWORK=<dir> -P check_includes.cmake
# For each layer, with that layer's include directories (layers.cmake, written
# by the build from the targets themselves): a header of each layer it may not
# use fails to compile because the file is not found, and core/result.h, which
# every layer may use, compiles. The second half proves that the first fails
# for the right reason, not because the compiler or the flags are broken.
cmake_minimum_required(VERSION 3.25)
include(${LAYERS})
file(MAKE_DIRECTORY ${WORK})
set(failures "")

function(probe layer header out_rc out_text)
  set(flags "")
  foreach(dir ${includes_${layer}})
    # The compiler's own directory (imported targets list it) stays implicit,
    # as in the build; other outside directories are system ones there too.
    if(dir STREQUAL "/usr/include")
      continue()
    elseif(dir MATCHES "/layers/")
      list(APPEND flags "-I${dir}")
    else()
      list(APPEND flags "-isystem" "${dir}")
    endif()
  endforeach()
  string(MAKE_C_IDENTIFIER "${layer}_${header}" name)
  set(file ${WORK}/${name}.cc)
  file(WRITE ${file} "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only ${flags} ${file}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE err)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${err}" PARENT_SCOPE)
endfunction()

set(forbidden_count 0)
foreach(layer ${layers})
  probe(${layer} core/result.h rc text)
  if(NOT rc EQUAL 0)
    list(APPEND failures "${layer}: core/result.h does not compile with its include root:\n${text}")
  endif()
  foreach(other ${layers})
    if(other IN_LIST allowed_${layer})
      continue()
    endif()
    file(GLOB headers RELATIVE ${SRC} ${SRC}/${other}/*.h)
    if(NOT headers)
      continue()
    endif()
    list(GET headers 0 header)
    probe(${layer} ${header} rc text)
    math(EXPR forbidden_count "${forbidden_count} + 1")
    # gcc: "bench/transport.h: No such file or directory"; clang: "'bench/transport.h' file not found".
    if(rc EQUAL 0 OR NOT (text MATCHES "${header}: No such file" OR text MATCHES "'${header}' file not found"))
      list(APPEND failures "${layer} may use only ${allowed_${layer}}, yet #include \"${header}\" "
                           "did not fail as a missing file (exit ${rc}):\n${text}")
    endif()
  endforeach()
endforeach()

if(failures)
  string(JOIN "\n" report ${failures})
  message(FATAL_ERROR "layering:\n${report}")
endif()
list(LENGTH layers layer_count)
message(STATUS "layering: ${forbidden_count} forbidden includes fail to compile across ${layer_count} layers")
