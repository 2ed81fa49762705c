/* FAKE libucs.so.0 for railkit's UCX loader tests: the one libucs symbol
 * railkit calls. */
extern "C" {

const char* ucs_status_string(int status) {
  return status == 0 ? "Success" : "fake ucs: error";
}
}
