#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer, and runs each for a while.
#
#   bash Fuzz/fuzz.sh                 # every target, 60 s each
#   bash Fuzz/fuzz.sh 300 predicate   # one target, 5 minutes
#   FUZZ_BUILD_ONLY=1 bash Fuzz/fuzz.sh
#
# Targets: predicate (PredicateFuzzer), json (JSONFuzzer), script (ScriptFuzzer). The
# build goes to .build-fuzz; new inputs the fuzzer finds go to .build-fuzz/corpus/<name>
# (the seeds in Tests/Fuzz/Corpus/<name> are only read), crashes to
# .build-fuzz/artifacts/<name>/. Exits non-zero when a target crashed or failed a check.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(predicate json script)

product() {
  case "$1" in
    predicate) echo PredicateFuzzer ;;
    json) echo JSONFuzzer ;;
    script) echo ScriptFuzzer ;;
    *) echo "unknown fuzz target '$1' (predicate, json, script)" >&2; exit 2 ;;
  esac
}

# Per-target limits: a script run creates a store, so it gets shorter inputs.
max_len() { case "$1" in script) echo 2048 ;; *) echo 4096 ;; esac; }

scratch=.build-fuzz
flags=(-c debug --scratch-path "$scratch"
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DROSTER_FUZZING -Xswiftc -use-ld=lld)

for target in "${targets[@]}"; do
  name=$(product "$target")
  echo "== fuzz: building $name (-sanitize=fuzzer,address)"
  mkdir -p "$scratch"
  if ! swift build "${flags[@]}" --product "$name" >"$scratch/build-$target.log" 2>&1; then
    grep -E 'error|warning: ' "$scratch/build-$target.log" | head -40 >&2
    echo "fuzz: $name did not build (log: $scratch/build-$target.log)" >&2
    exit 1
  fi
  tail -1 "$scratch/build-$target.log"
done
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

status=0
for target in "${targets[@]}"; do
  name=$(product "$target")
  work="$scratch/corpus/$target"
  artifacts="$scratch/artifacts/$target"
  log="$scratch/fuzz-$target.log"
  mkdir -p "$work" "$artifacts"
  echo "== fuzz: running $name for ${seconds}s (seeds: Tests/Fuzz/Corpus/$target)"
  set +e
  # The Swift runtime's backtracer would take the crash signal from libFuzzer, which then
  # writes no crash file: leave crashes to libFuzzer. Leak checking is off: the subject
  # here is crashes. A hang of more than 10 s on one input fails the run, as a crash does.
  # Each script run creates a store in the temporary folder: memory is faster than disk.
  tmp="${TMPDIR:-/tmp}"
  [ -w /dev/shm ] && tmp=/dev/shm
  TMPDIR="$tmp" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 \
    "$scratch/debug/$name" "$work" "Tests/Fuzz/Corpus/$target" \
    -dict="Tests/Fuzz/Dictionaries/$target.dict" \
    -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  code=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  coverage=$(grep -oE '^#[0-9]+.*cov: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' || true)
  if [ "$code" -eq 0 ]; then
    echo "fuzz: $name: ${runs:-?} executions (${speed:-?}/s), ${coverage:-cov: ?}, no crash"
  else
    status=1
    echo "fuzz: $name FAILED (exit $code) after ${runs:-?} executions; the end of its log:" >&2
    tail -60 "$log" >&2
    ls -l "$artifacts" >&2 || true
  fi
done
exit $status
