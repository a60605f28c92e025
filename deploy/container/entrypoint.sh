#!/bin/sh
# The image's entry point (deploy/container/Containerfile): which process of the compiled build
# this container runs. Node replaces this shell (exec), so it is PID 1 and receives SIGTERM itself:
# the gateway drains in-flight requests, the worker lets running jobs finish, both exit 0.
#
#   gateway                 HTTP (PORT, 8080 by default)
#   worker                  jobs, schedules, chain watchers (/healthz on WORKER_PORT when set)
#   migrate                 applies pending migrations and exits (`gateway db migrate`)
#   cli <command…>          the operator CLI, e.g. `cli project list`
#   anything else           run as given (e.g. `sh`)
set -eu
cd /app
[ "$#" -gt 0 ] || set -- gateway
role=$1
shift
case "$role" in
  gateway) exec node --enable-source-maps apps/gateway/dist/main.js "$@" ;;
  worker) exec node --enable-source-maps apps/worker/dist/main.js "$@" ;;
  migrate) exec node --enable-source-maps apps/cli/dist/main.js db migrate "$@" ;;
  cli) exec node --enable-source-maps apps/cli/dist/main.js "$@" ;;
  *) exec "$role" "$@" ;;
esac
