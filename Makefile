# numasim — GNU make build.
#
#   make                  build build/release/numasim (+ ./numasim symlink) and numaload
#                         (build/release/numaload, numaload-static for the realcheck guest)
#   make test             build and run unit + end-to-end tests (needs the test
#                         packages: scripts/deps.sh --test)
#   make BUILD=asan test  same, with AddressSanitizer + UBSan (every UBSan check,
#                         also the ones -fsanitize=undefined leaves out)
#   make BUILD=debug test same, with CONFIG_DEBUG_VM: VM_BUG_ON and friends
#                         (src/include/linux/mmdebug.h) and the full-state
#                         checker (src/mm/debug.c) on in every run
#   make bench            run bench/run.sh if present
#   make realcheck        numaload and numasim side by side on Debian's 6.1 and 6.12
#                         kernels under qemu (scripts/realcheck.sh, docs/realcheck.md)
#   make install          install numasim, numaload, their man pages (help2man:
#                         scripts/deps.sh --man) and numasim's bash completion
#                         under PREFIX (default /usr/local; DESTDIR for staging)
#   make man              build/numasim.1, from the --help texts (help2man)
#   make fuzz             run the libFuzzer harnesses (FUZZ_TIME s each)
#   make clean            remove build/ and ./numasim

BUILD ?= release
CC    ?= cc
AR    ?= ar

BDIR := build/$(BUILD)

ifeq ($(BUILD),release)
  # -O3: the same results (it takes no floating-point licence: inlining,
  # unrolling and vectorisation, no reassociation or contraction; every
  # built-in scenario's output checked byte for byte against -O2's), and
  # for the seed run 4.6% fewer instructions (callgrind: 5.21 G -> 4.97 G;
  # --exact 16.07 G -> 15.46 G) and 5-6% less CPU time in both modes.
  OPTFLAGS := -O3 -g
  SANFLAGS :=
  RUN_ENV  :=
else ifeq ($(BUILD),asan)
  # -fsanitize=undefined leaves out float-cast-overflow, float-divide-by-zero
  # and bounds-strict (gcc's SANITIZE_UNDEFINED_NONDEFAULT): add them.
  SANFLAGS := -fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero,bounds-strict \
              -fno-omit-frame-pointer -fno-sanitize-recover=all
  OPTFLAGS := -O1 -g
  RUN_ENV  := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else ifeq ($(BUILD),debug)
  # CONFIG_DEBUG_VM: the invariant checks run in every run (see docs/model.md,
  # "Invariants").
  OPTFLAGS := -O1 -g -DCONFIG_DEBUG_VM
  SANFLAGS :=
  RUN_ENV  :=
else
  $(error unknown BUILD '$(BUILD)' (use BUILD=release, BUILD=asan or BUILD=debug))
endif

PKG_CFLAGS    := $(shell pkg-config --cflags inih jansson zlib 2>/dev/null)
PKG_LIBS      := $(shell pkg-config --libs inih jansson zlib 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)
NUMA_LIBS     := $(shell pkg-config --libs numa 2>/dev/null || echo -lnuma)

