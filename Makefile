# numasim — GNU make build.
#
#   make                  build build/release/numasim (+ ./numasim symlink) and numaload
#                         (build/release/numaload, numaload-static for the realcheck guest)
#   make test             build and run unit + end-to-end tests
#   make BUILD=asan test  same, with AddressSanitizer + UBSan
#   make bench            run bench/run.sh if present
#   make realcheck        numaload and numasim side by side on Debian's 6.1 and 6.12
#                         kernels under qemu (scripts/realcheck.sh, docs/realcheck.md)
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
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  OPTFLAGS := -O1 -g
  RUN_ENV  := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
  $(error unknown BUILD '$(BUILD)' (use BUILD=release or BUILD=asan))
endif

PKG_CFLAGS    := $(shell pkg-config --cflags inih jansson 2>/dev/null)
PKG_LIBS      := $(shell pkg-config --libs inih jansson 2>/dev/null)
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)
NUMA_LIBS     := $(shell pkg-config --libs numa 2>/dev/null || echo -lnuma)

ifeq ($(filter clean,$(MAKECMDGOALS)),)
  ifneq ($(shell pkg-config --exists inih jansson cmocka numa && echo ok),ok)
    $(warning pkg-config cannot find inih/jansson/cmocka/numa; run scripts/deps.sh)
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
STATIC_LIBS := -l:libinih.a -l:libjansson.a -l:libnuma.a -lm -pthread

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
FLAGS_LINE   = $(CC) | $(CFLAGS) | $(LDFLAGS) | $(LDLIBS) | $(TEST_FLAGS) | $(CMOCKA_LIBS) | $(NUMA_LIBS)

# ---- targets -------------------------------------------------------------

.PHONY: all test bench realcheck clean FORCE
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

$(LIB_OBJS) $(MAIN_OBJ) $(NL_OBJS) $(NL_MAIN_OBJ): $(BDIR)/%.o: %.c $(FLAGS_STAMP)
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
