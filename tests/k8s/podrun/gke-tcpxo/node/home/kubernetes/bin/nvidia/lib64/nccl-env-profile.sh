# The pod runner's stand-in for the nccl-env-profile.sh that GKE's
# nccl-tcpxo-installer DaemonSet writes to the node's
# /home/kubernetes/bin/nvidia/lib64 (the gke-tcpxo render mounts that at
# /usr/local/nvidia and sources it with NCCL_LIB_DIR set). Like the real one
# it exports the FasTrak tuning and the tuner's config under NCCL_LIB_DIR,
# and names the host's interfaces (with hostNetwork: control eth1, GPU NICs
# eth2..eth9), which the render's next line replaces with the pod's. The
# values are the runner's markers, checked in the test binary's environment.
export NCCL_SOCKET_IFNAME=eth1
export NCCL_FASTRAK_CTRL_DEV=eth1
export NCCL_FASTRAK_IFNAME=eth2,eth3,eth4,eth5,eth6,eth7,eth8,eth9
export NCCL_FASTRAK_NUM_FLOWS=2
export NCCL_FASTRAK_USE_SNAP=1
export NCCL_FASTRAK_USE_LLCM=1
export NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL=0
export NCCL_TUNER_PLUGIN=libnccl-tuner.so
export NCCL_TUNER_CONFIG_PATH=${NCCL_LIB_DIR}/a3plus_tuner_config.textproto
export NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE=${NCCL_LIB_DIR}/a3plus_guest_config.textproto
