# exporter: the HTTP request head parser of the /metrics server; seeds are
# requests as Prometheus, curl and HTTP/1.0 clients send them, and some that
# are refused.
railkit_add_fuzzer(exporter_http_fuzz SOURCE exporter_http_fuzz.cc LIBS railkit_exporter
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/http_request)
# exporter: the counter and port state files of sysfs; seeds are files of
# prometheus/procfs's InfiniBand fixture and a few that must be refused.
railkit_add_fuzzer(exporter_counter_text_fuzz SOURCE exporter_counter_text_fuzz.cc LIBS railkit_exporter
  SEEDS ${CMAKE_CURRENT_SOURCE_DIR}/seeds/counter_text)
