# The logs catalogue behind `railkit explain`: the declared ids, each explained and emitted on an input.
railkit_add_gtest(logs_catalogue_test SOURCES catalogue_test.cc LIBS railkit_logs)
add_dependencies(logs_catalogue_test railkit)
