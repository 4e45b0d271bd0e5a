#!/usr/bin/env bash
# The whole CI (.ci/run): install the missing Debian packages (with the test
# packages), then unit + end-to-end tests in the release and ASan/UBSan
# builds, the real-kernel smoke check under qemu, the debug build's
# invariant tests, the fuzzers for 10 s each and make install.  The make
# test stages run nproc tests at a time: on a shared 2-core VM with the
# builds up to date, release 105-119 s, ASan 331-356 s, debug 46 s (README.md);
# 'make test' alone is the quick release unit + e2e run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
exec .ci/run "$@"
