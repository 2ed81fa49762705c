railkit_add_fuzzer(report_page_fuzz SOURCE report_page_fuzz.cc LIBS railkit_report
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/../tests/report/fixtures)
