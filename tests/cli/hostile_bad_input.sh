#!/usr/bin/env bash
# Hostile input, round two (issue 22): nesting bombs, endless or huge files, numbers
# beyond a double, overflowing stop criteria and quantities, unsafe names and output
# folders, hostile command-line values, and errors that must stay one short line. Each
# is refused like every bad input (docs/design.md §3): exit code 2, one line
# `dlsim: error: <where>: <what>`, nothing written.
# Usage: hostile_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"
mkdir -p "$tmp/cwd" && cd "$tmp/cwd" || exit 1  # a default results/ would appear here

small='"workers": 2, "stop": {"iterations": 2}'
printf '{%s}' "$small" > "$tmp/ok.json"
deep_array=$($py -c "print('[' * 50000 + ']' * 50000)")
deep_object=$($py -c "print('{\"a\":' * 50000 + '1' + '}' * 50000)")
deep_key=$($py -c "print('a.' * 50000 + 'b')")

# --- depth, size and kind of input ------------------------------------------------
expect_refused nesting_file "" "$deep_object" "nested deeper than 512"
expect_refused nesting_just_too_deep "" "$($py -c "print('{\"a\":' * 513 + '1' + '}' * 513)")" "nested deeper than 512"
expect_refused_command nesting_set "--set" "nested deeper than 512" results -- run "$tmp/ok.json" --set "x=$deep_array"
expect_refused_command nesting_set_key "--set" "nested deeper than 512" results -- run "$tmp/ok.json" --set "$deep_key=1"
expect_refused_command nesting_grid "--grid" "nested deeper than 512" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --grid "seed=$deep_array"
expect_refused_command nesting_grid_key "--grid" "nested deeper than 512" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --grid "$deep_key=1,2"
expect_refused_command dev_zero "/dev/zero" "not a regular file" results -- run /dev/zero
expect_refused_command directory "$tmp" "is a directory" results -- run "$tmp"
truncate -s 65M "$tmp/huge.json"
expect_refused_command huge_file "$tmp/huge.json" "at most 64 MiB" results -- run "$tmp/huge.json"
printf '{"workers": 2}\0garbage' > "$tmp/nul.json"
expect_refused_command nul_and_garbage "$tmp/nul.json" "NUL byte" results -- validate "$tmp/nul.json"
# A pipe is read (bounded), so `dlsim validate <(...)` works.
check "a scenario from a pipe is read" bash -c "'$dlsim' validate <(printf '{%s}' '$small') > /dev/null"

# --- numbers and quantities -------------------------------------------------------
expect_refused number_overflow "" '{"workers": 2, "seed": 1e999}' "number out of range '1e999'"
expect_refused number_overflow_nested "" '{"workers": 2, "network": {"latency": -1e400}}' "number out of range"
expect_refused rate_overflow "network.bandwidth" '{"workers": 2, "network": {"bandwidth": "1e308Tbps"}}' "must be finite"
expect_refused header_overflow "network.header" '{"workers": 2, "network": {"header": "1e30GB"}}' "at most 2^53 bits"
expect_refused time_below_resolution "stop.sim_time" '{"workers": 2, "stop": {"sim_time": 1e-300}}' "rounds to 0 ps"
expect_refused time_beyond_clock "stop.sim_time" '{"workers": 2, "stop": {"sim_time": "1e10s"}}' "106 days"
expect_refused epochs_overflow "stop.epochs" '{"workers": 2, "stop": {"epochs": 1e18}}' "more than a run can count"
expect_refused_command set_number_overflow "seed" "" results -- run "$tmp/ok.json" --set seed=1e999

