#!/usr/bin/env bash
# The servers the tests talk to: PostgreSQL on 127.0.0.1:5432 (user postgres without a
# password, database test) and Redis on 127.0.0.1:6379.
#
#   services.sh packages     the Debian packages that starting the missing ones needs
#                            and that are not installed (none: prints nothing)
#   services.sh start DIR    check each server that listens; start each one that does not
#                            as a throwaway server of the distribution's packages, its data
#                            in DIR (an empty folder)
#   services.sh stop DIR     stop the servers started in DIR and remove DIR
#
# A server that cannot be had: one line on stderr saying what to do, exit status 1 (2 for
# a usage mistake).
# scripts/test.sh runs start and stop around the tests; tests/test_services.py runs them
# on spare ports (BODYGRAPH_TEST_PG_PORT, BODYGRAPH_TEST_REDIS_PORT) and PYTHON (default:
# .venv/bin/python, which has the tests' psycopg and redis) checks that a server answers.
set -euo pipefail
cd "$(dirname "$0")/.."
pg_port="${BODYGRAPH_TEST_PG_PORT:-5432}"
redis_port="${BODYGRAPH_TEST_REDIS_PORT:-6379}"
python="${PYTHON:-.venv/bin/python}"

fail() { echo "error: $*" >&2; exit 1; }
usage() { echo "usage: $*" >&2; exit 2; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pg_bin() { find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1; }
# PostgreSQL refuses to run as root: as root its commands run as the postgres user.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_answers() {
  "$python" -c 'import sys, psycopg; psycopg.connect(sys.argv[1], connect_timeout=10).close()' \
    "postgresql://postgres@127.0.0.1:$pg_port/test" 2>/dev/null
}
redis_answers() {
  "$python" -c 'import sys, redis; redis.Redis(port=int(sys.argv[1]), socket_timeout=10).ping()' \
    "$redis_port" 2>/dev/null
}

packages() {
  local wanted=()
  if ! listening "$pg_port" && [ -z "$(pg_bin)" ]; then wanted+=(postgresql); fi
  if ! listening "$redis_port" && ! command -v redis-server >/dev/null; then
    wanted+=(redis-server)
  fi
  if [ ${#wanted[@]} -gt 0 ]; then echo "${wanted[*]}"; fi
}

start_postgres() {
  local dir="$1" bin
  bin="$(pg_bin)"
  [ -n "$bin" ] || fail "nothing listens on 127.0.0.1:$pg_port and PostgreSQL is not" \
    "installed: apt-get install postgresql (as root), or start a server there with trust" \
    "auth for user postgres and a database named test"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || fail "PostgreSQL refuses to run as root and there is no" \
      "postgres user to run it as: apt-get install --reinstall postgresql-common"
    chmod 711 "$dir"
    runuser -u postgres -- test -x "$dir" || fail "the postgres user cannot reach $dir:" \
      "give a folder whose parents others may enter (such as one made by mktemp -d)"
  fi
  install -d -m 700 "$dir/postgres"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir/postgres"; fi
  echo "$bin" >"$dir/postgres.bin"
  echo "==> starting a throwaway PostgreSQL on 127.0.0.1:$pg_port (data in $dir)"
  as_postgres "$bin/initdb" -D "$dir/postgres/data" -U postgres --auth=trust --no-locale \
    -E UTF8 >"$dir/postgres/initdb.log" 2>&1 \
    || fail "initdb failed: $(tail -n 1 "$dir/postgres/initdb.log")"
  # fsync off: its data is thrown away at the end.
  as_postgres "$bin/pg_ctl" -D "$dir/postgres/data" -l "$dir/postgres/server.log" -w -t 120 \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $dir/postgres -c fsync=off" \
    start >/dev/null || fail "PostgreSQL did not start: $(tail -n 1 "$dir/postgres/server.log")"
  as_postgres "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres test
}

start_redis() {
  local dir="$1"
  command -v redis-server >/dev/null || fail "nothing listens on 127.0.0.1:$redis_port and" \
    "Redis is not installed: apt-get install redis-server (as root), or start one there"
  mkdir -p "$dir/redis"
  echo "==> starting a throwaway Redis on 127.0.0.1:$redis_port (data in $dir)"
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --dir "$dir/redis" --pidfile "$dir/redis/redis.pid" \
    --logfile "$dir/redis/redis.log" >/dev/null
  local tries=0
  until redis_answers; do
    tries=$((tries + 1))
    [ "$tries" -lt 120 ] || fail "Redis did not start: $(tail -n 1 "$dir/redis/redis.log")"
    sleep 0.5
  done
}

start() {
  local dir="$1"
  if listening "$pg_port"; then
    pg_answers || fail "the PostgreSQL on 127.0.0.1:$pg_port does not let user postgres into" \
      "database test without a password: allow trust auth for 127.0.0.1 and createdb test," \
      "or stop it to have the tests start their own"
    echo "==> PostgreSQL answers on 127.0.0.1:$pg_port"
  else
    start_postgres "$dir"
  fi
  if listening "$redis_port"; then
    redis_answers || fail "what listens on 127.0.0.1:$redis_port does not answer as Redis" \
      "does: stop it to have the tests start their own Redis"
    echo "==> Redis answers on 127.0.0.1:$redis_port"
  else
    start_redis "$dir"
  fi
}

stop() {
  local dir="$1"
  if [ -f "$dir/postgres.bin" ] && [ -f "$dir/postgres/data/postmaster.pid" ]; then
    as_postgres "$(cat "$dir/postgres.bin")/pg_ctl" -D "$dir/postgres/data" -m fast -w -t 120 \
      stop >/dev/null
  fi
  if [ -f "$dir/redis/redis.pid" ]; then
    local pid tries=0
    pid="$(cat "$dir/redis/redis.pid")"
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
      tries=$((tries + 1))
      [ "$tries" -lt 120 ] || fail "Redis (process $pid) did not stop"
      sleep 0.5
    done
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  packages) packages ;;
  start) [ -d "${2:-}" ] || usage "services.sh start DIR (an existing empty folder)"; start "$2" ;;
  stop) [ -n "${2:-}" ] || usage "services.sh stop DIR"; stop "$2" ;;
  *) usage "services.sh packages | start DIR | stop DIR" ;;
esac