# Building needs inih, jansson, zlib and numa; only the unit tests ('make
# test') need cmocka, which 'scripts/deps.sh --test' installs.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
  ifneq ($(shell pkg-config --exists inih jansson zlib numa && echo ok),ok)
    $(warning pkg-config cannot find inih/jansson/zlib/numa; run scripts/deps.sh)
  endif
  ifneq ($(filter test,$(MAKECMDGOALS)),)
    ifneq ($(shell pkg-config --exists cmocka && echo ok),ok)
      $(error make test: pkg-config cannot find cmocka (the unit tests' library); run scripts/deps.sh --test)
    endif
  endif
endif

# Bit instructions for the touch model's page selection (linux/bitops.h):
# popcnt, BMI1 and BMI2's pdep where the build machine has them
# (scripts/isa-flags.sh).  The answers are the same without them: build a
# binary for another machine with ISA_FLAGS= (empty).
ifeq ($(origin ISA_FLAGS),undefined)
  ISA_FLAGS := $(shell sh scripts/isa-flags.sh $(CC))
endif

# Link-time optimisation of the release binary (scripts/lto-flags.sh), where
# the compiler can: objects carry both intermediate and ordinary code, so
# the unit tests and numaload link them as usual.  Same results, fewer
# instructions (calls across units inlined on the hot paths).  LTO_FLAGS=
# (empty) turns it off.
ifeq ($(BUILD),release)
  ifeq ($(origin LTO_FLAGS),undefined)
    LTO_FLAGS := $(shell sh scripts/lto-flags.sh $(CC))
  endif
else
  LTO_FLAGS :=
endif

CFLAGS = -std=c11 $(OPTFLAGS) $(ISA_FLAGS) -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Isrc -Isrc/include $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lm -pthread

# Sanitizer builds: sanitizer flags are appended to both CFLAGS and LDFLAGS,
# even if CFLAGS/LDFLAGS are overridden on the command line.
ifneq ($(SANFLAGS),)
  override CFLAGS  += $(SANFLAGS)
  override LDFLAGS += $(OPTFLAGS) $(SANFLAGS)
endif

DEPFLAGS   := -MMD -MP
TEST_FLAGS := -Itests -Itools $(CMOCKA_CFLAGS)

# ---- sources -------------------------------------------------------------

MAIN_SRC := src/cli/main.c
ALL_SRCS := $(sort $(shell find src -name '*.c' 2>/dev/null))
LIB_SRCS := $(filter-out $(MAIN_SRC),$(ALL_SRCS))

LIB_OBJS := $(patsubst %.c,$(BDIR)/%.o,$(LIB_SRCS))
MAIN_OBJ := $(BDIR)/src/cli/main.o
LIB      := $(BDIR)/libnumasim.a
BIN      := $(BDIR)/numasim

# numaload (tools/numaload/): its own objects and archive, linked against
# libnumasim for the scenario parser; not part of src/'s glob.
NL_MAIN     := tools/numaload/numaload.c
NL_SRCS     := $(filter-out $(NL_MAIN),$(sort $(wildcard tools/numaload/*.c)))
NL_OBJS     := $(patsubst %.c,$(BDIR)/%.o,$(NL_SRCS))
NL_MAIN_OBJ := $(BDIR)/tools/numaload/numaload.o
NL_LIB      := $(BDIR)/libnumaload.a
NUMALOAD    := $(BDIR)/numaload
# A static numaload for the realcheck guest's initramfs (release only).
NUMALOAD_STATIC := $(BDIR)/numaload-static
STATIC_LIBS := -l:libinih.a -l:libjansson.a -l:libnuma.a -l:libz.a -lm -pthread

TEST_SRCS   := $(sort $(wildcard tests/unit/test_*.c))
HELPER_SRCS := $(sort $(wildcard tests/unit/helpers/*.c))
TEST_OBJS   := $(patsubst %.c,$(BDIR)/%.o,$(TEST_SRCS))
HELPER_OBJS := $(patsubst %.c,$(BDIR)/%.o,$(HELPER_SRCS))
TEST_BINS   := $(patsubst tests/unit/%.c,$(BDIR)/tests/%,$(TEST_SRCS))

ALL_OBJS := $(LIB_OBJS) $(MAIN_OBJ) $(TEST_OBJS) $(HELPER_OBJS) $(NL_OBJS) $(NL_MAIN_OBJ)
DEPS     := $(ALL_OBJS:.o=.d)

# Rebuild everything when the compiler/flags change (e.g. CFLAGS=... on the
# command line). The stamp is only rewritten when its content differs.
FLAGS_STAMP := $(BDIR)/.flags
FLAGS_LINE   = $(CC) | $(CFLAGS) | $(LTO_FLAGS) | $(LDFLAGS) | $(LDLIBS) | $(TEST_FLAGS) | $(CMOCKA_LIBS) | $(NUMA_LIBS)

# ---- targets -------------------------------------------------------------

.PHONY: all test bench realcheck clean FORCE install man
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

ifeq ($(BUILD),release)
all: $(BIN) numasim $(NUMALOAD) $(NUMALOAD_STATIC)

numasim: $(BIN)
	ln -sfn $(BIN) $@
else
all: $(BIN) $(NUMALOAD)
endif

$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(FLAGS_LINE)' | cmp -s - $@ || printf '%s\n' '$(FLAGS_LINE)' > $@

# The build identity (scripts/build-id.sh: git describe, or a hash of the
# sources): only src/lib/version.o carries it, rebuilt when it changes.
BUILD_ID := $(shell sh scripts/build-id.sh 2>/dev/null)
BUILD_ID_STAMP := $(BDIR)/.build_id

$(BUILD_ID_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(BUILD_ID)' | cmp -s - $@ || printf '%s\n' '$(BUILD_ID)' > $@

$(BDIR)/src/lib/version.o: $(BUILD_ID_STAMP)
$(BDIR)/src/lib/version.o: CFLAGS += -DNUMASIM_BUILD='"$(or $(BUILD_ID),unknown)"'

$(LIB_OBJS) $(MAIN_OBJ) $(NL_OBJS) $(NL_MAIN_OBJ): $(BDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LTO_FLAGS) $(DEPFLAGS) -c $< -o $@

$(TEST_OBJS) $(HELPER_OBJS): $(BDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TEST_FLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(BIN): $(MAIN_OBJ) $(LIB)
	+$(CC) $(LDFLAGS) $(if $(LTO_FLAGS),$(OPTFLAGS) $(ISA_FLAGS) $(LTO_FLAGS)) -o $@ $(MAIN_OBJ) $(LIB) $(LDLIBS)

$(NL_LIB): $(NL_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $(NL_OBJS)

$(NUMALOAD): $(NL_MAIN_OBJ) $(NL_LIB) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(NL_MAIN_OBJ) $(NL_LIB) $(LIB) $(LDLIBS) $(NUMA_LIBS)

$(NUMALOAD_STATIC): $(NL_MAIN_OBJ) $(NL_LIB) $(LIB)
	$(CC) $(LDFLAGS) -static -o $@ $(NL_MAIN_OBJ) $(NL_LIB) $(LIB) $(STATIC_LIBS)

$(TEST_BINS): $(BDIR)/tests/%: $(BDIR)/tests/unit/%.o $(HELPER_OBJS) $(NL_LIB) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(HELPER_OBJS) $(NL_LIB) $(LIB) $(LDLIBS) $(CMOCKA_LIBS) $(NUMA_LIBS)

test: all $(TEST_BINS)
	$(RUN_ENV) NUMALOAD="$(abspath $(NUMALOAD))" bash scripts/run-tests.sh $(BDIR)

# ---- fuzzing (libFuzzer, clang from Debian; tests/fuzz/README.md) ------------
#   make fuzz [FUZZ_TIME=S]   build the harnesses, run each for S seconds (60)

FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_DIR   := build/fuzz
FUZZ_SAN   := -fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero \
              -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -O1 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Isrc -Isrc/include \
              -Itests $(PKG_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_NAMES := scenario run results sweep_spec sweep_manifest
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(LIB_SRCS))
FUZZ_BINS  := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))
FUZZ_STAMP := $(FUZZ_DIR)/.flags

.PHONY: fuzz fuzz-build
ifneq ($(filter fuzz fuzz-build,$(MAKECMDGOALS)),)
  ifeq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
    $(error make fuzz: $(FUZZ_CC) not found; scripts/deps.sh --fuzz installs clang and its libFuzzer runtime)
  endif
endif
$(FUZZ_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS)' | cmp -s - $@ || printf '%s\n' '$(FUZZ_CC) $(FUZZ_CFLAGS)' > $@

$(FUZZ_LIB_OBJS): $(FUZZ_DIR)/%.o: %.c $(FUZZ_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_DIR)/tests/fuzz/%.o: tests/fuzz/%.c $(FUZZ_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_BINS): $(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	bash tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_DIR) $(FUZZ_NAMES)

-include $(FUZZ_LIB_OBJS:.o=.d) $(patsubst %,$(FUZZ_DIR)/tests/fuzz/fuzz_%.d,$(FUZZ_NAMES))

# ---- install ---------------------------------------------------------------

PREFIX ?= /usr/local
DESTDIR ?=
MAN := build/numasim.1
MAN_NL := build/numaload.1

$(MAN): $(BIN) scripts/mkman.sh
	bash scripts/mkman.sh $(BIN) $@

$(MAN_NL): $(NUMALOAD) scripts/mkman.sh
	bash scripts/mkman.sh $(NUMALOAD) $@

man: $(MAN) $(MAN_NL)

# bash-completion loads completions/numasim when 'numasim' is first completed
COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions

install: $(BIN) $(NUMALOAD) $(MAN) $(MAN_NL)
	install -d '$(DESTDIR)$(PREFIX)/bin' '$(DESTDIR)$(PREFIX)/share/man/man1' '$(DESTDIR)$(COMPLETION_DIR)'
	install -m 0755 $(BIN) '$(DESTDIR)$(PREFIX)/bin/numasim'
	install -m 0755 $(NUMALOAD) '$(DESTDIR)$(PREFIX)/bin/numaload'
	install -m 0644 $(MAN) '$(DESTDIR)$(PREFIX)/share/man/man1/numasim.1'
	install -m 0644 $(MAN_NL) '$(DESTDIR)$(PREFIX)/share/man/man1/numaload.1'
	install -m 0644 completion/numasim.bash '$(DESTDIR)$(COMPLETION_DIR)/numasim'

bench: all
	@if [ -f bench/run.sh ]; then \
		NUMASIM="$(abspath $(BIN))" bash bench/run.sh; \
	else \
		echo "no benchmarks yet"; \
	fi

realcheck:
	$(MAKE) BUILD=release all
	bash scripts/realcheck.sh

clean:
	rm -rf build
	rm -f numasim

-include $(DEPS)
