/* FAKE libucp.so.0 for railkit's UCX loader tests: every symbol railkit
 * resolves, none of them usable beyond ucp_get_version (the loader never
 * calls the others). Built with
 *   -DFAKE_UCP_MAJOR=M -DFAKE_UCP_MINOR=N  the version ucp_get_version reports
 *   -DFAKE_UCP_NO_PROBE                    without ucp_tag_probe_nb (a broken library) */
#include <stddef.h>

extern "C" {

void ucp_get_version(unsigned* major, unsigned* minor, unsigned* release) {
  *major = FAKE_UCP_MAJOR;
  *minor = FAKE_UCP_MINOR;
  *release = 0;
}

static int unsupported() {
  return -22; /* UCS_ERR_UNSUPPORTED */
}

int ucp_init_version(unsigned, unsigned, const void*, const void*, void**) {
  return unsupported();
}
void ucp_cleanup(void*) {}
int ucp_config_read(const char*, const char*, void**) {
  return unsupported();
}
int ucp_config_modify(void*, const char*, const char*) {
  return unsupported();
}
void ucp_config_release(void*) {}
int ucp_worker_create(void*, const void*, void**) {
  return unsupported();
}
void ucp_worker_destroy(void*) {}
int ucp_worker_get_address(void*, void**, size_t*) {
  return unsupported();
}
void ucp_worker_release_address(void*, void*) {}
unsigned ucp_worker_progress(void*) {
  return 0;
}
int ucp_ep_create(void*, const void*, void**) {
  return unsupported();
}
void* ucp_ep_close_nbx(void*, const void*) {
  return NULL;
}
void ucp_request_cancel(void*, void*) {}
int ucp_request_check_status(void*) {
  return 0;
}
void ucp_request_free(void*) {}
void* ucp_tag_send_nbx(void*, const void*, size_t, unsigned long, const void*) {
  return NULL;
}
void* ucp_tag_msg_recv_nbx(void*, void*, size_t, void*, const void*) {
  return NULL;
}
#ifndef FAKE_UCP_NO_PROBE
void* ucp_tag_probe_nb(void*, unsigned long, unsigned long, int, void*) {
  return NULL;
}
#endif
}
