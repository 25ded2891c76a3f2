# npu - build, test and install.
#
#   make            libnpu.a, libnpu.so and the software NPU (build/)
#   make check      everything, then every cmocka suite against the software NPU
#   make demo       the main job (see README.md)
#   make install    PREFIX=/usr/local DESTDIR= (also BINDIR, LIBDIR, INCLUDEDIR)
#   make install-sim  the software NPU, into LIBDIR (see README.md, "Install")
#
# Tests are found by name: tests/test_*.c link with libnpu.a; sim/tests/test_*.c
# link with the sim's objects. Each suite runs with the software NPU as the only
# Level Zero driver unless an NPU is requested with NPU_TEST_HW=1.
#
# CC, CFLAGS, CPPFLAGS, LDFLAGS, AR and PKG_CONFIG are the caller's (a Debian
# rules file, a Yocto recipe): they come after the flags npu needs, so they win.
# Warnings are errors only in the project's own checks (check, check-build,
# tests, check-strict, ...); `make WERROR=` turns that off there too, e.g. for
# a package build that runs `make check` with a newer compiler.

CC      ?= cc
CXX     ?= c++
AR      ?= ar
B       := build

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/npu
SIMDIR     ?= $(LIBDIR)
DESTDIR    ?=

# libnpu.so.0.Y.Z (real name), libnpu.so.0 (soname), libnpu.so (link name).
VERSION := $(shell sed -n 's/^\#define NPU_VERSION_STRING "\(.*\)"/\1/p' npu.h)
SONAME  := libnpu.so.$(firstword $(subst ., ,$(VERSION)))
SOREAL  := libnpu.so.$(VERSION)

PKG_CONFIG ?= pkg-config
ZE_CFLAGS  := $(patsubst -I%,-isystem %,$(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null))
ZE_LIBS    := $(shell $(PKG_CONFIG) --libs level-zero 2>/dev/null || echo -lze_loader)
XML_CFLAGS := $(patsubst -I%,-isystem %,$(shell $(PKG_CONFIG) --cflags libxml-2.0 2>/dev/null))
XML_LIBS   := $(shell $(PKG_CONFIG) --libs libxml-2.0 2>/dev/null || echo -lxml2)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

CFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=
SAN      ?=

# The library's own rules (DEVELOPERS.md): C11, no extensions, no warnings.
# check-strict compiles npu.c with STRICT under gcc and clang.
WARN   := -Wall -Wextra -Wpedantic -Wshadow
STRICT := -std=c11 $(WARN) -Wconversion -Werror
CHECK_GOALS := check check-build tests check-strict check-nomalloc check-cxx check-install \
               check-asan check-ubsan check-tsan check-valgrind coverage
ifneq ($(filter $(CHECK_GOALS),$(MAKECMDGOALS)),)
WERROR ?= -Werror
endif

NPU_CFLAGS := -std=c11 $(WARN) -Wconversion $(WERROR) $(ZE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN) -fPIC
# Examples need only npu.h and Level Zero (and say which POSIX they use, as a
# user's program would); the tools take GNU extensions (getopt_long, glob); the
# sim, the tests and the benchmarks libxml2 as well. Strict but for -Wconversion.
EXAMPLE_CFLAGS := -std=c11 $(WARN) $(WERROR) -I. $(ZE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN)
TOOL_CFLAGS := -D_GNU_SOURCE $(EXAMPLE_CFLAGS)
AUX_CFLAGS  := $(TOOL_CFLAGS) $(XML_CFLAGS)
LINK        := $(CFLAGS) $(SAN) $(LDFLAGS)
TOOL_LIBS   := $(ZE_LIBS) -lm -ldl
EXAMPLE_LIBS := $(ZE_LIBS) -lpthread -lm
LDLIBS_ALL  := $(ZE_LIBS) $(XML_LIBS) -lpthread -lm -ldl

# Everything built depends on $(B)/flags, the flags it was built with: another
# CC, CFLAGS, CPPFLAGS, LDFLAGS or SAN rebuilds it. A build made with -Werror
# also serves one without (so `make` after `make check` rebuilds nothing); the
# other way round rebuilds once.
sq = $(subst ','\'',$(1))
BUILD_FLAGS := $(CC) | $(CPPFLAGS) | $(CFLAGS) | $(LDFLAGS) | $(SAN)
FLAGS := $(B)/flags
$(FLAGS): FORCE
	@mkdir -p $(B); new='$(call sq,$(BUILD_FLAGS)) | werror=$(WERROR)'; \
	 old=$$(cat $@ 2>/dev/null || true); \
	 if [ "$$old" != "$$new" ] && \
	    { [ -n "$(WERROR)" ] || [ "$$old" != '$(call sq,$(BUILD_FLAGS)) | werror=-Werror' ]; }; then \
	   printf '%s\n' "$$new" > $@; fi
FORCE:

