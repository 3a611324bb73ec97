#!/usr/bin/env bash
# A NATS server with JetStream for treeline's distributed commands (issue 20; README "More than one GPU or machine").
# Installs Debian's nats-server (bookworm: 2.9.10) when it is missing and this runs as root on Debian, then runs it in
# the foreground on 127.0.0.1 (or --host) with JetStream storing under a fresh temporary folder (or --store), on a
# free port (or --port), after printing its URL on stdout. Ctrl-C (or SIGTERM) stops it; the temporary store is
# removed then.
#   scripts/nats-server.sh                         # loopback, free port: for one machine
#   scripts/nats-server.sh --host 0.0.0.0 --port 4222 --store /var/lib/treeline-nats -- --config server.conf
# Arguments after -- go to nats-server as they are (a config file with accounts, TLS: see the README).
set -euo pipefail

host=127.0.0.1
port=
store=
while [ $# -gt 0 ]; do
  case "$1" in
    --host) host="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --store) store="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "nats-server.sh: unknown argument '$1' (expected --host, --port, --store, or -- and nats-server's own)" >&2; exit 2 ;;
  esac
done

if ! command -v nats-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ] && command -v apt-get >/dev/null 2>&1; then
    echo "nats-server.sh: installing Debian's nats-server" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q nats-server >/dev/null
  else
    echo "nats-server.sh: nats-server is not installed (Debian: apt-get install nats-server; elsewhere see nats.io)." >&2
    exit 1
  fi
fi

if [ -z "$port" ]; then
  # A free port from the kernel (a race with other programs is possible but harmless: nats-server then fails loudly).
  port=$(node -e "const s=require('net').createServer().listen(0,'$host',()=>{console.log(s.address().port);s.close()})")
fi
cleanup=
if [ -z "$store" ]; then
  store=$(mktemp -d -t treeline-nats-XXXXXX)
  cleanup="$store"
fi
url_host="$host"
[ "$host" = 0.0.0.0 ] && url_host=$(hostname -f 2>/dev/null || hostname)
echo "nats://$url_host:$port"
server_pid=
stop() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$cleanup" ]; then rm -rf "$cleanup"; fi
  exit 0
}
trap stop INT TERM
nats-server -a "$host" -p "$port" -js -sd "$store" "$@" &
server_pid=$!
status=0
wait "$server_pid" || status=$?
if [ -n "$cleanup" ]; then rm -rf "$cleanup"; fi
exit $status
