# Sourced by the shell tests that start a redis-server of their own (tests/cli/*-test):
#
#   port=$(start_redis_server DIR [redis-server arguments...]) || exit 1
#   ... ; stop_redis_server DIR "$port"
#
# The server runs daemonized on a free loopback port, with its pid in DIR/redis-PORT.pid and its
# log in DIR/redis-PORT.log. A port taken between asking for it and binding it makes it try
# another; a server that has not answered after 10 s (a busy machine starts slowly, an idle one
# in 50 ms) is given up with its log on stderr, so that a failure says why. The server that
# answers must be the one started (INFO's process_id is the pid file's): another test's server
# on the same port answers PING too.

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
      reply=$(redis-cli -p "$port" info server 2>&1 | tr -d '\r')
      case "$reply" in
        *"process_id:$(cat "$pidfile" 2>/dev/null)"$'\n'* | *NOAUTH*)
          if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
            echo "$port"
            return 0
          fi
          ;;
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

# Stops the server started in DIR on PORT and waits (up to 5 s) until it has exited: a test that
# removes DIR right after must not race the server's last writes into it.
stop_redis_server() {
  stop_redis_pid "$(cat "$1/redis-$2.pid" 2>/dev/null)"
}

stop_redis_pid() {
  local pid=$1
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null || true
}
