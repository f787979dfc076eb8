# Shared harness of the CLI tests (tests/cli/*.sh): sourced, never run on its own.
# It lives in a subfolder so that CMake's tests/cli/*.sh glob does not make it a test.
#
#   source "$(dirname "$0")/lib/harness.sh"
#   cli_setup "$@"                       # $dlsim, $src, a scratch $tmp removed on exit
#   check "what it shows" cmd args...    # stops the script at the first failure
#   expect_refused NAME WHERE TEXT [CONTAINS] [-- dlsim-run args...]
#   refusals_summary                     # prints the tally; fails if any case failed
#   skip_without_mpi                     # exit 0 (SKIPPED) when dlsim has no MPI
#   failure_scenario KIND > FILE         # a 3x3 torus run in which workers 3 and 6 fail

# cli_setup DLSIM_BINARY [SOURCE_DIR]
cli_setup() {
  dlsim=$1
  src=${2:-}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  py=/usr/bin/python3
  passed=0
  failures=0
  count=0
}

# skip_without_mpi: exits 0 with a SKIPPED line when dlsim was built without MPI. (The
# help is read whole: `dlsim --help | grep -q` under pipefail can fail when grep exits
# before dlsim has written everything.)
skip_without_mpi() {
  local help
  help=$("$dlsim" sweep --help)
  if [[ $help != *"built with MPI"* ]]; then
    echo "SKIPPED: dlsim was built without MPI (CMake's find_package(MPI) failed; install" \
      "libopenmpi-dev openmpi-bin and reconfigure)"
    exit 0
  fi
}

# sanitizer_build: prints 1 when $dlsim is built with a sanitizer (AddressSanitizer or
# ThreadSanitizer: its allocator replaces malloc, and ulimit -v cannot hold its shadow
# memory), else 0. (grep -c reads all of ldd's output: `ldd | grep -q` under pipefail
# fails at random when grep exits first and ldd dies of SIGPIPE.)
sanitizer_build() {
  local found
  found=$(ldd "$dlsim" 2> /dev/null | grep -cE 'lib(a|t)san' || true)
  [ "$found" != 0 ] && echo 1 || echo 0
}

# check DESCRIPTION COMMAND...: runs COMMAND (stdin is passed through, so a heredoc
# Python check works); on failure prints what was being checked and exits 1.
check() {
  local what=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAIL: $what"
    echo "$passed passed, 1 failed"
    exit 1
  fi
}

# expect_refused NAME WHERE-PREFIX SCENARIO-TEXT [CONTAINS] [-- extra dlsim-run args...]
# The docs/design.md §3 refusal: exit code 2, exactly one stderr line starting with
# `dlsim: error: WHERE-PREFIX` (and containing CONTAINS when given), no output folder.
# Failures are tallied, not fatal, so one run reports every broken case.
expect_refused() {
  local name=$1 where=$2 text=$3 contains=""
  shift 3
  if [ $# -gt 0 ] && [ "$1" != "--" ]; then contains=$1; shift; fi
  if [ $# -gt 0 ]; then shift; fi  # the "--"
  count=$((count + 1))
  local file="$tmp/$name.json" out="$tmp/out-$name"
  printf '%s' "$text" > "$file"
  "$dlsim" run "$file" --out "$out" --quiet "$@" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  local lines first
  lines=$(wc -l < "$tmp/stderr")
  first=$(head -n 1 "$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2 (stderr: $first)"; failures=$((failures + 1)); return
  fi
  if [ "$lines" -ne 1 ]; then
    echo "FAIL $name: $lines lines on stderr, expected 1:"; cat "$tmp/stderr"; failures=$((failures + 1)); return
  fi
  case "$first" in
    "dlsim: error: $where"*) ;;
    *) echo "FAIL $name: got '$first', expected prefix 'dlsim: error: $where'"; failures=$((failures + 1)); return ;;
  esac
  if [ -n "$contains" ] && [[ "$first" != *"$contains"* ]]; then
    echo "FAIL $name: '$first' does not contain '$contains'"; failures=$((failures + 1)); return
  fi
  if [ -e "$out" ]; then
    echo "FAIL $name: the output folder was created"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $first"
}

# refusals_summary: the tally line; the script's status is its result.
refusals_summary() {
  echo "$((count - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# expect_refused_command NAME WHERE-PREFIX CONTAINS MUST-NOT-EXIST -- dlsim args...
# Like expect_refused for any dlsim command line: exit code 2, exactly one stderr line
# starting with `dlsim: error: WHERE-PREFIX` and containing CONTAINS (may be empty), and
# the path MUST-NOT-EXIST (may be empty) not created.
expect_refused_command() {
  local name=$1 where=$2 contains=$3 absent=$4
  shift 5  # the four above and the "--"
  count=$((count + 1))
  "$dlsim" "$@" > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
  local rc=$?
  local lines first
  lines=$(wc -l < "$tmp/stderr")
  first=$(head -n 1 "$tmp/stderr" | cut -c1-300)
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2 (stderr: $first)"; failures=$((failures + 1)); return
  fi
  if [ "$lines" -ne 1 ]; then
    echo "FAIL $name: $lines lines on stderr, expected 1:"; head -c 600 "$tmp/stderr"; failures=$((failures + 1)); return
  fi
  case "$first" in
    "dlsim: error: $where"*) ;;
    *) echo "FAIL $name: got '$first', expected prefix 'dlsim: error: $where'"; failures=$((failures + 1)); return ;;
  esac
  if [ -n "$contains" ] && [[ "$first" != *"$contains"* ]]; then
    echo "FAIL $name: '$first' does not contain '$contains'"; failures=$((failures + 1)); return
  fi
  if [ -n "$absent" ] && [ -e "$absent" ]; then
    echo "FAIL $name: $absent was created"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $first"
}

# failure_scenario KIND: prints a scenario of gossip algorithm KIND (dpsgd, choco-sgd, sgp)
# on a 3x3 torus in which workers 3 and 6 fail mid-run (60 us and 150 us), with per-worker
# metrics and saved models (failure_per_worker.sh, run_mpi.sh).
failure_scenario() {
  local kind=$1 extra=""
  if [ "$kind" = choco-sgd ]; then
    extra=', "consensus_step": 0.4, "compressor": {"kind": "top-k", "k": 4}'
  fi
  cat <<JSON
{"name": "fail-$kind", "workers": 9, "seed": 4,
 "data": {"source": "synthetic-classification", "samples": 4000, "features": 10, "classes": 2},
 "model": {"kind": "logistic"},
 "algorithm": {"kind": "$kind", "step_size": 0.1, "batch_size": 4$extra},
 "topology": {"kind": "torus", "dims": [3, 3]},
 "network": {"latency": "5us", "bandwidth": "1Gbps",
             "faults": {"fail": [{"node": 3, "at": "60us"}, {"node": 6, "at": "150us"}]}},
 "stop": {"iterations": 40},
 "metrics": {"every": {"iterations": 5}, "per_worker": true},
 "output": {"save_model": true}}
JSON
}
