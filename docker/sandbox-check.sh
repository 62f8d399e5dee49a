#!/bin/sh
# The image's entry (before the App server or `slopgate worker`): checks that bubblewrap can create
# the test sandbox in this container, then runs the command. When it cannot, it says in one line which
# `docker run` option is missing and exits 2: every PR with tests would otherwise be blocked as
# "not about your code". SLOPGATE_SANDBOX_CHECK=off skips the check (for a deployment that runs no
# tests on purpose: tests.enabled false in every repository's config).
# SLOPGATE_CHECK_PROC and SLOPGATE_CHECK_BWRAP exist for the test of this script only.
set -u
proc=${SLOPGATE_CHECK_PROC:-/proc}
bwrap=${SLOPGATE_CHECK_BWRAP:-bwrap}

if [ "${SLOPGATE_SANDBOX_CHECK:-on}" != off ]; then
  if ! said=$("$bwrap" --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp true 2>&1); then
    said=$(printf '%s\n' "$said" | head -n 1)
    missing=''
    # Docker's default seccomp profile refuses the namespaces bwrap creates.
    if grep -Eq '^Seccomp:[[:space:]]*2' "$proc/self/status" 2>/dev/null; then
      missing="$missing --security-opt seccomp=unconfined"
    fi
    # Docker's AppArmor profile (docker-default) keeps the user namespace from being set up.
    profile=$(tr -d '\000' 2>/dev/null < "$proc/self/attr/current" || true)
    case "$profile" in
      '' | unconfined*) ;;
      *) missing="$missing --security-opt apparmor=unconfined" ;;
    esac
    # Docker masks parts of /proc (/proc/kcore, /proc/keys, ...), and the kernel then refuses the fresh /proc.
    if grep -Eq '^[0-9]+ [0-9]+ [0-9]+:[0-9]+ [^ ]+ /proc/[^ ]+ ' "$proc/self/mountinfo" 2>/dev/null; then
      missing="$missing --security-opt systempaths=unconfined"
    fi
    if [ -n "$missing" ]; then
      echo "slopgate: the test sandbox cannot start in this container: run it with$missing (bwrap: $said)" >&2
    elif [ "$(cat "$proc/sys/user/max_user_namespaces" 2>/dev/null)" = 0 ]; then
      echo "slopgate: the test sandbox cannot start: the host allows no user namespaces; set sysctl user.max_user_namespaces above 0 on the host (bwrap: $said)" >&2
    elif [ "$(cat "$proc/sys/kernel/unprivileged_userns_clone" 2>/dev/null)" = 0 ]; then
      echo "slopgate: the test sandbox cannot start: the host forbids unprivileged user namespaces; set sysctl kernel.unprivileged_userns_clone=1 on the host (bwrap: $said)" >&2
    else
      echo "slopgate: the test sandbox cannot start in this container (bwrap: $said); see docs/security.md (Containers), or set SLOPGATE_SANDBOX_CHECK=off to start without it" >&2
    fi
    exit 2
  fi
fi
exec "$@"
