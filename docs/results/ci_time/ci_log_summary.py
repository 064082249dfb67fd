#!/usr/bin/env python3
"""Summarises a timestamped CI log (each line "SECONDS text", as the fresh-clone runs in this folder were
recorded, the seconds right-aligned or not): when each phase of tools/test.sh started (the first ctest, the AddressSanitizer build and its
tests, ThreadSanitizer's build, its test program's end, the end of fuzzing), and the first ctest run's test
time by compile-check mode (the MFMA gate's tests as one); with REGEX, also the test time of the tests of that
run whose names match it.
Usage: ci_log_summary.py CI_LOG[.gz] [REGEX]"""
import collections
import gzip
import re
import sys

path = sys.argv[1]
lines = (gzip.open if path.endswith(".gz") else open)(path, "rt").read().splitlines()
pattern = re.compile(sys.argv[2]) if len(sys.argv) > 2 else None
marks, checks, first_ctest_done, matched = [], collections.defaultdict(lambda: [0, 0.0]), False, [0, 0.0]
for line in lines:
    stamp, _, text = line.lstrip().partition(" ")
    if not stamp.isdigit():
        continue
    t = int(stamp)
    if (text.startswith(("Test project", "fuzz:", "All tests passed")) or text.startswith("== ") and "fuzz" not in text):
        marks.append((t, text.strip()))
    if "tests passed" in text:
        first_ctest_done = True
    m = re.search(r"Test +#\d+: (\S+) .*?([\d.]+) sec", text)
    if m and not first_ctest_done:
        name = m.group(1)
        mode = name.split(".")[2] if ".compile." in name else "gates" if "_gate." in name else "other tests"
        checks[mode][0] += 1
        checks[mode][1] += float(m.group(2))
        if pattern and pattern.search(name):
            matched[0] += 1
            matched[1] += float(m.group(2))
end = re.search(r"after (\d+) s", lines[-1])
last_stamp, _, last_text = lines[-1].lstrip().partition(" ")
for t, text in marks:
    print(f"{t:6d} s  {text}")
if end:
    print(f"{int(end.group(1)):6d} s  end ({lines[-1]})")
elif last_stamp.isdigit() and last_text.startswith("end"):
    print(f"{int(last_stamp):6d} s  {last_text}")
print("first ctest run, test time by compile-check mode:")
for mode, (n, s) in sorted(checks.items()):
    print(f"  {mode:16s} {n:3d} tests {s:8.1f} s")
print(f"  compile checks   {sum(s for m, (n, s) in checks.items() if m != 'other tests'):8.1f} s")
if pattern:
    print(f"  matching {sys.argv[2]}: {matched[0]} tests {matched[1]:.1f} s")
