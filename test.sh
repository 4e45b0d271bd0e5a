#!/usr/bin/env bash
# Install missing Debian packages, build, run unit + end-to-end tests
# (release and ASan/UBSan).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
exec .ci/run "$@"
