# The logs catalogue behind `railkit explain`: every id logs emits, explained.
railkit_add_gtest(logs_catalogue_test SOURCES catalogue_test.cc LIBS railkit_logs)
add_dependencies(logs_catalogue_test railkit)
