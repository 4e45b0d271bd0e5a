#!/usr/bin/env bash
# Install the missing Debian packages the build and the run need (only
# those: the test packages come with ./test.sh, scripts/deps.sh --test),
# build, run the seed scenario on v7.3 (counters), then the seed table: v7.3
# vs v7.3+single-folio-v2, three A/B pairs of 180 s each, next to the
# published figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
scripts/deps.sh
make -j2
echo "== numasim run seed (v7.3, 180 s simulated)"
./numasim run seed "$@"
echo
echo "== numasim ab seed --kernels v7.3,v7.3+single-folio-v2 --pairs 3"
./numasim ab seed --kernels v7.3,v7.3+single-folio-v2 --pairs 3 "$@"
cat <<'NEXT'

Where to look next:
  docs/calibration.md   how the table is made, every parameter, what is not reached
  docs/model.md         the modelled kernel paths and what they leave out
  numasim kernels       bases and patches;  numasim show seed   the scenario file
  numasim ab seed --kernels v7.3,v7.3+flush-side,v5.15 --pairs 3
NEXT
