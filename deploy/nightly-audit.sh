#!/bin/sh
# The nightly audit, acting on alc-dask's exit codes (see `alc-dask --help`):
#   3 (scenarios failed) and 5 (cluster unavailable) may pass later: retried, RETRIES times, RETRY_AFTER seconds apart;
#   4 (the release is flagged) and 1, 2 (a bug, bad input) are not retried.
# It exits with the audit's last code, so cron's mail, systemd's OnFailure= and alerting see it.
#
# Usage: deploy/nightly-audit.sh JOB [alc-dask audit options]
# Environment: ALC_DASK (default: .venv/bin/alc-dask), RETRIES (default: 2), RETRY_AFTER (default: 600).
set -u
alc_dask=${ALC_DASK:-.venv/bin/alc-dask}
retries=${RETRIES:-2}
retry_after=${RETRY_AFTER:-600}
tries=0
while :; do
    "$alc_dask" audit "$@"
    code=$?
    case $code in
        3 | 5) [ "$tries" -lt "$retries" ] || break ;;
        *) break ;;
    esac
    tries=$((tries + 1))
    echo "alc-dask audit exited $code (3: scenarios failed, 5: cluster unavailable); retry $tries of $retries in ${retry_after}s" >&2
    sleep "$retry_after"
done
case $code in
    0) ;;
    4) echo "ALERT: the audit flagged the release (exit 4): an evaluation flagged, or worse than before; see its report" >&2 ;;
    3 | 5) echo "alc-dask audit still failing after $retries retries (exit $code)" >&2 ;;
    *) echo "alc-dask audit could not run (exit $code: 1 internal error, 2 bad input, 130 interrupted)" >&2 ;;
esac
exit "$code"
