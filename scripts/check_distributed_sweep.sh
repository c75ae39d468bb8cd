#!/usr/bin/env bash
# Issue 15, section 1: the same small sweep run on the local pool, as Slurm
# array tasks run here one after the other (SLURM_ARRAY_TASK_ID set, then
# --collect), and on 3 MPI ranks gives identical results bit for bit
# (scripts/compare_sweeps.py). Also: --collect on a partial array, --resume
# under MPI reruns only the unfinished point, and the job script's array
# line. Usage: check_distributed_sweep.sh BUILD_DIR (the MPI part is skipped,
# with a message, when ftsim was built without MPI).
set -euo pipefail
build=$(cd "${1:?usage: check_distributed_sweep.sh BUILD_DIR}" && pwd)
ftsim=$build/ftsim
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > small.yaml <<YAML
name: small
experiment: $repo/experiments/mesh-uniform.yaml
set: {topology: "mesh:4x4", sim.warmup_cycles: 200, sim.measure_cycles: 1000, sim.max_drain_cycles: 1000}
grid:
  traffic.load: [0.05, 0.3]
  sim.seed: [1, 2, 3]
YAML
fail() { echo "check_distributed_sweep: $*" >&2; exit 1; }

"$ftsim" sweep small.yaml --out local --jobs 2 --quiet >/dev/null

# Array tasks 0 and 1 of 4 only: a partial collect sees 4 of 6 points
# (task 0 runs points 0 and 4, task 1 points 1 and 5).
for i in 0 1; do SLURM_ARRAY_TASK_ID=$i "$ftsim" sweep small.yaml --out tasks --tasks 4 --quiet; done
"$ftsim" sweep small.yaml --collect tasks 2> collect.err >/dev/null
grep -q "collected 4 of 6 points (0 failed, 2 not finished)" collect.err || fail "partial collect: $(cat collect.err)"
[[ $(grep -c ',not_run,' tasks/results.csv) == 2 ]] || fail "partial results.csv should mark 2 points not_run"
for i in 2 3; do "$ftsim" sweep small.yaml --out tasks --tasks 4 --task-id $i --quiet; done
"$ftsim" sweep small.yaml --collect tasks --quiet >/dev/null
# An array task resuming runs of another configuration stops before running.
if SLURM_ARRAY_TASK_ID=0 "$ftsim" sweep small.yaml --out tasks --tasks 4 --resume --quiet \
  --set sim.measure_cycles=777 2> task-mismatch.log; then
  fail "array task --resume accepted runs of another configuration"
fi
grep -q "777 in this sweep" task-mismatch.log || fail "task mismatch: $(cat task-mismatch.log)"
dirs=(local tasks)

if "$ftsim" --version | grep -q "MPI sweep backend on"; then
  mpi=(mpirun --allow-run-as-root --oversubscribe -n 3)
  "${mpi[@]}" "$ftsim" sweep small.yaml --out mpi --quiet >/dev/null
  dirs+=(mpi)
  # --resume: only the point without its outputs runs again.
  rm mpi/run_0003/stats.json
  touch -d '2000-01-01' mpi/run_0000/stats.json
  "${mpi[@]}" "$ftsim" sweep small.yaml --out mpi --quiet --resume >/dev/null
  [[ -f mpi/run_0003/stats.json ]] || fail "MPI --resume did not rerun run_0003"
  [[ $(stat -c %Y mpi/run_0000/stats.json) == $(date -d '2000-01-01' +%s) ]] || fail "MPI --resume reran a finished point"
  # --resume under another configuration: every rank stops, nothing runs.
  if timeout 60 "${mpi[@]}" "$ftsim" sweep small.yaml --out mpi --quiet --resume --set sim.measure_cycles=777 \
    > mpi-mismatch.log 2>&1; then
    fail "MPI --resume accepted runs of another configuration"
  fi
  grep -q "sim.measure_cycles is .* there, 777 in this sweep" mpi-mismatch.log || fail "MPI mismatch: $(cat mpi-mismatch.log)"
  [[ $(stat -c %Y mpi/run_0000/stats.json) == $(date -d '2000-01-01' +%s) ]] || fail "MPI mismatch rewrote a run"
else
  echo "check_distributed_sweep: ftsim built without MPI; MPI part skipped"
fi
python3 "$repo/scripts/compare_sweeps.py" "${dirs[@]}"

# The job script: 6 points in 6 tasks, at most 2 at once, an extra line.
"$ftsim" sweep small.yaml --out slurm --slurm --no-submit --slurm-max-running 2 \
  --sbatch-option=--partition=short --set traffic.packet_flits=4 >/dev/null
script=slurm/slurm/sweep.sbatch
grep -qx '#SBATCH --array=0-5%2' $script || fail "array line: $(grep array $script)"
grep -qx '#SBATCH --partition=short' $script || fail "extra #SBATCH line missing"
grep -q -- "--tasks 6 --resume --quiet --set 'traffic.packet_flits=4'" $script || fail "task command: $(tail -1 $script)"
echo "check_distributed_sweep: ok (${dirs[*]})"