SIM_SRC  := $(sort $(wildcard sim/*.c))
SIM_OBJ  := $(SIM_SRC:sim/%.c=$(B)/sim/%.o)
SIM_SO   := $(B)/libze_npu_sim.so
SIM_A    := $(B)/libsim.a

NPU_DEPS := npu.c npu.h

TEST_SRC     := $(sort $(filter-out tests/test_wb_%.c,$(wildcard tests/test_*.c)))
WB_SRC       := $(sort $(wildcard tests/test_wb_*.c))
WB_BIN       := $(WB_SRC:tests/%.c=$(B)/tests/%)
TEST_BIN     := $(TEST_SRC:tests/%.c=$(B)/tests/%)
SIMTEST_SRC  := $(sort $(wildcard sim/tests/test_*.c))
SIMTEST_BIN  := $(SIMTEST_SRC:sim/tests/%.c=$(B)/sim/tests/%)
TEST_SUPPORT := $(wildcard tests/support/*.c)

# Every suite runs on the software NPU, alone, unless NPU_TEST_HW=1.
ifeq ($(NPU_TEST_HW),1)
TEST_ENV :=
else
TEST_ENV := ZE_ENABLE_ALT_DRIVERS=$(abspath $(SIM_SO))
endif
TEST_ENV += NPU_TEST_DATA=$(abspath tests/data) NPU_SHARED_DATA=$(abspath ../shared/data) ZE_INTEL_NPU_CACHE_DIR=$(abspath $(B))/ze-npu-cache/run-$(shell date +%s%N)

BENCH_SRC    := $(sort $(wildcard bench/*.c))
BENCH_BIN    := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
EXAMPLE_SRC  := $(sort $(wildcard examples/*.c))
EXAMPLE_BIN  := $(EXAMPLE_SRC:examples/%.c=$(B)/examples/%)
TOOL_SRC     := $(sort $(wildcard tools/*.c))
TOOL_BIN     := $(TOOL_SRC:tools/%.c=$(B)/tools/%)
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_SECONDS ?= 60
# The IRs of tests/data come as .xml alone; the build gives each its .bin
# (scripts/ir-weights.sh) in $(B)/data, next to a copy of the .xml, so that
# npu-run, examples/ir_file and OpenVINO can load them.
IR_SRC       := $(sort $(wildcard tests/data/*.xml))
IR_DATA      := $(IR_SRC:tests/data/%=$(B)/data/%) $(IR_SRC:tests/data/%.xml=$(B)/data/%.bin)

.PHONY: all lib sim check tests check-build check-strict check-nomalloc check-cxx \
        install install-sim uninstall clean demo examples tools data bench docs fuzz check-stack check-single-file check-sections \
        check-asan check-ubsan check-tsan check-valgrind coverage check-run check-install \
        check-sim-layers size check-size

all: lib sim tools data

lib: $(B)/libnpu.a $(B)/libnpu.so

$(B)/npu.o: $(NPU_DEPS) $(FLAGS)
	@mkdir -p $(B)
	$(CC) $(NPU_CFLAGS) -c npu.c -o $@

$(B)/libnpu.a: $(B)/npu.o
	rm -f $@ && $(AR) rcs $@ $^

$(B)/$(SOREAL): $(B)/npu.o
	$(CC) $(LINK) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(ZE_LIBS)
$(B)/$(SONAME): $(B)/$(SOREAL)
	ln -sf $(SOREAL) $@
$(B)/libnpu.so: $(B)/$(SONAME)
	ln -sf $(SONAME) $@

# ---- software NPU ---------------------------------------------------------
sim: $(SIM_SO) $(SIM_A)

$(B)/sim/%.o: sim/%.c $(wildcard sim/*.h) $(FLAGS)
	@mkdir -p $(B)/sim
	$(CC) $(AUX_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(SIM_SO): $(SIM_OBJ)
	$(CC) $(LINK) -shared -o $@ $^ -Wl,-z,nodelete -Wl,-z,defs $(XML_LIBS) -lpthread -lm -ldl

$(SIM_A): $(SIM_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

# The sim's files form layers (sim/sim_internal.h): a lower file never calls
# into a higher one. Each pair "low:high" fails the check when low.o references
# a symbol that high.o defines, e.g. driver.c calling back into graph_ext.c.
SIM_LAYERS := driver:graph_ext driver:extensions graph_ext:extensions payload:ops payload:planner ops:planner \
              payload:ops_quant ops_quant:planner payload:ops_norm ops_norm:planner
check-sim-layers: $(SIM_OBJ)
	@fail=0; for pair in $(SIM_LAYERS); do low=$${pair%%:*}; high=$${pair#*:}; \
	  bad=$$( { nm -g --defined-only $(B)/sim/$$high.o | awk '{print "D", $$NF}'; \
	            nm -u $(B)/sim/$$low.o | awk '{print "U", $$NF}'; } | \
	          awk '$$1 == "D" { d[$$2] = 1 } $$1 == "U" && ($$2 in d) { print $$2 }' | sort -u); \
	  if [ -n "$$bad" ]; then echo "check-sim-layers: sim/$$low.c calls sim/$$high.c:" $$bad; fail=1; fi; \
	done; \
	test $$fail -eq 0 && echo "check-sim-layers: $(SIM_LAYERS): no call upwards"
	@# The fuzz targets compile the whole sim as one translation unit: static
	@# names must not collide across its files (ci-extra builds them with clang).
	@$(CC) -std=c11 -D_GNU_SOURCE -fsyntax-only -I. $(ZE_CFLAGS) $(XML_CFLAGS) tests/fuzz/fuzz_sim_payload.c && \
	  echo "check-sim-layers: the sim compiles as one translation unit (the fuzz build)"

# ---- tests ----------------------------------------------------------------
$(B)/tests/%: tests/%.c $(B)/libnpu.a $(TEST_SUPPORT) $(wildcard tests/support/*.h tests/*.h) sim/npu_sim_ext.h
	@mkdir -p $(B)/tests
	$(CC) $(AUX_CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT) $(B)/libnpu.a $(CMOCKA_LIBS) $(LDLIBS_ALL)

# White-box suites include npu.c themselves (to reach static internals).
$(B)/tests/test_wb_%: tests/test_wb_%.c $(NPU_DEPS) $(TEST_SUPPORT) $(wildcard tests/support/*.h) $(FLAGS)
	@mkdir -p $(B)/tests
	$(CC) $(AUX_CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT) $(CMOCKA_LIBS) $(LDLIBS_ALL)

$(B)/sim/tests/%: sim/tests/%.c $(SIM_A)
	@mkdir -p $(B)/sim/tests
	$(CC) $(AUX_CFLAGS) $(LDFLAGS) -o $@ $< $(SIM_A) $(CMOCKA_LIBS) $(LDLIBS_ALL)

tests: $(TEST_BIN) $(WB_BIN) $(SIMTEST_BIN) $(EXAMPLE_BIN)

# ---- examples, tools, benchmarks -------------------------------------------
$(B)/examples/%: examples/%.c $(B)/libnpu.a
	@mkdir -p $(B)/examples
	$(CC) $(EXAMPLE_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libnpu.a $(EXAMPLE_LIBS)

# The tools link what they use: npu, Level Zero, libm, libdl (not libxml2).
$(B)/tools/%: tools/%.c $(B)/libnpu.a $(wildcard tools/*.h)
	@mkdir -p $(B)/tools
	$(CC) $(TOOL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libnpu.a $(TOOL_LIBS)

$(B)/bench/%: bench/%.c $(B)/libnpu.a $(wildcard bench/*.h)
	@mkdir -p $(B)/bench
	$(CC) $(AUX_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libnpu.a $(LDLIBS_ALL)

examples: $(EXAMPLE_BIN)
tools: $(TOOL_BIN)

data: $(IR_DATA)
$(B)/data/%.xml: tests/data/%.xml
	@mkdir -p $(B)/data
	cp $< $@
$(B)/data/%.bin: tests/data/%.xml scripts/ir-weights.sh
	@mkdir -p $(B)/data
	sh scripts/ir-weights.sh $< $@

# Benchmarks print figures; none of them is a pass/fail test.
bench: all $(BENCH_BIN) $(SIM_SO)
	@for b in $(BENCH_BIN); do echo "== $$b"; env $(TEST_ENV) $$b || exit 1; done
	@echo "== size of npu.o at -Os (goal: .text <= 48 KiB = 49152 bytes)"
	@$(CC) -std=c11 -Os $(ZE_CFLAGS) -c npu.c -o $(B)/npu-Os.o && size -A $(B)/npu-Os.o | grep -E '^(section|\.text|\.rodata|\.data|\.eh_frame|Total)'
	@$(CC) -std=c11 -Os -DNPU_NO_LEVEL_ZERO -c npu.c -o $(B)/npu-Os-nolz.o && \
	  printf 'without Level Zero (-DNPU_NO_LEVEL_ZERO): .text %s bytes\n' "$$(size -A $(B)/npu-Os-nolz.o | awk '$$1==".text"{print $$2}')"

# ---- fuzzing (clang's libFuzzer with ASan + UBSan) --------------------------
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
              -D_GNU_SOURCE -I. $(ZE_CFLAGS) $(XML_CFLAGS)
# A target #includes what it fuzzes (npu.c, or the sim's plan sources via
# tests/fuzz/sim_fuzz.h), so it is one clang command.
$(B)/fuzz/%: tests/fuzz/%.c $(NPU_DEPS) $(SIM_SRC) $(wildcard sim/*.h tests/fuzz/*.h)
	@mkdir -p $(B)/fuzz
	clang $(FUZZ_FLAGS) -o $@ $< $(LDLIBS_ALL)

# Each target runs FUZZ_SECONDS from its committed seeds (tests/fuzz/corpus/<name>/)
# plus what earlier runs found ($(B)/fuzz/corpus-<name>/). A crash, a leak or a
# unit slower than FUZZ_TIMEOUT seconds fails; the input is left in
# $(B)/fuzz/<name>-crash-* (or -leak-, -timeout-) to replay: $(B)/fuzz/<name> <file>.
FUZZ_TIMEOUT ?= 30
fuzz: $(FUZZ_BIN) $(SIM_SO)
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); mkdir -p $(B)/fuzz/corpus-$$n; \
	  echo "== $$n ($(FUZZ_SECONDS) s)"; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 \
	      -artifact_prefix=$(B)/fuzz/$$n- $(B)/fuzz/corpus-$$n \
	      $$( [ -d tests/fuzz/corpus/$$n ] && echo tests/fuzz/corpus/$$n ) || exit 1; done

# ---- sanitizers, valgrind, coverage: the whole suite in its own build dir ---
# check-asan is ASan + UBSan together (what CI runs). The Level Zero loader is not
# instrumented; it dlopens the instrumented sim, whose runtime the test executable
# has already loaded.
check-asan:
	$(MAKE) B=$(B)/asan SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" check
check-ubsan:
	$(MAKE) B=$(B)/ubsan SAN="-fsanitize=undefined -fno-sanitize-recover=undefined" check
# TSan and valgrind builds keep the default -O2 -g: at -O1 gcc 12 raises
# -Wmaybe-uninitialized / -Wformat-truncation false positives that -O2 does not.
check-tsan:
	$(MAKE) B=$(B)/tsan SAN="-fsanitize=thread" check
# Suites that re-run themselves as child processes (posix_spawn: versions,
# platforms) have those children checked too (--trace-children); fork()ed
# children always are. About 2.5x the time of the run without it. The
# per-profile repeats of check-run are left to ASan (PROFILES= here): under
# valgrind they would triple the time of the longest CI step.
VALGRIND := valgrind -q --trace-children=yes --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite
check-valgrind:
	$(MAKE) B=$(B)/vg check-build
	$(MAKE) B=$(B)/vg TEST_WRAP="$(VALGRIND)" PROFILES= check-run
# Coverage of npu.c, in total and per section (line and branch, gcov + lcov).
# SAN carries --coverage so the sim's .so and every link get libgcov too, with
# atomic counters (the sim and requests run threads). -O0 for exact line
# counts; warnings that only -O0 raises do not stop it (make check enforces
# -Werror). Counters are zeroed after the build: the numbers are one check-run.
COV_RC := --rc lcov_branch_coverage=1
COV_MAKE = $(MAKE) B=$(B)/cov CFLAGS="-O0 -g" WERROR= SAN="--coverage -fprofile-update=atomic"
coverage:
	$(COV_MAKE) check-build
	lcov -q -z -d $(B)/cov
	$(COV_MAKE) check-run
	lcov -q $(COV_RC) -c -d $(B)/cov -o $(B)/cov/all.info
	lcov -q $(COV_RC) -e $(B)/cov/all.info '$(CURDIR)/npu.c' -o $(B)/cov/npu.info
	lcov $(COV_RC) --list $(B)/cov/npu.info
	lcov $(COV_RC) --summary $(B)/cov/npu.info
	@awk -f scripts/cov-sections.awk npu.c $(B)/cov/npu.info
	@echo "coverage: HTML with genhtml --branch-coverage -o $(B)/cov/html $(B)/cov/npu.info"

# The header must compile as C++; the library with gcc and clang, with and
# without Level Zero; and npu.o must not reference the heap allocator.
check-cxx:
	@mkdir -p $(B)
	$(CXX) -std=c++11 -Wall -Wextra -Wpedantic -Werror -I. -c tests/cxx_header.cpp -o $(B)/cxx_header.o
	@echo "check-cxx: npu.h compiles as C++"

# Each NPU_NO_* macro alone, all of them together, and the three appliance
# sets of `make size` (npu.h, "Building"): gcc and clang, no warnings.
empty :=
space := $(empty) $(empty)
comma := ,
NO_ALL := -DNPU_NO_GRAPH -DNPU_NO_IR -DNPU_NO_CACHE -DNPU_NO_MESSAGES
STRICT_VARIANTS := graph:-DNPU_NO_GRAPH ir:-DNPU_NO_IR cache:-DNPU_NO_CACHE msg:-DNPU_NO_MESSAGES \
                   all:$(subst $(space),$(comma),$(NO_ALL)) \
                   ir-cache:-DNPU_NO_GRAPH graph-only:-DNPU_NO_IR,-DNPU_NO_CACHE \
                   graph-only-msg:-DNPU_NO_IR,-DNPU_NO_CACHE,-DNPU_NO_MESSAGES \
                   ir-cache-msg:-DNPU_NO_GRAPH,-DNPU_NO_MESSAGES blob:-DNPU_NO_GRAPH,-DNPU_NO_IR,-DNPU_NO_CACHE
check-strict:
	@mkdir -p $(B)/strict
	gcc   $(STRICT) -O2 $(ZE_CFLAGS) -c npu.c -o $(B)/strict/npu-gcc.o
	clang $(STRICT) -O2 $(ZE_CFLAGS) -c npu.c -o $(B)/strict/npu-clang.o
	@# as a user builds it: pkg-config's own -I (not -isystem), -O0 and -O2
	for o in -O0 -O2; do for cc in gcc clang; do $$cc $(STRICT) $$o $(shell $(PKG_CONFIG) --cflags level-zero 2>/dev/null) \
	  -c npu.c -o $(B)/strict/npu-$$cc-plain.o || exit 1; done; done
	gcc   $(STRICT) -O2 -DNPU_NO_LEVEL_ZERO -c npu.c -o $(B)/strict/npu-gcc-nolz.o
	clang $(STRICT) -O2 -DNPU_NO_LEVEL_ZERO -c npu.c -o $(B)/strict/npu-clang-nolz.o
	@for v in $(STRICT_VARIANTS); do name=$${v%%:*}; defs=$$(echo "$${v#*:}" | tr ',' ' '); \
	  for cc in gcc clang; do \
	    $$cc $(STRICT) -O2 $(ZE_CFLAGS) $$defs -c npu.c -o $(B)/strict/npu-$$cc-$$name.o || \
	      { echo "check-strict: $$cc $$defs failed"; exit 1; }; \
	  done; done
	@if nm -u $(B)/strict/npu-gcc-nolz.o | grep -q ' ze'; then \
	  echo "check-strict: NPU_NO_LEVEL_ZERO build still references Level Zero"; exit 1; fi
	@if nm $(B)/strict/npu-gcc-all.o | grep -q ' U .*printf'; then \
	  echo "check-strict: the build with every NPU_NO_* still calls printf:" \
	       $$(nm $(B)/strict/npu-gcc-all.o | grep ' U .*printf'); exit 1; fi
	@# every one of the 32 combinations of the five NPU_NO_* macros (clang's
	@# front end: unused helpers, declarations; a tenth of a second each)
	@for m in $$(seq 0 31); do defs=''; i=0; \
	  for n in GRAPH IR CACHE MESSAGES LEVEL_ZERO; do \
	    if [ $$(( (m >> i) & 1 )) -eq 1 ]; then defs="$$defs -DNPU_NO_$$n"; fi; i=$$((i + 1)); done; \
	  clang $(STRICT) -fsyntax-only $(ZE_CFLAGS) $$defs npu.c || { echo "check-strict: clang$$defs failed"; exit 1; }; \
	done
	@echo "check-strict: gcc and clang, with and without Level Zero, each NPU_NO_* and all of them, and clang on all 32 combinations: no warnings"

check-nomalloc: $(B)/npu.o check-strict
	@bad=$$(nm -u $(B)/npu.o $(B)/strict/npu-clang.o $(B)/strict/npu-gcc-all.o $(B)/strict/npu-clang-all.o | awk '{print $$2}' | \
	  grep -E '^(malloc|calloc|realloc|free|strdup|strndup|aligned_alloc|posix_memalign|reallocarray)$$' | sort -u | tr '\n' ' '); \
	if [ -n "$$bad" ]; then echo "check-nomalloc: npu.o references $$bad"; exit 1; fi; \
	echo "check-nomalloc: npu.o references no heap allocator"

# make install install-sim into two staging dirs (DESTDIR): the default layout
# and a Debian package's (PREFIX=/usr, LIBDIR=/usr/lib/<multiarch>); then
# scripts/check-install.sh builds README.md's program with README.md's commands
# and runs it on the installed software NPU, builds every example against the
# install (-std=c11 -Wall -Wextra -Werror, pkg-config), and builds with CMake
# through find_package(npu). Finally make uninstall must leave no file behind.
# Every directory is passed, so that a PREFIX or LIBDIR given to make check
# does not change the staged layouts.
STAGE      := $(B)/stage
CMAKE      ?= cmake
MULTIARCH   = $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR_DEB  = $(if $(MULTIARCH),lib/$(MULTIARCH),lib64)
stage_dirs  = PREFIX=$(1) BINDIR=$(1)/bin INCLUDEDIR=$(1)/include LIBDIR=$(2) \
              PKGCONFIGDIR=$(2)/pkgconfig CMAKEDIR=$(2)/cmake/npu SIMDIR=$(2)
check-install: lib tools sim
	@if $(MAKE) --no-print-directory -n -B B=$(B) XML_CFLAGS=-INPU_NO_LIBXML2 XML_LIBS=-lNPU_NO_LIBXML2 \
	    install | grep -q NPU_NO_LIBXML2; then \
	  echo "check-install: FAILED: make install compiles or links with libxml2"; exit 1; fi
	@rm -rf $(STAGE)
	@$(MAKE) --no-print-directory -s B=$(B) DESTDIR=$(abspath $(STAGE))/local \
	  $(call stage_dirs,/usr/local,/usr/local/lib) install install-sim >/dev/null
	@$(MAKE) --no-print-directory -s B=$(B) DESTDIR=$(abspath $(STAGE))/deb \
	  $(call stage_dirs,/usr,/usr/$(LIBDIR_DEB)) install install-sim >/dev/null
	@CC='$(CC)' SAN='$(SAN)' PKG_CONFIG='$(PKG_CONFIG)' CMAKE='$(CMAKE)' VERSION=$(VERSION) \
	  SONAME=$(SONAME) SOREAL=$(SOREAL) LIBDIR_DEB=$(LIBDIR_DEB) sh scripts/check-install.sh $(abspath $(STAGE))
	@$(MAKE) --no-print-directory -s B=$(B) DESTDIR=$(abspath $(STAGE))/deb \
	  $(call stage_dirs,/usr,/usr/$(LIBDIR_DEB)) uninstall
	@left=$$(find $(STAGE)/deb ! -type d); if [ -n "$$left" ]; then \
	  echo "check-install: make uninstall left $$left"; exit 1; fi
	@echo "check-install: make uninstall removes every installed file"

# Worst-case stack of every public function, from gcc's call graph and frame
# sizes (-fcallgraph-info=su), at -O2 and -Os, against the bounds in npu.h.
STACK_BUDGET    = $(shell awk '/define NPU_STACK_BUDGET/ {print $$3}' npu.h)
# The functions npu.h gives a smaller bound of their own ("Stack: under ...").
STACK_EXCEPT    = npu_device_set_idle_optimizations=1024,npu_request_profile=1536
check-stack:
	@mkdir -p $(B)/stack
	@for o in -O2 -Os; do \
	  gcc -std=c11 $$o -fcallgraph-info=su $(ZE_CFLAGS) -c npu.c -o $(B)/stack/npu$$o.o || exit 1; \
	  printf 'check-stack (gcc %s): ' $$o; \
	  awk -v budget=$(STACK_BUDGET) -v frame_max=1024 -v except='$(STACK_EXCEPT)' \
	      -f scripts/stack-check.awk $(B)/stack/npu$$o.ci || exit 1; \
	done

# Single-file use (NPU_STATIC): npu.c included into one translation unit,
# strict warnings, nothing exported.
check-single-file:
	@mkdir -p $(B)/single
	gcc $(STRICT) -O2 $(ZE_CFLAGS) -c tests/single_file.c -o $(B)/single/single_file.o
	clang $(STRICT) -O2 $(ZE_CFLAGS) -c tests/single_file.c -o $(B)/single/single_file-clang.o
	@if nm $(B)/single/single_file.o | grep -E ' [TDBRC] npu_'; then \
	  echo "check-single-file: NPU_STATIC still exports the symbols above"; exit 1; fi
	$(CC) -o $(B)/single/single_file $(B)/single/single_file.o $(ZE_LIBS) -lm
	@$(B)/single/single_file
	@echo "check-single-file: NPU_STATIC builds warning-free with gcc and clang and exports nothing"

# ---- code size: what npu adds to three appliance programs ----------------
# Each size/appliance_<p>.c is compiled and linked with npu.c at -Os with
# -ffunction-sections -fdata-sections -Wl,--gc-sections, npu.c built with the
# NPU_NO_* macros the program can use, once with and once without
# NPU_NO_MESSAGES. Method: the link writes a map (-Wl,-Map); scripts/size-map.awk
# sums the input sections of npu's object that the linker kept in .text and in
# .rodata (+ .data.rel.ro): npu's own bytes in that program, after --gc-sections,
# libc and the Level Zero loader not counted. `make size` fails above the
# budgets (SIZE_BUDGET_<p>, .text bytes; with NPU_NO_MESSAGES 75% of it). It
# also links the graph and IR programs against npu.c built with no macro at
# all and checks with nm that the graph program keeps no IR-loader symbol and
# the IR program no graph-builder symbol (the model-source table, npu.c
# section 1). check-size (in make check) runs the programs built with every
# macro they allow on the software NPU and holds .text under SIZE_CEILING_<p>,
# the figures of this tree plus 3%, so that growth is seen where it happens.
SIZE_DIR     := $(B)/size
SIZE_PROGS   := blob ir graph
SIZE_DEFS_blob  := -DNPU_NO_GRAPH -DNPU_NO_IR -DNPU_NO_CACHE
SIZE_DEFS_ir    := -DNPU_NO_GRAPH
SIZE_DEFS_graph := -DNPU_NO_IR -DNPU_NO_CACHE
# <program>:<.text budget>:<.text budget with NPU_NO_MESSAGES> (issue 14's goals)
SIZE_LIMITS  := blob:16384:12288 ir:49152:36864 graph:49152:36864
# check-size: this tree's figures (gcc 12, x86-64) plus about 3%, or the
# budget where the program meets it (all but the IR program's NO_MESSAGES figure)
SIZE_CEILINGS := blob:14400:12288 ir:49152:41600 graph:38100:30950
SIZE_CC      := $(CC) -std=c11 -Os -ffunction-sections -fdata-sections $(ZE_CFLAGS)
# Builds $(SIZE_DIR)/<p>-<variant> and prints "text N rodata N" for npu's part.
# $(1) program, $(2) variant name, $(3) macros.
size_link = mkdir -p $(SIZE_DIR) && \
	$(SIZE_CC) $(3) -c npu.c -o $(SIZE_DIR)/npu-$(1)-$(2).o && \
	$(SIZE_CC) $(3) -I. -c size/appliance_$(1).c -o $(SIZE_DIR)/app-$(1)-$(2).o && \
	$(CC) -Wl,--gc-sections -Wl,-Map=$(SIZE_DIR)/$(1)-$(2).map -o $(SIZE_DIR)/appliance_$(1)-$(2) \
	  $(SIZE_DIR)/app-$(1)-$(2).o $(SIZE_DIR)/npu-$(1)-$(2).o $(ZE_LIBS) && \
	awk -v obj=$(SIZE_DIR)/npu-$(1)-$(2).o -f scripts/size-map.awk $(SIZE_DIR)/$(1)-$(2).map

size: $(wildcard size/*.c) scripts/size-map.awk $(NPU_DEPS)
	@fail=0; printf '%-34s %8s %8s %8s\n' 'npu in the program (-Os, gc-sections)' .text .rodata budget; \
	for p in $(SIZE_PROGS); do \
	  case $$p in blob) defs='$(SIZE_DEFS_blob)'; what='blob -> infer';; \
	    ir) defs='$(SIZE_DEFS_ir)'; what='IR + cache -> infer';; \
	    graph) defs='$(SIZE_DEFS_graph)'; what='graph -> infer';; esac; \
	  lim=$$(for l in $(SIZE_LIMITS); do case $$l in $$p:*) echo $$l;; esac; done); \
	  for v in messages nomsg; do \
	    if [ $$v = nomsg ]; then d="$$defs -DNPU_NO_MESSAGES"; b=$${lim##*:}; w="$$what, NO_MESSAGES"; \
	    else d="$$defs"; b=$${lim#*:}; b=$${b%%:*}; w="$$what"; fi; \
	    r=$$($(call size_link,$$p,$$v,$$d)) || { echo "size: building the $$w program failed"; exit 1; }; \
	    set -- $$r; if [ "$$1 $$3" != "text rodata" ] || [ "$$2" -eq 0 ]; then \
	      echo "size: no figures for the $$w program ($$r)"; exit 1; fi; \
	    flag=''; if [ "$$2" -gt $$b ]; then flag='  OVER BUDGET'; fail=1; fi; \
	    printf '%-34s %8d %8d %8d%s\n' "$$w" $$2 $$4 $$b "$$flag"; \
	  done; \
	done; \
	for p in ir graph; do r=$$($(call size_link,$$p,plain,)) || { echo "size: building the $$p program failed"; exit 1; }; \
	  set -- $$r; if [ "$$1 $$3" != "text rodata" ] || [ "$$2" -eq 0 ]; then \
	    echo "size: no figures for the $$p program without macros ($$r)"; exit 1; fi; \
	  printf '%-34s %8d %8d\n' "$$p, no NPU_NO_* macro" $$2 $$4; done; \
	bad=$$(nm $(SIZE_DIR)/appliance_graph-plain | grep -E ' (npu_ir_|npu__irw|npu__isrc_)'); \
	if [ -n "$$bad" ]; then echo "size: the graph program links IR code:" $$bad; fail=1; fi; \
	bad=$$(nm $(SIZE_DIR)/appliance_ir-plain | grep -E ' (npu_graph_|npu__x_|npu__gsrc_|npu__infer_)'); \
	if [ -n "$$bad" ]; then echo "size: the IR program links graph code:" $$bad; fail=1; fi; \
	if [ $$fail -ne 0 ]; then echo "size: FAILED (see above)"; exit 1; fi; \
	echo "size: every program within its budget; graph and IR programs link only their own source"

# make size under this tree's ceilings, then the programs built with every
# macro they allow run on the software NPU: the graph; the IR twice (a cache
# miss, then a hit); the blob npu-compile makes of the same IR.
SIZE_IR := $(B)/data/irl_mlp_v10.xml
check-size: $(B)/tools/npu-compile $(SIZE_IR) $(SIM_SO)
	@$(MAKE) --no-print-directory size SIZE_LIMITS='$(SIZE_CEILINGS)'
	@# The appliance programs are size builds without sanitizers: under SAN the
	@# software NPU is instrumented and cannot load into them, so they run only
	@# in the plain check (where they are the same programs).
	@if [ -n "$(SAN)" ]; then echo "check-size: sizes checked; the programs run in the plain make check (not under SAN)"; exit 0; fi; \
	rm -rf $(SIZE_DIR)/cache; set -e; \
	for v in messages nomsg; do \
	  env $(TEST_ENV) $(SIZE_DIR)/appliance_graph-$$v >/dev/null; \
	  env $(TEST_ENV) $(SIZE_DIR)/appliance_ir-$$v $(SIZE_IR) $(SIZE_DIR)/cache-$$v >/dev/null; \
	  env $(TEST_ENV) $(SIZE_DIR)/appliance_ir-$$v $(SIZE_IR) $(SIZE_DIR)/cache-$$v >/dev/null; \
	  test -n "$$(ls $(SIZE_DIR)/cache-$$v)"; \
	done; \
	env $(TEST_ENV) $(B)/tools/npu-compile -q -m $(SIZE_IR) -o $(SIZE_DIR)/mlp.blob >/dev/null; \
	for v in messages nomsg; do env $(TEST_ENV) $(SIZE_DIR)/appliance_blob-$$v $(SIZE_DIR)/mlp.blob >/dev/null; done; \
	rm -rf $(SIZE_DIR)/cache-messages $(SIZE_DIR)/cache-nomsg; \
	echo "check-size: the six appliance programs ran on the software NPU (IR: a cache miss, then a hit)"

# npu.c's structure: the table of contents matches the section banners, and no
# section calls into a later one (gcc's call graph of an -O0 build).
check-sections:
	@mkdir -p $(B)/lint
	@gcc -std=c11 -O0 -fcallgraph-info $(ZE_CFLAGS) -c npu.c -o $(B)/lint/npu.o
	@awk -v allow=scripts/sections-lint.allow -f scripts/sections-lint.awk npu.c $(B)/lint/npu.ci

check-build: all tests $(BENCH_BIN) check-cxx check-strict check-nomalloc check-install check-sim-layers check-stack check-sections check-single-file \
             check-size

TEST_WRAP ?=
check: check-build
	@$(MAKE) --no-print-directory check-run

# The compile, import, request and state suites also run against every release
# profile of the software NPU (driver + compiler of one real release, see
# sim/profile.c); the other suites run once, on the default profile.
PROFILES       ?= 2024 2025 2026
PROFILE_SUITES := $(addprefix $(B)/tests/,test_model test_request test_states test_batch test_cache)

# Each suite, then each IR of $(B)/data through npu-run; the summary lists every
# skipped test with its reason (scripts/check-run.sh).
check-run:
	@env $(TEST_ENV) TEST_WRAP='$(TEST_WRAP)' PROFILES='$(PROFILES)' PROFILE_SUITES='$(PROFILE_SUITES)' \
	  NPU_RUN=$(B)/tools/npu-run IR_DATA='$(filter %.xml,$(IR_DATA))' LOGDIR=$(B)/check-run \
	  sh scripts/check-run.sh $(SIMTEST_BIN) $(TEST_BIN) $(WB_BIN)

# ---- install ----------------------------------------------------------------
# The paths inside npu.pc and the CMake package are the final ones (without
# DESTDIR); npu.pc names LIBDIR and INCLUDEDIR through ${prefix} when they lie
# under PREFIX.
PC_SUBST := -e 's|@PREFIX@|$(PREFIX)|g' \
            -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
            -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
            -e 's|@VERSION@|$(VERSION)|g'
CMAKE_SUBST := -e 's|@CMAKEDIR@|$(CMAKEDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
               -e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(firstword $(subst ., ,$(VERSION)))|g' \
               -e 's|@SONAME@|$(SONAME)|g' -e 's|@SOREAL@|$(SOREAL)|g'

install: lib tools
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	           $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(BINDIR)
	install -m 755 $(TOOL_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 npu.h $(DESTDIR)$(INCLUDEDIR)/npu.h
	install -m 644 $(B)/libnpu.a $(DESTDIR)$(LIBDIR)/libnpu.a
	install -m 755 $(B)/$(SOREAL) $(DESTDIR)$(LIBDIR)/$(SOREAL)
	ln -sf $(SOREAL) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnpu.so
	sed $(PC_SUBST) npu.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/npu.pc
	sed $(CMAKE_SUBST) cmake/npu-config.cmake.in > $(DESTDIR)$(CMAKEDIR)/npu-config.cmake
	sed $(CMAKE_SUBST) -e "s|@SIZEOF_VOID_P@|$$(echo __SIZEOF_POINTER__ | $(CC) $(CPPFLAGS) $(CFLAGS) -E -P -x c - | tail -n 1)|g" \
	  cmake/npu-config-version.cmake.in > $(DESTDIR)$(CMAKEDIR)/npu-config-version.cmake

# The software NPU: a Level Zero driver, found by the loader through
# ZE_ENABLE_ALT_DRIVERS=$(SIMDIR)/libze_npu_sim.so (README.md, "Install").
# It needs libxml2 at run time.
install-sim: $(SIM_SO)
	install -d $(DESTDIR)$(SIMDIR)
	install -m 755 $(SIM_SO) $(DESTDIR)$(SIMDIR)/libze_npu_sim.so

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/npu.h $(DESTDIR)$(LIBDIR)/libnpu.a \
	      $(DESTDIR)$(LIBDIR)/libnpu.so $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(SOREAL) \
	      $(DESTDIR)$(PKGCONFIGDIR)/npu.pc \
	      $(DESTDIR)$(CMAKEDIR)/npu-config.cmake $(DESTDIR)$(CMAKEDIR)/npu-config-version.cmake \
	      $(DESTDIR)$(SIMDIR)/libze_npu_sim.so \
	      $(TOOL_SRC:tools/%.c=$(DESTDIR)$(BINDIR)/%)
	rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true

demo:
	@sh scripts/demo.sh

# API reference from the headers (their comments are plain C comments, so the
# headers are shown verbatim and cross-referenced), with README.md and docs/*.md.
DOCS_INPUT := README.md $(wildcard docs/*.md) npu.h
docs:
	@if command -v doxygen >/dev/null 2>&1; then \
	  mkdir -p $(B)/docs && \
	  printf '%s\n' 'PROJECT_NAME = npu' \
	    'PROJECT_NUMBER = $(shell sed -n 's/^#define NPU_VERSION_STRING "\(.*\)"/\1/p' npu.h)' \
	    'PROJECT_BRIEF = "allocation-free C runtime for Intel NPUs"' \
	    'INPUT = $(DOCS_INPUT)' 'OUTPUT_DIRECTORY = $(B)/docs' 'USE_MDFILE_AS_MAINPAGE = README.md' \
	    'OPTIMIZE_OUTPUT_FOR_C = YES' 'EXTRACT_ALL = YES' 'EXTRACT_STATIC = NO' 'VERBATIM_HEADERS = YES' \
	    'SOURCE_BROWSER = YES' 'FULL_PATH_NAMES = NO' 'GENERATE_LATEX = NO' 'GENERATE_TREEVIEW = YES' \
	    'MARKDOWN_SUPPORT = YES' 'QUIET = YES' 'WARNINGS = NO' 'WARN_IF_UNDOCUMENTED = NO' \
	    'ENABLE_PREPROCESSING = YES' 'HAVE_DOT = NO' 'CLASS_GRAPH = NO' | doxygen - && \
	  echo "docs: $(B)/docs/html/index.html"; \
	else \
	  echo "docs: doxygen is not installed. Install it (Debian: apt-get install doxygen) and run make docs again."; \
	  echo "docs: meanwhile, npu.h is the manual; see also docs/*.md."; \
	fi

clean:
	rm -rf $(B)
