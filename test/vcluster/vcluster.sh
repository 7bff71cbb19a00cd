#!/usr/bin/env bash
# The virtual cluster: N hosts on one machine, each a network namespace with its own
# hostname and a veth into one bridge, addresses in the benchmarking range
# 198.18.0.0/15; mpirun reaches each host through an rsh agent that enters its
# namespace. Everything it creates carries this run's unique prefix and is removed
# when the command ends, also on failure or interruption.
#
#   vcluster.sh run N [--slow HOST_INDEX RATE] [--rate-all RATE] [--slow-link A B RATE] [--leaves K RATE] [--noise A B] [--stop I] [--link-down I AT S]
#                     [--same-hostname NAME] [--sysctl KEY=VALUE]... -- COMMAND...
#       Brings up N hosts, runs COMMAND with these variables set, tears down:
#         VC_MPIRUN   mpirun with the agent, one slot per host and Open MPI's settings
#         VC_HOSTS    host names (also their hostnames), space separated
#         VC_ADDR_i   host i's address; VC_PREFIX the run's prefix
#       --slow i RATE   token-bucket rate limit (tc tbf, e.g. 100mbit) on host i's link,
#                       both directions
#       --rate-all RATE the same limit on every host's link (all links at one rate)
#       --slow-link a b RATE   the same limit on the traffic between hosts a and b only
#                       (tc htb with a u32 filter on the peer's address, on both hosts):
#                       a slow link, not a slow host
#       --leaves K RATE hosts split in order over K leaf switches (bridges), each joined to
#                       one spine bridge by an uplink (a veth pair) limited to RATE each way:
#                       a two-tier fabric whose uplinks are shared, e.g. 4 hosts at 200mbit
#                       under an uplink of 200mbit is 4:1 oversubscribed
#       --noise a b     bursty iperf3 traffic from host a to host b while COMMAND runs
#       --same-hostname NAME   every host's hostname is NAME (cloned images)
#       --sysctl KEY=VALUE   set this network-namespace sysctl in every host, e.g.
#                       net.ipv4.tcp_slow_start_after_idle=0 (repeatable)
#       --stop i        a straggler: host i's fabscope processes stopped (SIGSTOP) for 60 ms
#                       and continued (SIGCONT) for 120 ms, over and over, from outside
#       --link-down i AT SECONDS   host i's link taken down at its switch port (the bridge
#                       side of its veth: the host sees its carrier go) AT seconds after
#                       COMMAND starts, for SECONDS; "down EPOCH" and "up EPOCH" lines go to
#                       $VC_EVENT_LOG when set
#   vcluster.sh check   exits 0 if this machine can host the cluster, else says why
#   vcluster.sh agent HOST CMD...   (mpirun's rsh agent; not for direct use)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

check() {
  if [ "$(id -u)" -ne 0 ]; then echo "needs root (network namespaces)"; return 1; fi
  for tool in ip tc unshare mpirun; do
    command -v "$tool" >/dev/null || { echo "needs $tool"; return 1; }
  done
  local probe="fsvc-probe-$$"
  if ! ip netns add "$probe" 2>/dev/null; then echo "cannot create network namespaces here"; return 1; fi
  ip netns del "$probe"
  return 0
}

agent() {
  # mpirun calls: agent HOST COMMAND-WORDS... (as it would call ssh); the host name is
  # the namespace name, and the command runs there with that hostname.
  local host="$1"
  shift
  host="${host#*@}"
  # --same-hostname: every host answers to one name (cloned images), not its own.
  exec ip netns exec "$host" unshare --uts -- sh -c 'hostname "$0" && eval "$1"' "${VC_SAME_HOSTNAME:-$host}" "$*"
}

