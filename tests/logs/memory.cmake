# railkit logs: peak memory on tens of MB of lines each parser would keep.
# Peak RSS over gigabytes of log: meaningless under ASan's shadow memory, and
# the streaming paths run under the sanitizers in logs_cli_test and the fuzz targets.
railkit_add_gtest(logs_memory_test SOURCES memory_test.cc LIBS fmt::fmt
  SANITIZER_SKIP "*" SANITIZER_SKIP_REASON "peak RSS is the point; ASan's shadow memory makes it meaningless")
add_dependencies(logs_memory_test railkit)
