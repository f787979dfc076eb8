#!/usr/bin/env bash
# Bad learning-rate schedules (algorithm.schedule, sim/algorithms/lr_schedule.hpp) are
# refused like every malformed input (docs/design.md §3): exit 2, one line
# `dlsim: error: <where>: <what>`, nothing written.
# Usage: schedule_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"


S='"stop": {"iterations": 20}'
expect_refused unknown_kind "algorithm.schedule.kind" \
  '{"algorithm": {"schedule": {"kind": "cosine"}}, '"$S"'}'
expect_refused milestones_missing "algorithm.schedule" \
  '{"algorithm": {"schedule": {"kind": "step"}}, '"$S"'}'
expect_refused milestones_empty "algorithm.schedule.milestones" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": []}}, '"$S"'}'
expect_refused milestone_one "algorithm.schedule.milestones[1]" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.5, 1]}}, '"$S"'}'
expect_refused milestone_zero "algorithm.schedule.milestones[0]" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0]}}, '"$S"'}'
expect_refused milestones_decreasing "algorithm.schedule.milestones[1]: milestones must increase" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.75, 0.5]}}, '"$S"'}'
expect_refused milestones_repeated "algorithm.schedule.milestones[2]: milestones must increase" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.25, 0.5, 0.5]}}, '"$S"'}'
expect_refused factor_zero "algorithm.schedule.factor" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.5], "factor": 0}}, '"$S"'}'
expect_refused factor_above_one "algorithm.schedule.factor" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.5], "factor": 1.5}}, '"$S"'}'
expect_refused factor_on_constant "algorithm.schedule.factor" \
  '{"algorithm": {"schedule": {"kind": "constant", "factor": 0.5}}, '"$S"'}'
expect_refused warmup_negative "algorithm.schedule.warmup" \
  '{"algorithm": {"schedule": {"warmup": -1}}, '"$S"'}'
expect_refused warmup_fractional_iterations "algorithm.schedule.warmup: below 1 a fraction" \
  '{"algorithm": {"schedule": {"warmup": 2.5}}, '"$S"'}'
expect_refused fractions_without_iteration_bound "algorithm.schedule: milestones and fractional" \
  '{"algorithm": {"schedule": {"kind": "step", "milestones": [0.5]}}, "stop": {"sim_time": "1s"}}'
expect_refused warmup_fraction_without_iteration_bound "algorithm.schedule: milestones and fractional" \
  '{"algorithm": {"schedule": {"warmup": 0.1}}, "stop": {"sim_time": "1s"}}'
expect_refused alpc_svrg_schedule "algorithm.schedule: alpc-svrg" \
  '{"model": {"kind": "least-squares", "l2": 0.1}, "algorithm": {"kind": "alpc-svrg", "schedule": {"warmup": 5}}, '"$S"'}'
expect_refused schedule_not_object "algorithm.schedule" \
  '{"algorithm": {"schedule": "step"}, '"$S"'}'

refusals_summary
