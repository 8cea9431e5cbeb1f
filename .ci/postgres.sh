#!/usr/bin/env bash
# A throwaway PostgreSQL server (Debian's `postgresql` package) for the tests.
#   .ci/postgres.sh start DIR   install the package if missing, make a cluster in DIR, start it
#                               on a unix socket in DIR (no TCP), create database gradwalk_test,
#                               and print its SQLAlchemy URL (for GRADWALK_TEST_POSTGRES_URL)
#   .ci/postgres.sh stop DIR    stop it and remove DIR
# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user that the
# package creates; as any other user it runs as that user. Trust authentication: the socket is
# the only way in.
set -euo pipefail
cmd=${1:?usage: $0 start|stop DIR}
dir=${2:?usage: $0 start|stop DIR}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && echo "$d"
}

install() {
  bindir >/dev/null && return
  echo "postgres.sh: installing Debian's postgresql" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
  fi
}

case "$cmd" in
start)
  install
  bin=$(bindir)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=on" >/dev/null
  as_owner "$bin/createdb" -h "$dir" -U postgres gradwalk_test
  echo "postgresql+psycopg://postgres@/gradwalk_test?host=$dir"
  ;;
stop)
  bin=$(bindir) || exit 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