run() {
  local n="$1"
  shift
  local slow_host="" slow_rate="" noise_a="" noise_b="" link_a="" link_b="" link_rate="" stop_host=""
  local down_host="" down_at="" down_for="" all_rate="" leaves="" uplink_rate=""
  local sysctls=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
      --slow) slow_host="$2"; slow_rate="$3"; shift 3 ;;
      --rate-all) all_rate="$2"; shift 2 ;;
      --slow-link) link_a="$2"; link_b="$3"; link_rate="$4"; shift 4 ;;
      --noise) noise_a="$2"; noise_b="$3"; shift 3 ;;
      --leaves) leaves="$2"; uplink_rate="$3"; shift 3 ;;
      --stop) stop_host="$2"; shift 2 ;;
      --link-down) down_host="$2"; down_at="$3"; down_for="$4"; shift 4 ;;
      --same-hostname) export VC_SAME_HOSTNAME="$2"; shift 2 ;;
      --sysctl)
        [[ "$2" =~ ^[a-z0-9_.]+=[^[:space:]]+$ ]] || { echo "vcluster: --sysctl '$2' is not KEY=VALUE" >&2; exit 2; }
        sysctls+=("$2"); shift 2 ;;
      *) echo "vcluster: unknown option $1" >&2; exit 2 ;;
    esac
  done
  [ "${1:-}" = "--" ] || { echo "vcluster: give -- COMMAND" >&2; exit 2; }
  shift
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 200 ]; then
    echo "vcluster: host count '$n' must be 1 to 200" >&2
    exit 2
  fi
  if [ -n "$leaves" ] && { ! [[ "$leaves" =~ ^[0-9]+$ ]] || [ "$leaves" -lt 2 ] || [ "$leaves" -gt "$n" ]; }; then
    echo "vcluster: --leaves '$leaves' must be 2 to the host count ($n)" >&2
    exit 2
  fi
  if [ -n "$leaves" ] && ! [[ "$uplink_rate" =~ ^[0-9]+(\.[0-9]+)?[kmg]?(bit|bps)$ ]]; then
    echo "vcluster: --leaves $leaves '$uplink_rate': the uplinks' rate must be tc's, e.g. 200mbit" >&2
    exit 2
  fi

  # A prefix no other run on this machine uses: pid plus random, short enough for
  # interface names (15 characters).
  # Globals: the EXIT trap runs after this function has returned.
  prefix="fs$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))"
  subnet_octet=$(( (RANDOM % 250) ))  # 198.18.X.0/24 inside 198.18.0.0/15
  bridge="${prefix}br"
  hosts=()
  pids=()
  workdir=
  export VC_PREFIX="$prefix"

  cleanup() {
    set +e
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
    for h in "${hosts[@]:-}"; do
      [ -n "$h" ] || continue
      ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null
      ip netns del "$h" 2>/dev/null
    done
    ip link del "$bridge" 2>/dev/null
    for ((j = 0; j < ${leaves:-0}; j++)); do
      ip link del "${prefix}u${j}" 2>/dev/null
      ip link del "${prefix}l${j}" 2>/dev/null
    done
    [ -n "$workdir" ] && rm -rf "$workdir"
  }
  trap cleanup EXIT INT TERM HUP

  workdir="$(mktemp -d /tmp/fsvc.XXXXXX)"
  ip link add "$bridge" type bridge
  ip addr add "198.18.${subnet_octet}.254/24" dev "$bridge"
  ip link set "$bridge" up
  local hostfile="$workdir/hosts"
  : >"$hostfile"
  if [ -n "$leaves" ]; then
    # Each leaf a bridge of its own; its uplink a veth pair to the spine (the bridge with the
    # address), limited each way: the leaf side sends up, the spine side sends down.
    for ((j = 0; j < leaves; j++)); do
      ip link add "${prefix}l${j}" type bridge
      ip link set "${prefix}l${j}" up
      ip link add "${prefix}u${j}" type veth peer name "${prefix}u${j}s"
      ip link set "${prefix}u${j}" master "${prefix}l${j}"
      ip link set "${prefix}u${j}s" master "$bridge"
      ip link set "${prefix}u${j}" up
      ip link set "${prefix}u${j}s" up
      tc qdisc add dev "${prefix}u${j}" root tbf rate "$uplink_rate" burst 256kb latency 400ms
      tc qdisc add dev "${prefix}u${j}s" root tbf rate "$uplink_rate" burst 256kb latency 400ms
    done
  fi
  for i in $(seq 0 $((n - 1))); do
    local h="${prefix}h${i}" veth="${prefix}v${i}" addr="198.18.${subnet_octet}.$((i + 1))"
    hosts+=("$h")
    ip netns add "$h"
    ip link add "$veth" type veth peer name "${veth}p"
    ip link set "${veth}p" netns "$h"
    ip -n "$h" link set "${veth}p" name eth0
    ip -n "$h" addr add "$addr/24" dev eth0
    ip -n "$h" link set eth0 up
    ip -n "$h" link set lo up
    for kv in "${sysctls[@]}"; do
      ip netns exec "$h" sysctl -qw "$kv" >/dev/null || { echo "vcluster: cannot set $kv in $h" >&2; exit 2; }
    done
    local switch="$bridge"
    [ -z "$leaves" ] || switch="${prefix}l$((i * leaves / n))"  # hosts in order, n / K each
    ip link set "$veth" master "$switch"
    ip link set "$veth" up
    echo "$h slots=1" >>"$hostfile"
    export "VC_ADDR_${i}=$addr"
  done
  export VC_HOSTS="${hosts[*]}"

  if [ -n "$all_rate" ]; then
    # Every host's link at one rate, both directions: a switch whose ports all run at it.
    for ((i = 0; i < n; i++)); do
      tc qdisc add dev "${prefix}v${i}" root tbf rate "$all_rate" burst 256kb latency 400ms
      ip netns exec "${prefix}h${i}" tc qdisc add dev eth0 root tbf rate "$all_rate" burst 256kb latency 400ms
    done
  fi
  if [ -n "$slow_host" ]; then
    local veth="${prefix}v${slow_host}" h="${prefix}h${slow_host}"
    # Into the host (the bridge side sends) and out of it (the host side sends).
    tc qdisc add dev "$veth" root tbf rate "$slow_rate" burst 256kb latency 400ms
    ip netns exec "$h" tc qdisc add dev eth0 root tbf rate "$slow_rate" burst 256kb latency 400ms
  fi
  if [ -n "$link_a" ]; then
    # Each host's traffic to the other goes through a limited htb class; the rest
    # through an unlimited one (with --rate-all, one at that rate, in place of its tbf).
    local from to
    for pair in "$link_a $link_b" "$link_b $link_a"; do
      read -r from to <<<"$pair"
      local h="${prefix}h${from}" peer="198.18.${subnet_octet}.$((to + 1))"
      [ -z "$all_rate" ] || ip netns exec "$h" tc qdisc del dev eth0 root
      ip netns exec "$h" tc qdisc add dev eth0 root handle 1: htb default 10
      if [ -n "$all_rate" ]; then
        ip netns exec "$h" tc class add dev eth0 parent 1: classid 1:10 htb rate "$all_rate" ceil "$all_rate" burst 256kb
      else
        ip netns exec "$h" tc class add dev eth0 parent 1: classid 1:10 htb rate 100gbit
      fi
      ip netns exec "$h" tc class add dev eth0 parent 1: classid 1:20 htb rate "$link_rate" ceil "$link_rate" \
        burst 256kb
      ip netns exec "$h" tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip dst "$peer/32" flowid 1:20
    done
  fi
  if [ -n "$noise_a" ]; then
    local ha="${prefix}h${noise_a}" hb="${prefix}h${noise_b}" addr_b="198.18.${subnet_octet}.$((noise_b + 1))"
    # A bursty neighbour, as another job's collectives are: 64 MiB in two streams,
    # a pause, again, until the cluster is torn down.
    ip netns exec "$hb" iperf3 -s -p 5999 >/dev/null 2>&1 &
    pids+=($!)
    sleep 0.5
    ip netns exec "$ha" bash -c "while :; do iperf3 -c $addr_b -p 5999 -n 64M -P 2 >/dev/null 2>&1; sleep 0.15; done" &
    pids+=($!)
    sleep 1
  fi

  if [ -n "$stop_host" ]; then
    local hs="${prefix}h${stop_host}"
    # Only fabscope's own processes (not Open MPI's daemon), found anew each burst.
    bash -c 'while :; do
        for p in $(ip netns pids "$0" 2>/dev/null); do
          [ "$(cat /proc/$p/comm 2>/dev/null)" = fabscope ] && kill -STOP "$p" 2>/dev/null
        done
        sleep 0.06
        for p in $(ip netns pids "$0" 2>/dev/null); do kill -CONT "$p" 2>/dev/null; done
        sleep 0.12
      done' "$hs" &
    pids+=($!)
  fi

  if [ -n "$down_host" ]; then
    local vd="${prefix}v${down_host}" log="${VC_EVENT_LOG:-/dev/stderr}"
    bash -c 'sleep "$1"; ip link set "$0" down; echo "down $(date +%s.%N)" >>"$3"
             sleep "$2"; ip link set "$0" up; echo "up $(date +%s.%N)" >>"$3"' "$vd" "$down_at" "$down_for" "$log" &
    pids+=($!)
  fi

  # Every host has slots=1, so Open MPI thinks no node is oversubscribed and its waiting
  # ranks spin without yielding; but the hosts share this machine's cores. Spinning ranks
  # then starve the ones moving data, unevenly: on 2 cores one pair of an mpi link matrix
  # measured half the others (and as little alone, beside four spinners) in 4 of 5
  # diagnose runs. Yielding while idle is what Open MPI does itself when it knows.
  local flags=(--hostfile "$hostfile" --mca plm_rsh_agent "$here/vcluster.sh agent"
    --mca rtc ^hwloc --mca oob_tcp_if_include "198.18.${subnet_octet}.0/24"
    --mca btl_tcp_if_include "198.18.${subnet_octet}.0/24" --mca btl tcp,self
    --mca plm_rsh_no_tree_spawn 1 --bind-to none --mca mpi_yield_when_idle 1)
  if [ "$(id -u)" -eq 0 ]; then flags+=(--allow-run-as-root); fi
  export VC_MPIRUN="mpirun ${flags[*]}"
  # The agent is one word with a space: keep it as an array for callers that exec.
  printf '%s\n' mpirun "${flags[@]}" >"$workdir/mpirun.args"
  export VC_MPIRUN_ARGS="$workdir/mpirun.args"
  set +e
  "$@"
  local rc=$?
  set -e
  return $rc
}

case "${1:-}" in
  check) check ;;
  agent) shift; agent "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: vcluster.sh run N [--slow I RATE] [--rate-all RATE] [--slow-link A B RATE] [--leaves K RATE] [--noise A B] [--stop I] [--link-down I AT SECONDS] [--same-hostname NAME] -- COMMAND... | check" >&2
     exit 2 ;;
esac
