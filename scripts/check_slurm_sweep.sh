#!/usr/bin/env bash
# Issue 15, section 1: a real single-node Slurm (scripts/slurm_local.sh:
# munged, slurmctld, slurmd on localhost, started and stopped here) runs a
# small sweep submitted with `ftsim sweep --slurm` as a 3-task job array;
# `--collect` then merges it, and the results equal a local run bit for bit.
# Usage: check_slurm_sweep.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: check_slurm_sweep.sh BUILD_DIR}" && pwd)
ftsim=$build/ftsim
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ftsim-slurm.XXXXXX)
cleanup() { bash "$repo/scripts/slurm_local.sh" stop "$work/slurm" || true; rm -rf "$work"; }
trap cleanup EXIT
eval "$(bash "$repo/scripts/slurm_local.sh" start "$work/slurm")"
cd "$work"
cat > small.yaml <<YAML
name: small
experiment: $repo/experiments/mesh-uniform.yaml
set: {topology: "mesh:4x4", sim.warmup_cycles: 200, sim.measure_cycles: 1000, sim.max_drain_cycles: 1000}
grid:
  traffic.load: [0.05, 0.3]
  sim.seed: [1, 2, 3]
YAML
"$ftsim" sweep small.yaml --out local --jobs 2 --quiet >/dev/null
"$ftsim" sweep small.yaml --out viaslurm --slurm --slurm-tasks 3 | tee submit.txt
job=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' submit.txt)
[[ -n $job ]] || { echo "check_slurm_sweep: sbatch printed no job id" >&2; exit 1; }
for _ in $(seq 1200); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.1
done
[[ -z $(squeue -h -j "$job" 2>/dev/null) ]] || { echo "check_slurm_sweep: job $job still queued after 120 s" >&2; squeue >&2; exit 1; }
ls viaslurm/slurm/task-{0,1,2}.log >/dev/null
"$ftsim" sweep small.yaml --collect viaslurm 2>&1 | tee collect.txt
grep -q "collected 6 of 6 points (0 failed, 0 not finished)" collect.txt
python3 "$repo/scripts/compare_sweeps.py" local viaslurm
echo "check_slurm_sweep: ok (job $job, 3 array tasks)"
