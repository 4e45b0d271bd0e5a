#!/usr/bin/env bash
# Install missing Debian packages, build, and run the seed scenario.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
scripts/deps.sh --optional || scripts/deps.sh
make -j2
exec ./numasim run seed "$@"
