# railkit logs: peak memory on tens of MB of lines each parser would keep.
railkit_add_gtest(logs_memory_test SOURCES memory_test.cc LIBS fmt::fmt)
add_dependencies(logs_memory_test railkit)
