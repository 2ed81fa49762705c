// The ucx backend (see ucx_transport.h). Requests are polled, not called
// back: progress() drives ucp_worker_progress, probes each peer's next
// message once receives are posted for it (ucx_stream.h maps messages onto
// receives) and checks outstanding requests, so no callback touches our
// state except the endpoint error handler, which only records the failure.
#include "bench/ucx/ucx_transport.h"

#include <sched.h>

#include <list>
#include <map>
#include <optional>

#include "bench/socket_util.h"
#include "bench/ucx/ucx_api.h"
#include "bench/ucx/ucx_config.h"
#include "bench/ucx/ucx_stream.h"
#include "bench/ucx/ucx_worker.h"

namespace railkit::bench {
namespace {

using ucx::messageTag;

struct Pending {
  void* request = nullptr;  // a send's UCP request, nullptr once complete
  int peer = 0;
  bool send = false;
  ucs_status_t status = UCS_INPROGRESS;
};

// One probed message being received, straight into receive buffers or staged.
struct Incoming {
  int peer = 0;
  void* request = nullptr;
  std::uint64_t start = 0;
  std::vector<ucx::Slice> slices;
  std::vector<ucp_dt_iov_t> iov;
  std::vector<char> staging;
  bool staged = false;
};

class UcxTransport;

// Handed to UCP as the endpoint error handler's argument; lives as long as the transport.
struct PeerSlot {
  UcxTransport* owner = nullptr;
  int rank = 0;
  ucs_status_t error = UCS_OK;
};

class UcxTransport final : public Transport {
 public:
  UcxTransport(std::shared_ptr<const ucx::UcxLibrary> lib, int rank, int size, TransportOptions options)
      : lib_(std::move(lib)),
        ucp_(lib_->ucp),
        rank_(rank),
        size_(size),
        options_(std::move(options)),
        eps_(size, nullptr),
        slots_(size),
        infos_(size),
        send_seq_(size, 0),
        recv_seq_(size, 0),
        streams_(size) {
    for (int r = 0; r < size_; ++r) slots_[r] = PeerSlot{this, r, UCS_OK};
  }

  ~UcxTransport() override { shutdown(); }

