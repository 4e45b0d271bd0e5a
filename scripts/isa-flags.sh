#!/bin/sh
# Print the compiler flags for the bit instructions the build machine has
# (the Makefile's ISA_FLAGS): -mpopcnt, -mbmi (blsr, blsi, andn, tzcnt: the
# CPU mask walks and the Fenwick updates), and -mbmi2 for pdep, on x86-64
# only.
# AMD family 17h (Zen 1 and 2) runs pdep in microcode, slower than the
# broadword select, so it gets popcnt alone.  src/include/linux/bitops.h
# gives the same answers either way.
# Usage: isa-flags.sh CC
cc=${1:-cc}
case $($cc -dumpmachine 2>/dev/null) in
x86_64*) ;;
*) exit 0 ;;
esac
[ -r /proc/cpuinfo ] || exit 0
flags=$(grep -m1 '^flags' /proc/cpuinfo)
case " $flags " in *" popcnt "*) ;; *) exit 0 ;; esac
out=-mpopcnt
case " $flags " in *" bmi1 "*) out="$out -mbmi" ;; esac
family=$(grep -m1 '^cpu family' /proc/cpuinfo | tr -dc 0-9)
vendor=$(grep -m1 '^vendor_id' /proc/cpuinfo)
case " $flags " in
*" bmi2 "*)
	case $vendor in
	*AuthenticAMD*) [ "$family" = 23 ] || out="$out -mbmi2" ;;
	*) out="$out -mbmi2" ;;
	esac ;;
esac
echo "$out"
