# The README's two commands, and little else: the build itself is CMake.
#   make run    install what is missing, build, run amddwarf on a bundled example
#   make check  install what is missing, build, run every test plainly and
#               under ASan+UBSan (with the fuzz targets for a short time), and
#               the tests that share objects between threads under TSan, and
#               builds with gcc and clang in Release, warnings as errors

DEBIAN_PACKAGES := build-essential gcc-12 cmake pkg-config python3 man-db \
  clang-19 llvm-19 llvm-19-dev lld-19 libclang-rt-19-dev \
  libelf-dev libdw-dev libdwarf-dev dwarfdump libcmocka-dev libmsgpack-dev \
  libjansson-dev glslang-tools spirv-tools valgrind \
  cargo librust-gimli-dev hipcc \
  zlib1g-dev libzstd-dev libssl-dev clang-tools-19 \
  libstdc++-12-dev librsvg2-bin
BENCH_PACKAGES := hyperfine

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 10
CLI := build/tools/amddwarf/amddwarf

.PHONY: run check deps build build-asan test test-asan build-tsan test-tsan build-matrix bench clean

EXAMPLE := examples/seed-nest

run: deps build
	$(CLI) build $(EXAMPLE)/nest.json -o build/nest.elf
	$(CLI) lanes build/nest.elf --state $(EXAMPLE)/wave.json
	$(CLI) eval build/nest.elf --state $(EXAMPLE)/wave.json --lanes 0-3 i
	$(CLI) eval build/nest.elf --state $(EXAMPLE)/wave.json --lane 1 --explain i
	$(CLI) unwind build/nest.elf --state $(EXAMPLE)/wave.json
	$(CLI) expr decode 90 81 14 e9 03

check: deps test test-asan test-tsan build-matrix

# Build only (no test run: the plain build above tests, at -O2): gcc and
# clang in Release (-O3, as the benchmarks build), both with -Werror, so
# neither compiler's warnings at any optimization level that runs can creep
# in (gcc's flow warnings appear only with optimization). The gcc build
# compiles the benchmarks too, so a change of the API cannot leave them
# behind (they run only with `make bench`).
build-matrix:
	CC=gcc-12 cmake -S . -B build-gcc-release -DCMAKE_BUILD_TYPE=Release -DAMDDWARF_WERROR=ON \
	  -DAMDDWARF_BENCH=ON
	cmake --build build-gcc-release -j $(JOBS)
	CC=clang-19 cmake -S . -B build-clang-release -DCMAKE_BUILD_TYPE=Release -DAMDDWARF_WERROR=ON
	cmake --build build-clang-release -j $(JOBS)

# Installs only when a package is missing, so repeated runs need no network.
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

build:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build -j $(JOBS)

test: build
	cd build && ctest --output-on-failure -j $(JOBS)

# Sanitizers and libFuzzer need clang; the plain build above uses the default compiler.
build-asan:
	CC=clang-19 cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug \
	  -DAMDDWARF_SANITIZE=ON -DAMDDWARF_FUZZ=ON -DAMDDWARF_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build build-asan -j $(JOBS)

test-asan: build-asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

# The unit tests whose threads share one code object (its units, line tables
# and CFI made on first use by whichever thread comes first), under
# ThreadSanitizer; only their executables are built.
TSAN_TESTS := test_debug_frames test_object_elf test_object_dwarf test_object_check \
  test_object_die_refs test_prologue
# the statistics walk the units of an object on two threads
TSAN_TESTS += test_object_stats
# threads read one stop wave's memory, decoded on the first read
TSAN_TESTS += test_stop_index
# threads publish and find answers kept with one object
TSAN_TESTS += test_object_memo

build-tsan:
	CC=clang-19 cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_FLAGS=-fsanitize=thread
	cmake --build build-tsan -j $(JOBS) $(addprefix --target ,$(TSAN_TESTS))

test-tsan: build-tsan
	for t in $(TSAN_TESTS); do \
	  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/$$t || exit 1; \
	done

# Every unit test and every fuzz replay (seeds and regression inputs) of the
# plain build under valgrind memcheck; any memory error or leak fails.
VALGRIND_BUILD ?= build
VALGRIND := valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --track-origins=yes --quiet

.PHONY: valgrind
valgrind: $(if $(filter build,$(VALGRIND_BUILD)),build)
	@fail=0; \
	for t in $(VALGRIND_BUILD)/tests/test_*; do \
	  [ -f "$$t" ] && [ -x "$$t" ] || continue; \
	  echo "valgrind $$t"; \
	  $(VALGRIND) "$$t" > "$$t.valgrind.log" 2>&1 || { fail=1; echo "FAILED: $$t (see $$t.valgrind.log)"; }; \
	done; \
	for f in tests/fuzz/fuzz_*.c; do \
	  n=$$(basename $$f .c | sed 's/^fuzz_//'); r=$(VALGRIND_BUILD)/tests/replay_fuzz_$$n; \
	  inputs=; for d in tests/fuzz/corpus/$$n tests/fuzz/regressions/$$n; do [ -d $$d ] && inputs="$$inputs $$d"; done; \
	  echo "valgrind $$r$$inputs"; \
	  $(VALGRIND) $$r $$inputs > "$$r.valgrind.log" 2>&1 || { fail=1; echo "FAILED: $$r (see $$r.valgrind.log)"; }; \
	done; \
	if [ $$fail = 0 ]; then echo "valgrind: no errors"; fi; exit $$fail

bench: deps
	@missing=$$(for p in $(BENCH_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; fi
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DAMDDWARF_BENCH=ON -DAMDDWARF_TESTS=OFF
	cmake --build build-bench -j $(JOBS)
	bench/run build-bench

clean:
	rm -rf build build-asan build-tsan build-bench build-gcc-release build-clang-release
