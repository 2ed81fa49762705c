// Fuzzes the RDMA netlink reply parser (binary input: any run of netlink
// messages, as recv() would hand them over).
#include <cstddef>
#include <cstdint>

#include "sys/rdma_netlink.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)railkit::sys::parseRdmaNetlink({data, size});
  return 0;
}