  const char* name() const override { return "ucx"; }
  TransportCaps caps() const override { return {}; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const PeerInfo& peer(int r) const override { return infos_[r]; }

  Status start(Bootstrap& bootstrap) {
    if (size_ > ucx::kMaxRanks) return makeError(ErrorCode::kUsage, "ucx backend supports at most 16M ranks");
    settings_ = ucx::settingsFor(options_, options_.data_rdma_ports);
    auto worker = ucx::openWorker(*lib_, settings_);
    if (!worker) return tl::unexpected(worker.error());
    worker_ = *worker;
    ucp_address_t* address = nullptr;
    std::size_t address_len = 0;
    if (ucs_status_t st = ucp_.worker_get_address(worker_.worker, &address, &address_len); st != UCS_OK) {
      return ucxError(ErrorCode::kUnavailable, "ucp_worker_get_address", st);
    }
    // Peers and rank lines name the devices UCX was given (the user's UCX_NET_DEVICES wins over --data-if).
    ucx::PeerCard mine{options_.data_address, options_.hostname,
                       ucx::devicesInUse(settings_, options_.data_interface),
                       std::string(reinterpret_cast<const char*>(address), address_len)};
    ucp_.worker_release_address(worker_.worker, address);
    auto all = bootstrap.allgather(ucx::encodeCard(mine));
    if (!all) return tl::unexpected(all.error());
    std::vector<ucx::PeerCard> cards;
    for (int r = 0; r < size_; ++r) {
      auto card = ucx::decodeCard((*all)[static_cast<std::size_t>(r)], r);
      if (!card) return tl::unexpected(card.error());
      infos_[r] = PeerInfo{r, card->host, card->interface, card->address};
      cards.push_back(std::move(*card));
    }
    for (int r = 0; r < size_; ++r) {
      ucp_ep_params_t params{};
      params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                          UCP_EP_PARAM_FIELD_ERR_HANDLER;
      params.address = reinterpret_cast<const ucp_address_t*>(cards[r].worker.data());
      params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      params.err_handler.cb = &UcxTransport::onEndpointError;
      params.err_handler.arg = &slots_[r];
      if (ucs_status_t st = ucp_.ep_create(worker_.worker, &params, &eps_[r]); st != UCS_OK) {
        eps_[r] = nullptr;
        return ucxError(ErrorCode::kPeerLost, "cannot reach " + describe(r), st);
      }
    }
    return wireUp();
  }

  Result<RequestId> postSend(int peer, const void* data, std::size_t bytes) override {
    if (auto s = checkPeer(peer); !s) return tl::unexpected(s.error());
    if (bytes == 0) return track(nullptr, peer, true);  // nothing to say in a byte stream
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_contig(1);
    void* req = ucp_.tag_send_nbx(eps_[peer], data, bytes, messageTag(rank_, send_seq_[peer]++), &param);
    return track(req, peer, true);
  }

  Result<RequestId> postRecv(int peer, void* data, std::size_t bytes) override {
    if (auto s = checkPeer(peer); !s) return tl::unexpected(s.error());
    auto id = track(nullptr, peer, false);
    if (!id) return id;
    pending_[*id].status = UCS_INPROGRESS;
    streams_[peer].post(*id, static_cast<char*>(data), bytes);
    collectDone(peer);
    return id;
  }

  Status wait(RequestId id) override { return waitAll({id}); }

  Status waitAll(const std::vector<RequestId>& ids) override {
    if (broken_) return tl::unexpected(*broken_error_);
    auto last_progress = Clock::now();
    int idle_spins = 0;
    for (;;) {
      bool progressed = progress();
      bool left = false;
      for (RequestId id : ids) {
        auto it = pending_.find(id);
        if (it == pending_.end()) continue;  // already waited for
        Pending& p = it->second;
        if (p.request != nullptr) {
          ucs_status_t st = ucp_.request_check_status(p.request);
          if (st != UCS_INPROGRESS) {
            ucp_.request_free(p.request);
            p.request = nullptr;
            p.status = st;
            progressed = true;
          }
        }
        if (p.status == UCS_INPROGRESS) {
          left = true;
          continue;
        }
        if (p.status != UCS_OK) return broke(failed(it));
        pending_.erase(it);
      }
      for (int r = 0; r < size_; ++r) {
        if (slots_[r].error != UCS_OK) return broke(lost(r, slots_[r].error));
      }
      if (!left) return okStatus();
      if (progressed) {
        last_progress = Clock::now();
        idle_spins = 0;
        continue;
      }
      if (Clock::now() - last_progress > options_.stall_timeout) return broke(stalled(ids));
      // Stay responsive while leaving the core to other ranks on a shared node.
      if (++idle_spins > 64) sched_yield();
    }
  }

  Status barrier() override { return disseminationBarrier(*this); }

 private:
  static void onEndpointError(void* arg, ucp_ep_h, ucs_status_t status) {
    auto* slot = static_cast<PeerSlot*>(arg);
    if (slot->error == UCS_OK) slot->error = status;
  }

  // Endpoints connect lazily; one small message each way with every peer
  // connects them all now, under the stall deadline, before anything is timed.
  Status wireUp() {
    std::vector<char> out(static_cast<std::size_t>(size_), 1), in(static_cast<std::size_t>(size_), 0);
    std::vector<RequestId> ids;
    for (int r = 0; r < size_; ++r) {
      auto recv = postRecv(r, &in[r], 1);
      if (!recv) return tl::unexpected(recv.error());
      ids.push_back(*recv);
    }
    for (int r = 0; r < size_; ++r) {
      auto send = postSend(r, &out[r], 1);
      if (!send) return tl::unexpected(send.error());
      ids.push_back(*send);
    }
    if (auto s = waitAll(ids); !s)
      return tl::unexpected(s.error().withContext("connecting (" + describeConfig() + ")"));
    return okStatus();
  }

  // One round: UCP progress, landed messages, newly probed ones. True when
  // one of our messages moved.
  // UCP's own event count is not used: keepalives and retransmission
  // timers count there too and would hide a stalled peer from the deadline.
  bool progress() {
    bool moved = false;
    ucp_.worker_progress(worker_.worker);
    for (auto it = incoming_.begin(); it != incoming_.end();) {
      ucs_status_t st = it->request == nullptr ? UCS_OK : ucp_.request_check_status(it->request);
      if (st == UCS_INPROGRESS) {
        ++it;
        continue;
      }
      if (it->request != nullptr) ucp_.request_free(it->request);
      land(*it, st);
      it = incoming_.erase(it);
      moved = true;
    }
    for (int r = 0; r < size_; ++r) {
      while (streams_[r].wantsMessage() && slots_[r].error == UCS_OK) {
        ucp_tag_recv_info_t info{};
        ucp_tag_message_h msg =
            ucp_.tag_probe_nb(worker_.worker, messageTag(r, recv_seq_[r]), ~ucp_tag_t{0}, 1, &info);
        if (msg == nullptr) break;
        ++recv_seq_[r];
        receiveMessage(r, msg, info.length);
        moved = true;
      }
    }
    return moved;
  }

  void receiveMessage(int peer, ucp_tag_message_h msg, std::size_t length) {
    auto& in = incoming_.emplace_back();
    in.peer = peer;
    auto slices = streams_[peer].claim(length, &in.start);
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    void* buffer = nullptr;
    std::size_t count = 0;
    if (!slices) {
      in.staged = true;
      in.staging.resize(length);
      buffer = in.staging.data();
      count = length;
      param.datatype = ucp_dt_make_contig(1);
    } else if (slices->size() == 1) {
      in.slices = std::move(*slices);
      buffer = in.slices[0].data;
      count = in.slices[0].bytes;
      param.datatype = ucp_dt_make_contig(1);
    } else {
      in.slices = std::move(*slices);
      for (const auto& sl : in.slices) in.iov.push_back(ucp_dt_iov_t{sl.data, sl.bytes});
      buffer = in.iov.data();
      count = in.iov.size();
      param.datatype = ucp_dt_make_iov();
    }
    void* req = ucp_.tag_msg_recv_nbx(worker_.worker, buffer, count, msg, &param);
    if (UCS_PTR_IS_ERR(req)) {
      slots_[peer].error = UCS_PTR_STATUS(req);
      incoming_.pop_back();
      return;
    }
    in.request = req;  // nullptr: landed already; progress() finishes it next round
  }

  void land(Incoming& in, ucs_status_t st) {
    if (st != UCS_OK) {
      if (slots_[in.peer].error == UCS_OK) slots_[in.peer].error = st;
      return;
    }
    if (in.staged) {
      streams_[in.peer].landedStaged(in.start, std::move(in.staging));
    } else {
      streams_[in.peer].landed(in.slices);
    }
    collectDone(in.peer);
  }

  void collectDone(int peer) {
    for (RequestId id : streams_[peer].takeDone()) {
      auto it = pending_.find(id);
      if (it != pending_.end()) it->second.status = UCS_OK;
    }
  }

  Result<RequestId> track(void* req, int peer, bool send) {
    if (UCS_PTR_IS_ERR(req)) {
      return ucxError(ErrorCode::kPeerLost, std::string(send ? "send to " : "receive from ") + describe(peer),
                      UCS_PTR_STATUS(req));
    }
    RequestId id = ++next_;
    Pending p;
    p.peer = peer;
    p.send = send;
    if (req == nullptr) {
      p.status = UCS_OK;  // completed in place
    } else {
      p.request = req;
    }
    pending_.emplace(id, p);
    return id;
  }

  // A failed wait ends the transport (transport.h): the worker closes now,
  // while the algorithm's buffers are still alive, so UCX cannot finish a
  // send or a receive into memory the algorithm frees once the error is out.
  Status broke(Status s) {
    if (!broken_) {
      broken_ = true;
      broken_error_ = s.error();
      shutdown();
    }
    return s;
  }

  Status checkPeer(int peer) const {
    if (broken_) return tl::unexpected(*broken_error_);
    if (peer < 0 || peer >= size_ || eps_[peer] == nullptr) {
      return makeError(ErrorCode::kInternal, "ucx: no endpoint for rank " + std::to_string(peer));
    }
    if (slots_[peer].error != UCS_OK) return lost(peer, slots_[peer].error);
    return okStatus();
  }

  Status failed(std::map<RequestId, Pending>::iterator it) {
    Pending p = it->second;
    pending_.erase(it);
    return lost(p.peer, p.status, p.send ? "send to" : "receive from");
  }

  Status lost(int peer, ucs_status_t st, const char* what = "connection to") const {
    return makeError(ErrorCode::kPeerLost,
                     std::string("lost ") + what + " " + describe(peer) + ": " + lib_->statusText(st));
  }

  Status stalled(const std::vector<RequestId>& ids) const {
    int peer = 0;
    for (RequestId id : ids) {
      auto it = pending_.find(id);
      if (it != pending_.end()) {
        peer = it->second.peer;
        break;
      }
    }
    return makeError(ErrorCode::kTimeout,
                     "no progress for " + std::to_string(options_.stall_timeout.count() / 1000) + " s with " +
                         describe(peer) + " over ucx (" + describeConfig() + ")");
  }

  tl::unexpected<Error> ucxError(ErrorCode code, const std::string& what, ucs_status_t st) const {
    return makeError(code, "ucx: " + what + ": " + lib_->statusText(st) + " (" + describeConfig() + ")");
  }

  std::string describeConfig() const { return ucx::describeSettings(settings_); }

  std::string describe(int r) const {
    const PeerInfo& i = infos_[r];
    return "rank " + std::to_string(r) + " (host " + (i.host.empty() ? "?" : i.host) + ", interface " +
           (i.interface.empty() ? "?" : i.interface) + ", " + (i.address.empty() ? "?" : i.address) + ")";
  }

  // Cancels the receives still posted and closes everything (ucx_worker.h),
  // bounded so teardown after a lost peer cannot hang.
  void shutdown() {
    std::vector<void*> requests;
    if (worker_.worker != nullptr) {
      for (auto& in : incoming_) {
        if (in.request == nullptr) continue;
        ucp_.request_cancel(worker_.worker, in.request);
        requests.push_back(in.request);
      }
    }
    for (auto& [id, p] : pending_) {
      if (p.request != nullptr) requests.push_back(p.request);  // sends: a forced close fails them
    }
    bool force = broken_;
    for (const auto& s : slots_) force = force || s.error != UCS_OK;
    auto limit = std::min<Clock::duration>(options_.stall_timeout, std::chrono::seconds(2));
    ucx::closeWorker(*lib_, worker_, eps_, std::move(requests), force, limit);
    pending_.clear();
    incoming_.clear();
  }

  std::shared_ptr<const ucx::UcxLibrary> lib_;  // open for as long as any UCX object lives
  const ucx::UcpFunctions& ucp_;
  int rank_, size_;
  TransportOptions options_;
  std::vector<ucx::Setting> settings_;
  ucx::Worker worker_;
  std::vector<ucp_ep_h> eps_;
  std::vector<PeerSlot> slots_;
  std::vector<PeerInfo> infos_;
  std::vector<std::uint64_t> send_seq_, recv_seq_;
  std::vector<ucx::RecvStream> streams_;
  std::list<Incoming> incoming_;  // stable addresses: UCP holds their iov arrays
  std::map<RequestId, Pending> pending_;
  RequestId next_ = 0;
  bool broken_ = false;  // a wait failed: the worker is closed
  std::optional<Error> broken_error_;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeUcxTransport(Bootstrap& bootstrap, const TransportOptions& options) {
  auto lib = ucx::loadUcx(options.ucx_lib_dir);
  if (!lib) return tl::unexpected(lib.error());
  auto t = std::make_unique<UcxTransport>(std::move(*lib), bootstrap.rank(), bootstrap.size(), options);
  if (auto s = t->start(bootstrap); !s) return tl::unexpected(s.error());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace railkit::bench
