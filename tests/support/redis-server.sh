# Sourced by the shell tests that start a redis-server of their own (tests/cli/*-test):
#
#   port=$(start_redis_server DIR [redis-server arguments...]) || exit 1
#   ... ; kill "$(cat DIR/redis-$port.pid)"
#
# The server runs daemonized on a free loopback port, with its pid in DIR/redis-PORT.pid and its
# log in DIR/redis-PORT.log. A port taken between asking for it and binding it makes it try
# another; a server that has not answered after 10 s (a busy machine starts slowly, an idle one
# in 50 ms) is given up with its log on stderr, so that a failure says why.

# A port nobody listens on now, from the kernel (bind to port 0).
free_loopback_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_redis_server() {
  local dir=$1 port log pidfile reply
  shift
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    port=$(free_loopback_port) || return 1
    pidfile="$dir/redis-$port.pid"
    log="$dir/redis-$port.log"
    if ! redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
      --daemonize yes --pidfile "$pidfile" --logfile "$log" "$@" >"$log.start" 2>&1; then
      echo "redis-server $* would not start:" >&2 # a bad argument, not a taken port
      cat "$log.start" "$log" >&2 2>/dev/null
      return 1
    fi
    for _ in $(seq 200); do
      reply=$(redis-cli -p "$port" ping 2>&1)
      case "$reply" in
        PONG | *NOAUTH*) echo "$port"; return 0 ;;
      esac
      grep -q "Address already in use" "$log" 2>/dev/null && break # taken: another port
      sleep 0.05
    done
    grep -q "Address already in use" "$log" 2>/dev/null && continue
    echo "redis-server on 127.0.0.1:$port did not answer within 10 s ($reply); its log:" >&2
    cat "$log" >&2 2>/dev/null
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    return 1
  done
  echo "redis-server found no free loopback port in 10 tries; the last log:" >&2
  cat "$log" >&2 2>/dev/null
  return 1
}
