#!/usr/bin/env bash
# Submits a sharded npu bench or npu opcheck run to Slurm and chains its merge (docs/bench.md,
# "Farms"):
#   scripts/farm/submit.sh bench SHARDS OUT [npu bench options]
#   scripts/farm/submit.sh opcheck SHARDS OUT OP --count C --seed S [npu opcheck options]
# One array of SHARDS tasks (bench-array.sbatch or opcheck-array.sbatch), each writing
# OUT/shard-<i>, then merge.sbatch with --dependency=afterany on the whole array, writing
# OUT/merged. Logs go to OUT/logs. Prints "<array job id> <merge job id>".
# Environment: NPU (the npu binary, default build/npu); ARRAY_ARGS (more sbatch options for the
# array, e.g. "--cpus-per-task=4 --time=30"); MERGE_ARGS (options for npu merge, e.g.
# "--allow-partial" or "--update-baselines"); sbatch's own SBATCH_* variables (partition,
# account, time limit) apply to every job.
set -euo pipefail
usage() {
  echo "usage: $0 bench|opcheck SHARDS OUT [options for npu bench or npu opcheck]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
kind=$1 shards=$2 out=$3
shift 3
case "$kind" in bench | opcheck) ;; *) usage ;; esac
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || usage
here=$(cd "$(dirname "$0")" && pwd)
export NPU=${NPU:-build/npu} FARM_OUT=$out
mkdir -p "$out/logs"
# shellcheck disable=SC2086  # ARRAY_ARGS and MERGE_ARGS are lists of options
array=$(sbatch --parsable --array="1-$shards" --output="$out/logs/%x-%A_%a.log" ${ARRAY_ARGS:-} \
  "$here/$kind-array.sbatch" "$@")
array=${array%%;*}  # "jobid;cluster" on a federation
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$out/logs/%x-%j.log" \
  "$here/merge.sbatch" ${MERGE_ARGS:-})
echo "${array} ${merge%%;*}"
