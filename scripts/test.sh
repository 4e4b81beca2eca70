#!/usr/bin/env bash
# test.sh - builds zkarena twice (release, and ASan+UBSan) and runs every test suite in both;
# between them, the release tree's .deb is built, installed, run and removed (package-test.sh).
# The interop tests with snarkjs run in the release build (under ASan they only get slower).
# The sanitizer build is optimised (-O2 -g): the prover at -O0 under ASan is ~40x slower.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Where nvcc exists the release build compiles the CUDA prover: for the tests (CI has no GPU:
# they compile the device code, the ctest cuda_fatbin checks the images embedded), the oldest
# and the newest architecture the code distinguishes, SASS for sm_80 and sm_90 and PTX of
# sm_90, not every architecture of the default fat binary: each further one costs ~2.5 minutes
# of one core for bls12_381.cu alone (2-core CI box, 2026-12-06: the stop-43 CI run took 1809 s
# with sm_80, 86, 89 and 90), and sm_100-121 ~10 minutes more. ZKA_TEST_CUDA_ARCHS overrides.
# nvcc --threads 2 compiles a file's architectures side by side: bls12_381.cu is the build's
# long pole, compiled while the other core has nothing left to do.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_CUDA_ARCHITECTURES="${ZKA_TEST_CUDA_ARCHS:-80-real;90}" \
	-DCMAKE_CUDA_FLAGS="${ZKA_TEST_CUDA_FLAGS:---threads 2}" >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
# the Debian package: built from the release tree, installed with apt, run, removed (as root)
scripts/package-test.sh build
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZKA_SANITIZE=ON -DZKA_CUDA=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -j"$jobs" -E '^interop_')
