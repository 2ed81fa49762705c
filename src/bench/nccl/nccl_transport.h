#pragma once
// The nccl backend: NCCL is itself a collective engine, so with --backend
// nccl the harness does not run railkit's ring/chain algorithms over it; it
// hands whole collectives to NCCL (ncclAllReduce, ncclAllGather, ... on GPU
// buffers, timed with CUDA events) through the CollectiveEngine interface and
// keeps seeding, checking and the nccl-tests output shared with tcp and ucx.
// Point-to-point traffic (p2p, pairs) goes through postSend/postRecv, staged
// through device memory and grouped into one ncclGroupStart/End per wait, so
// those figures include the host<->device copies.
//
// One GPU per rank: the local rank (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK,
// else the rank's position among the ranks reporting the same host) picks the
// device. Rank 0 creates the ncclUniqueId and every rank receives it through
// the bootstrap's allgather. NCCL reads its configuration only from the
// process environment, so the NCCL_* entries of TransportOptions::env (the
// user's, plus NCCL_SOCKET_IFNAME / NCCL_IB_HCA derived from --data-if) are
// applied with setenv here, in the rank's own process, right before NCCL is
// loaded and initialised; nothing else in railkit touches the environment.

#include <memory>

#include "bench/transport.h"

namespace railkit::bench {

Result<std::unique_ptr<Transport>> makeNcclTransport(Bootstrap& bootstrap, const TransportOptions& options);

}  // namespace railkit::bench
