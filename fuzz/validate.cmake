# validate: rank 0 reading another rank's phase-1 report, then the report,
# its document and the human verdict. Seed: a real report (a node of the
# example DGX with its findings), inventory trimmed.
railkit_add_fuzzer(validate_report_fuzz SOURCE validate_report_fuzz.cc LIBS railkit_validate
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/validate_report)