# --- names and output folders -----------------------------------------------------
long_name=$($py -c "print('x' * 300)")
expect_refused name_too_long "name" "{\"name\": \"$long_name\", $small}" "longer than 128"
expect_refused name_nul "name" "{\"name\": \"a\\u0000b\", $small}" "control characters"
expect_refused name_newline "name" "{\"name\": \"a\\nb\", $small}" "control characters"
expect_refused name_dotdot "name" "{\"name\": \"../../escape\", $small}" "slash"
expect_refused name_is_dotdot "name" "{\"name\": \"..\", $small}" '".."'
expect_refused name_empty "name" "{\"name\": \"\", $small}" "empty"
# Without --out the name makes the folder: nothing may appear under results/.
printf '{"name": "../../escape", %s}' "$small" > "$tmp/escape.json"
expect_refused_command name_default_folder "name" "" results -- run "$tmp/escape.json"
expect_refused_command out_empty "--out" "empty" results -- run "$tmp/ok.json" --out ""
touch "$tmp/a_file"
expect_refused_command out_is_file "--out" "not a folder" "" -- run "$tmp/ok.json" --out "$tmp/a_file"
expect_refused_command out_under_file "--out" "not a folder" "$tmp/a_file/x" -- run "$tmp/ok.json" --out "$tmp/a_file/x"
expect_refused_command out_dev_full "--out" "not a folder" "" -- run "$tmp/ok.json" --out /dev/full
printf '{"workers": 2, "output": {"dir": "%s"}}' "$tmp/a_file" > "$tmp/dir_file.json"
expect_refused_command output_dir_is_file "output.dir" "not a folder" "" -- run "$tmp/dir_file.json"
check "a_file is untouched" test ! -s "$tmp/a_file"

# --- the command line ---------------------------------------------------------------
expect_refused_command unknown_command "command line" 'unknown command "bogus"' "" -- bogus
expect_refused_command trace_limit_negative "command line" "at least 0" results -- run "$tmp/ok.json" --trace-limit -1
expect_refused_command repeat_zero "command line" "--repeat: must be at least 1, got 0" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --repeat 0
expect_refused_command repeat_huge "--repeat" "more than 100000 runs" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --repeat 1000000000
expect_refused_command grid_huge "sweep" "more than 100000 runs" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --grid "seed=$(seq -s, 1 400)" --grid "workers=$(seq -s, 2 401)"
expect_refused_command sweep_seed_wraps "seed" "beyond the largest seed" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --set seed=9223372036854775807 --repeat 2
expect_refused_command jobs_zero "command line" "at least 1" "$tmp/sweep" -- sweep "$tmp/ok.json" --out "$tmp/sweep" --jobs 0

# --- one line, whatever the input holds -----------------------------------------------
expect_refused key_with_newline '["a\nb"]' '{"workers": 2, "a\nb": 1}' 'unknown key "a\nb"'
expect_refused_command value_with_newline "" "" results -- run "$tmp/ok.json" --set "$(printf 'name=a\nb')"
expect_refused_command key_with_newline_set "" "" results -- run "$tmp/ok.json" --set "$(printf 'a\nb=1')"
$py -c "print('{\"workers\": 2, \"' + 'k' * 20000000 + '\": 1}')" > "$tmp/long_key.json"
expect_refused_command long_unknown_key "" "unknown key" results -- run "$tmp/long_key.json"
check "the long key is not echoed whole" test "$(wc -c < "$tmp/stderr")" -lt 400
$py -c "print('0 1 ' + '9' * 1000000)" > "$tmp/long_line.edges"
edge() { printf '{"workers": 4, "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "edge-list", "path": "%s"}, "stop": {"iterations": 2}}' "$1"; }
expect_refused edge_list_long_line "topology.path" "$(edge "$tmp/long_line.edges")" "expected two node ids"
check "the 1 MB line is not echoed whole" test "$(wc -c < "$tmp/stderr")" -lt 400
mkdir -p "$tmp/edges_dir"
expect_refused edge_list_directory "topology.path" "$(edge "$tmp/edges_dir")" "is a directory"

# --- data files -------------------------------------------------------------------------
printf 'label\n1\n0\n' > "$tmp/only_label.csv"
csv() { printf '{"workers": 2, "data": {"source": "csv", "path": "%s", "test_fraction": 0}, "model": {"kind": "logistic"}, "algorithm": {"batch_size": 1}, "stop": {"iterations": 2}}' "$1"; }
expect_refused csv_only_label "data" "$(csv "$tmp/only_label.csv")" "no feature columns"
printf '\xef\xbb\xbfx,label\n1,1\n2,0\n3,1\n4,0\n' > "$tmp/bom.csv"
csv "$tmp/bom.csv" > "$tmp/bom.json"
check "a CSV with a UTF-8 byte order mark is read" bash -c "'$dlsim' validate '$tmp/bom.json' > /dev/null"

check "nothing was written under results/" test ! -e results
refusals_summary
