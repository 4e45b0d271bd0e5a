#!/bin/sh
# Print the flags for link-time optimisation of the release binary (the
# Makefile's LTO_FLAGS), or nothing if the compiler cannot do it: GCC's
# -flto=auto with fat objects, which hold ordinary code as well as the
# compiler's intermediate code, so that the unit tests and numaload link
# the same objects without link-time optimisation.  The results are the
# same either way (IEEE arithmetic, no contraction under -std=c11); the
# binary is faster (cross-unit inlining on the hot paths).
# Usage: lto-flags.sh CC
cc=${1:-cc}
flags="-flto=auto -ffat-lto-objects"
dir=$(mktemp -d 2>/dev/null) || exit 0
trap 'rm -rf "$dir"' EXIT
printf 'int f(int x);\nint main(void) { return f(0); }\n' > "$dir/a.c"
printf 'int f(int x) { return x; }\n' > "$dir/b.c"
if $cc $flags -O2 -c "$dir/a.c" -o "$dir/a.o" 2>/dev/null &&
   $cc $flags -O2 -c "$dir/b.c" -o "$dir/b.o" 2>/dev/null &&
   ${AR:-ar} rcs "$dir/libb.a" "$dir/b.o" 2>/dev/null &&
   $cc $flags -O2 -o "$dir/lto" "$dir/a.o" "$dir/libb.a" 2>/dev/null &&
   $cc -O2 -o "$dir/plain" "$dir/a.o" "$dir/libb.a" 2>/dev/null; then
	echo "$flags"
fi
