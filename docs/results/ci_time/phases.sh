set -euo pipefail
cd /tmp/ci_time
t0=$(date +%s)
stamp() { echo "@@ $1 $(( $(date +%s) - t0 ))s"; }
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNOVA_WARNINGS_AS_ERRORS=ON >/dev/null
stamp configured
cmake --build build -j 2 >/dev/null
stamp built
ctest --test-dir build -j 2 > ctest.log 2>&1 || true
stamp ctest
tools/sanitize.sh asan > asan.log 2>&1 || true
stamp asan
tools/sanitize.sh tsan > tsan.log 2>&1 || true
stamp tsan
tools/fuzz.sh 60 > fuzz.log 2>&1 || true
stamp fuzz
