# detach LOG COMMAND [ARG…] — starts COMMAND as a daemon that outlives the calling script, and prints
# nothing; its pid is in $! afterwards, as with `&`.
#
# The daemon gets only what a daemon needs: a session of its own (setsid), stdin from /dev/null, stdout
# and stderr appended to LOG, and no other descriptor of ours. That last part is the point: a starter
# script is typically read through a pipe (`addr=$(scripts/docker-engine)`, or a spawn that waits for
# stdout to close), and a daemon holding any copy of that pipe — fd 1, or fd 3 where the script keeps its
# answer — keeps the reader waiting until the daemon exits. Every fd above 2 is closed, so a descriptor
# added later to the script cannot leak either.
detach() {
  local log=$1
  shift
  (
    local fd
    for fd in /proc/"$BASHPID"/fd/*; do
      fd=${fd##*/}
      if ((fd > 2)); then exec {fd}>&-; fi
    done 2>/dev/null
    exec setsid "$@" </dev/null >>"$log" 2>&1
  ) &
}
