#include "bench/data_accept.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "bench/job_token.h"
#include "bench/pending_server.h"

namespace railkit::bench {
namespace {

// The data plane's hooks: no greeting (the cookie came through the
// bootstrap), a fixed-size DataHello as framing (read no further: with no
// ack, data may follow it at once), no slots to watch.
class DataHelloHandler final : public PendingHandler {
 public:
  explicit DataHelloHandler(const DataAcceptOptions& o) : o_(o), left_(o.expected) {}

  std::size_t readLimit(const PendingConnection& p) const override {
    return sizeof(DataHello) - p.bytes.size();
  }
  HelloVerdict onBytes(PendingConnection& p) override;
  std::string closedWhy(const PendingConnection&) const override { return "closed before its data hello"; }
  std::string expiredWhy(PendingConnection&) override {
    return "no complete data hello within the per-connection deadline";
  }
  std::string evictedWhy(PendingConnection&) override {
    return "too many connections waiting (oldest dropped)";
  }
  bool wantsMore() override { return o_.stop != nullptr ? !o_.stop->load() : left_ > 0; }

 private:
  const DataAcceptOptions& o_;
  int left_;
};

HelloVerdict DataHelloHandler::onBytes(PendingConnection& p) {
  if (p.bytes.size() < sizeof(DataHello)) return HelloVerdict::wait();
  DataHello h;
  std::memcpy(&h, p.bytes.data(), sizeof h);
  std::string_view cookie(reinterpret_cast<const char*>(h.cookie.data()), h.cookie.size());
  if (h.magic != kDataMagic || !sameBytes(cookie, o_.cookie))
    return HelloVerdict::drop("not a data hello of this job");
  if (!o_.wanted(h)) {
    return HelloVerdict::drop("data hello for rank " + std::to_string(h.rank) + " stream " +
                              std::to_string(h.index) + " that is out of range or already connected");
  }
  if (o_.ack && ::send(p.fd, &kDataAck, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1)
    return HelloVerdict::drop(std::string("cannot acknowledge its data hello: ") + std::strerror(errno));
  o_.take(p.fd, h);
  --left_;
  return HelloVerdict::taken();
}

}  // namespace

Status acceptDataConnections(int listener, const DataAcceptOptions& o, Clock::time_point deadline) {
  PendingServerOptions options;
  options.name = "data plane";
  options.hello_timeout = o.hello_timeout;
  options.max_pending = o.max_pending;
  options.stop_fd = o.stop_fd;
  options.notice = o.notice;
  DataHelloHandler handler(o);
  PendingServer server(listener, std::move(options), handler);
  auto served = server.serve(deadline);
  if (!served && served.error().code == ErrorCode::kTimeout)
    return makeError(ErrorCode::kTimeout, "waiting for data connections");
  return served;
}

}  // namespace railkit::bench
