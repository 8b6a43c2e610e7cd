#!/usr/bin/env bash
# A throwaway PostgreSQL server for the Postgres tests and CI: a fresh cluster in a folder
# of its own, listening only on 127.0.0.1 (a free port from 55432 up) and on a unix socket
# in that folder, trust authentication, fsync off. Nothing of the machine's own PostgreSQL
# is used or changed.
#
#   url=$(Scripts/postgres-server.sh start /tmp/roster-pg)
#   ROSTER_POSTGRES_URL=$url swift test --filter Postgres
#   Scripts/postgres-server.sh stop /tmp/roster-pg
#
# `start DIR` makes the cluster in DIR (which must be missing or empty), superuser `roster`,
# database `roster_test` owned by it, and prints one line on standard output, the URL
# postgresql://roster@127.0.0.1:PORT/roster_test. The server's log is DIR/server.log; when
# the server cannot start, its tail goes to standard error and the status is non-zero.
# `stop DIR` stops the server (fast shutdown) and removes DIR. `restart DIR` restarts it on
# the same port, for tests of clients that live through a restart.
#
# The binaries are found with `pg_config --bindir`, else in the highest
# /usr/lib/postgresql/*/bin, else on PATH (Debian: `apt-get install postgresql`). initdb
# refuses to run as root, so under root the cluster belongs to the `postgres` user (or
# `nobody` where there is none): DIR's parent folders must be searchable by it (/tmp is).
set -euo pipefail

