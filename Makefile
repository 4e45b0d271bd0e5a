# numasim — GNU make build.
#
#   make                  build build/release/numasim (+ ./numasim symlink)
#   make test             build and run unit + end-to-end tests
#   make BUILD=asan test  same, with AddressSanitizer + UBSan (every UBSan check,
#                         also the ones -fsanitize=undefined leaves out)
#   make BUILD=debug test same, with CONFIG_DEBUG_VM: VM_BUG_ON and friends
#                         (src/include/linux/mmdebug.h) and the full-state
#                         checker (src/mm/debug.c) on in every run
#   make bench            run bench/run.sh if present
#   make clean            remove build/ and ./numasim

BUILD ?= release
CC    ?= cc
AR    ?= ar

BDIR := build/$(BUILD)

ifeq ($(BUILD),release)
  OPTFLAGS := -O2 -g
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

PKG_CFLAGS    := $(shell pkg-config --cflags inih jansson 2>/dev/null)
PKG_LIBS      := $(shell pkg-config --libs inih jansson 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

ifeq ($(filter clean,$(MAKECMDGOALS)),)
  ifneq ($(shell pkg-config --exists inih jansson cmocka && echo ok),ok)
    $(warning pkg-config cannot find inih/jansson/cmocka; run scripts/deps.sh)
  endif
endif

CFLAGS = -std=c11 $(OPTFLAGS) -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Isrc -Isrc/include $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lm -pthread

# Sanitizer builds: sanitizer flags are appended to both CFLAGS and LDFLAGS,
# even if CFLAGS/LDFLAGS are overridden on the command line.
ifneq ($(SANFLAGS),)
  override CFLAGS  += $(SANFLAGS)
  override LDFLAGS += $(OPTFLAGS) $(SANFLAGS)
endif

DEPFLAGS   := -MMD -MP
TEST_FLAGS := -Itests $(CMOCKA_CFLAGS)

# ---- sources -------------------------------------------------------------

MAIN_SRC := src/cli/main.c
ALL_SRCS := $(sort $(shell find src -name '*.c' 2>/dev/null))
LIB_SRCS := $(filter-out $(MAIN_SRC),$(ALL_SRCS))

LIB_OBJS := $(patsubst %.c,$(BDIR)/%.o,$(LIB_SRCS))
MAIN_OBJ := $(BDIR)/src/cli/main.o
LIB      := $(BDIR)/libnumasim.a
BIN      := $(BDIR)/numasim

TEST_SRCS   := $(sort $(wildcard tests/unit/test_*.c))
HELPER_SRCS := $(sort $(wildcard tests/unit/helpers/*.c))
TEST_OBJS   := $(patsubst %.c,$(BDIR)/%.o,$(TEST_SRCS))
HELPER_OBJS := $(patsubst %.c,$(BDIR)/%.o,$(HELPER_SRCS))
TEST_BINS   := $(patsubst tests/unit/%.c,$(BDIR)/tests/%,$(TEST_SRCS))

ALL_OBJS := $(LIB_OBJS) $(MAIN_OBJ) $(TEST_OBJS) $(HELPER_OBJS)
DEPS     := $(ALL_OBJS:.o=.d)

# Rebuild everything when the compiler/flags change (e.g. CFLAGS=... on the
# command line). The stamp is only rewritten when its content differs.
FLAGS_STAMP := $(BDIR)/.flags
FLAGS_LINE   = $(CC) | $(CFLAGS) | $(LDFLAGS) | $(LDLIBS) | $(TEST_FLAGS) | $(CMOCKA_LIBS)

# ---- targets -------------------------------------------------------------

.PHONY: all test bench clean FORCE
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

ifeq ($(BUILD),release)
all: $(BIN) numasim

numasim: $(BIN)
	ln -sfn $(BIN) $@
else
all: $(BIN)
endif

$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@printf '%s\n' '$(FLAGS_LINE)' | cmp -s - $@ || printf '%s\n' '$(FLAGS_LINE)' > $@

$(LIB_OBJS) $(MAIN_OBJ): $(BDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(TEST_OBJS) $(HELPER_OBJS): $(BDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TEST_FLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(BIN): $(MAIN_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIB) $(LDLIBS)

$(TEST_BINS): $(BDIR)/tests/%: $(BDIR)/tests/unit/%.o $(HELPER_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(HELPER_OBJS) $(LIB) $(LDLIBS) $(CMOCKA_LIBS)

test: all $(TEST_BINS)
	$(RUN_ENV) bash scripts/run-tests.sh $(BDIR)

bench: all
	@if [ -f bench/run.sh ]; then \
		NUMASIM="$(abspath $(BIN))" bash bench/run.sh; \
	else \
		echo "no benchmarks yet"; \
	fi

clean:
	rm -rf build
	rm -f numasim

-include $(DEPS)
