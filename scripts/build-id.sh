#!/bin/sh
# The build's identity, for numasim --version, every result JSON, trace and
# sweep point: `git describe --always --dirty` in a git checkout (a commit,
# with "-dirty" when the tree has uncommitted changes), else "src-" and a
# hash of the sources (a tarball).  One line, of [A-Za-z0-9._+-] only.
cd "$(dirname "$0")/.." || exit 1
id=
if command -v git > /dev/null 2>&1 && git rev-parse --git-dir > /dev/null 2>&1; then
    id=$(git describe --always --dirty --abbrev=12 2>/dev/null)
fi
if [ -z "$id" ]; then
    # no git: the sources' contents, in a fixed order
    id=src-$(find src tools Makefile -type f \( -name '*.c' -o -name '*.h' -o -name Makefile \) \
        2>/dev/null | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
fi
printf '%s\n' "$id" | tr -cd 'A-Za-z0-9._+\n-' | head -n 1