usage() {
  echo "usage: $0 start DIR | stop DIR | restart DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
command="$1"
dir="$2"
[ -n "$dir" ] || usage

# runuser is in /usr/sbin, which a non-login PATH may lack.
PATH="$PATH:/usr/sbin:/sbin"
# The caller's PG* settings (PGHOST, PGPORT, PGDATABASE, …) must not steer the tools here.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^PG' || true)

first_port=55432
last_port=55531
timeout_seconds=30
marker=".roster-postgres-server"

# The folder holding initdb, pg_ctl, pg_isready and createdb.
find_bindir() {
  local candidate
  if command -v pg_config >/dev/null 2>&1; then
    candidate="$(pg_config --bindir 2>/dev/null || true)"
    if [ -n "$candidate" ] && [ -x "$candidate/initdb" ]; then
      echo "$candidate"
      return
    fi
  fi
  candidate="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [ -n "$candidate" ] && [ -x "$candidate/initdb" ]; then
    echo "$candidate"
    return
  fi
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
    return
  fi
  echo "postgres-server: no initdb found (pg_config --bindir, /usr/lib/postgresql/*/bin, PATH);" \
    "on Debian: apt-get install postgresql" >&2
  exit 1
}

# Runs a command as the cluster's owner: `$owner` under root, else the caller.
as_owner() {
  if [ -n "$owner" ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

# The tail of the server's log, on standard error.
print_log_tail() {
  if [ -f "$dir/server.log" ]; then
    echo "postgres-server: the last lines of $dir/server.log:" >&2
    tail -n 40 "$dir/server.log" | cut -c1-400 >&2
  fi
}

start() {
  # Globals, not locals: the EXIT trap below reads them.
  bindir="$(find_bindir)"
  data=""

  close_inherited_descriptors

  owner=""
  if [ "$(id -u)" -eq 0 ]; then
    if id -u postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
  fi

  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd -P)"
  if [ -n "$(ls -A "$dir")" ]; then
    echo "postgres-server: $dir is not empty (a cluster already there? '$0 stop $dir' first)" >&2
    exit 1
  fi
  touch "$dir/$marker" "$dir/server.log"
  if [ -n "$owner" ]; then
    chown "$owner": "$dir" "$dir/server.log"
  fi
  chmod 700 "$dir"
  # The owner's tools would otherwise complain that they cannot enter the caller's folder.
  cd /
  if ! as_owner test -w "$dir" -a -x "$dir"; then
    echo "postgres-server: the user '$owner' cannot reach $dir: its parent folders must be" \
      "searchable by others (a folder under /tmp is)" >&2
    exit 1
  fi

  # From here on, a failure prints the log's tail and leaves no server running.
  data="$dir/data"
  trap 'status=$?; if [ $status -ne 0 ]; then print_log_tail; as_owner "$bindir/pg_ctl" stop -D "$data" -m immediate >/dev/null 2>&1 || true; fi' EXIT

  if ! as_owner "$bindir/initdb" -D "$data" --auth=trust --encoding=UTF8 --locale=C -U roster \
      --no-sync >>"$dir/server.log" 2>&1; then
    echo "postgres-server: initdb failed" >&2
    exit 1
  fi
  # A single-quoted setting: backslashes and quotes doubled.
  local socket_dir="${dir//\\/\\\\}"
  socket_dir="${socket_dir//\'/\'\'}"
  cat >>"$data/postgresql.conf" <<EOF

# Scripts/postgres-server.sh: a throwaway test server.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$socket_dir'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF

  # Tries ports from $first_port up: one with a listener is skipped, and one taken by
  # another server starting at the same moment fails the bind, so the next is tried.
  local deadline=$((SECONDS + timeout_seconds))
  local port="" candidate offset
  for ((candidate = first_port; candidate <= last_port; candidate++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then continue; fi
    [ $SECONDS -lt $deadline ] || break
    offset=$(wc -c <"$dir/server.log")
    if as_owner "$bindir/pg_ctl" start -D "$data" -l "$dir/server.log" -w -t $((deadline - SECONDS)) \
        -o "-p $candidate" >>"$dir/server.log" 2>&1; then
      port=$candidate
      break
    fi
    if tail -c +$((offset + 1)) "$dir/server.log" | grep -q -e 'Address already in use' \
        -e 'could not create any TCP/IP sockets'; then
      continue
    fi
    echo "postgres-server: the server did not start" >&2
    exit 1
  done
  if [ -z "$port" ]; then
    echo "postgres-server: no free port in $first_port-$last_port within $timeout_seconds s" >&2
    exit 1
  fi

  until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U roster -d postgres -t 1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "postgres-server: pg_isready: not ready on 127.0.0.1:$port after $timeout_seconds s" >&2
      exit 1
    fi
    sleep 0.1
  done
  if ! "$bindir/createdb" -h 127.0.0.1 -p "$port" -U roster -O roster roster_test >>"$dir/server.log" 2>&1; then
    echo "postgres-server: createdb roster_test failed" >&2
    exit 1
  fi
  echo "postgresql://roster@127.0.0.1:$port/roster_test"
}

stop() {
  [ -d "$dir" ] || return 0
  dir="$(cd "$dir" && pwd -P)"
  if [ ! -e "$dir/$marker" ]; then
    if [ -z "$(ls -A "$dir")" ]; then
      rmdir "$dir"
      return 0
    fi
    echo "postgres-server: $dir was not made by '$0 start'; not removing it" >&2
    exit 1
  fi
  cd /
  local data="$dir/data"
  if [ -f "$data/postmaster.pid" ]; then
    owner=""
    if [ "$(id -u)" -eq 0 ]; then owner="$(stat -c %U "$data")"; fi
    local bindir
    bindir="$(find_bindir)"
    if ! as_owner "$bindir/pg_ctl" stop -D "$data" -m fast -w -t "$timeout_seconds" >/dev/null 2>&1; then
      echo "postgres-server: a fast stop failed; stopping immediately" >&2
      as_owner "$bindir/pg_ctl" stop -D "$data" -m immediate -w >/dev/null 2>&1 || true
    fi
  fi
  rm -rf "$dir"
}

# The server outlives this script, so it must not inherit the caller's descriptors beyond
# 0-2: a caller waiting for one to close (Foundation's Process watches a socket its child
# inherits; a pipe read to its end) would wait for the server to stop. 255 is bash's own,
# reading this script.
close_inherited_descriptors() {
  local fd_path fd
  for fd_path in /dev/fd/*; do
    fd="${fd_path##*/}"
    case "$fd" in
      0 | 1 | 2 | 255 | *[!0-9]*) ;;
      *) eval "exec $fd>&-" 2>/dev/null || true ;;
    esac
  done
}

# Restarts the server in DIR on the same port (pg_ctl keeps the options it started with):
# what a test of clients that live through a server restart needs.
restart() {
  dir="$(cd "$dir" && pwd -P)"
  [ -e "$dir/$marker" ] || { echo "postgres-server: $dir was not made by '$0 start'" >&2; exit 1; }
  cd /
  local data="$dir/data"
  owner=""
  if [ "$(id -u)" -eq 0 ]; then owner="$(stat -c %U "$data")"; fi
  local bindir
  bindir="$(find_bindir)"
  close_inherited_descriptors
  if ! as_owner "$bindir/pg_ctl" restart -D "$data" -l "$dir/server.log" -m fast -w -t "$timeout_seconds" >>"$dir/server.log" 2>&1; then
    echo "postgres-server: the server did not restart" >&2
    print_log_tail
    exit 1
  fi
}

case "$command" in
  start) start ;;
  stop) stop ;;
  restart) restart ;;
  *) usage ;;
esac
