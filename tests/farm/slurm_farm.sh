#!/usr/bin/env bash
# The farm recipes as a user runs them (docs/farm.md): a one-node Slurm cluster (munged, slurmctld
# and slurmd from Debian's munge and slurm-wlm, on private ports and a private munge socket, as
# root) takes scripts/farm/submit.sh's npu bench array of 4 tasks and npu opcheck array of 3, each
# with its merge chained by --dependency=afterany; the merged reports must equal a single-machine
# run's apart from wall times and the shard list. An array of 4 tasks updating one baseline file
# loses no entry; a cancelled task makes the chained merge name its folder. Then every `run:` line
# of the CI-matrix example (scripts/farm/github-actions.yml) runs with the matrix substituted, and
# its merged report must equal the same single-machine run.
# Exit 77 (ctest: skipped) with the reason when the scheduler cannot be started here; exit 1 when
# it started and the recipes fail.
set -uo pipefail
npu="$1"; src="$2"
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; status=1; }
status=0

[ "$(id -u)" -eq 0 ] || skip "the one-node Slurm cluster needs root (daemons as root)"
for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" >/dev/null || skip "$tool not found: install munge and slurm-wlm (make test-farm does)"
done

tmp=$(mktemp -d /tmp/npu-farm.XXXXXX)
chmod 755 "$tmp"  # munged wants the socket's folder searchable by all
cleanup() {
  for f in slurmd slurmctld munged; do
    [ -s "$tmp/$f.pid" ] && kill "$(cat "$tmp/$f.pid")" 2>/dev/null
  done
  sleep 1
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
node=$(hostname -s)
mkdir -p state spool work
dd if=/dev/urandom of=munge.key bs=1024 count=1 2>/dev/null
chmod 600 munge.key
munged --force --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
  || skip "munged did not start: $(tail -3 munged.log 2>/dev/null)"
touch plugstack.conf
cat > slurm.conf <<EOF
ClusterName=npufarm
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
PlugStackConfig=$tmp/plugstack.conf
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=farm Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -3 slurmctld.log 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N "$node" || skip "slurmd did not start: $(tail -3 slurmd.log 2>/dev/null)"
for _ in $(seq 60); do
  [ "$(sinfo -h -o %t 2>/dev/null)" = "idle" ] && break
  sleep 0.5
done
[ "$(sinfo -h -o %t 2>/dev/null)" = "idle" ] \
  || skip "the node did not come up: sinfo: $(sinfo 2>&1 | tail -1); slurmctld: $(tail -2 slurmctld.log); slurmd: $(tail -2 slurmd.log)"
echo "slurm: one node ($node, $(nproc) CPUs) up in $tmp"

# The user's side: the source tree's recipes, the built npu, a work folder.
cd work
ln -s "$src/scripts" scripts
mkdir build && ln -s "$npu" build/npu
wait_jobs() {  # wait_jobs JOB... until none is queued or running (10 minutes at most)
  for _ in $(seq 1200); do
    [ -z "$(squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  fail "jobs $* still queued or running after 10 minutes: $(squeue)"
  return 1
}

read -r bench_array bench_merge < <(scripts/farm/submit.sh bench 4 farm/bench) \
  || fail "submit.sh bench"
read -r op_array op_merge < <(scripts/farm/submit.sh opcheck 3 farm/opcheck all --count 330 --seed 7) \
  || fail "submit.sh opcheck"
echo "submitted: bench array $bench_array, merge $bench_merge; opcheck array $op_array, merge $op_merge"
# Meanwhile, the same work on this machine.
build/npu bench --jobs 2 --out single/bench >single-bench.log 2>&1 || fail "single bench run: $(tail -5 single-bench.log)"
build/npu opcheck all --count 330 --seed 7 --report single/opcheck --out single/repros >single-opcheck.log 2>&1 \
  || fail "single opcheck run: $(tail -5 single-opcheck.log)"
wait_jobs "$bench_array" "$bench_merge" "$op_array" "$op_merge"
for job in "$bench_merge" "$op_merge"; do
  state=$(scontrol show job "$job" 2>/dev/null | tr ' ' '\n' | grep -E '^(JobState|ExitCode)=' | tr '\n' ' ')
  case "$state" in
    *"JobState=COMPLETED ExitCode=0:0"*) ;;
    *) fail "merge job $job: $state; $(cat farm/*/logs/npu-merge-"$job".log 2>/dev/null)" ;;
  esac
done
ls farm/bench/shard-1 farm/bench/merged farm/opcheck/merged >/dev/null || fail "merged reports missing: $(ls -R farm)"
[ "$(ls -d farm/bench/shard-* | wc -l)" -eq 4 ] || fail "bench shards: $(ls farm/bench)"
grep -q '^- Shards: merged from 4 shards of 4 ' farm/bench/merged/bench.md || fail "bench merge: $(head -8 farm/bench/merged/bench.md)"
"$src/tests/subnet_bench/compare_merged.py" single/bench farm/bench/merged \
  || fail "the Slurm-merged bench reports differ from the single-machine run's"
"$src/tests/subnet_bench/compare_merged.py" single/opcheck farm/opcheck/merged \
  || fail "the Slurm-merged opcheck reports differ from the single-machine run's"

# The array of the issue that asked for all this: every task updates one shared baseline file
# whose figures were all 5% high; afterwards a plain run finds every figure as measured. One CPU a
# task, so that two tasks run at once on this node and their updates overlap.
few='^(gap_fc_head|mbv2_inverted_residual_s1|mbv2_inverted_residual_s2|se_block|c2f_block|sppf)$'
/usr/bin/python3 - "$src/subnet_bench/baselines/npu-s.yaml" <<'EOF' || fail "writing base.yaml"
import re, sys
text = open(sys.argv[1]).read()
raise5 = lambda m: m.group(1) + str(int(m.group(2)) * 105 // 100)
open("base.yaml", "w").write(re.sub(r"(cycles: )(\d+)", raise5, text))
EOF
read -r upd_array upd_merge < <(ARRAY_ARGS=--cpus-per-task=1 scripts/farm/submit.sh bench 4 farm/update --filter "$few" \
  --baseline base.yaml --update-baselines) || fail "submit.sh bench --update-baselines"
wait_jobs "$upd_array" "$upd_merge"
build/npu bench --filter "$few" --baseline base.yaml --out after-update >after-update.log 2>&1 \
  || fail "the run after the array's update: $(tail -3 after-update.log)"
grep -q 'cycles vs baseline: 0 regressions, 0 improvements, 6 within tolerance' after-update.log \
  || fail "baseline entries lost by the array's concurrent updates: $(grep "^bench " after-update.log)"

# A task killed by the scheduler: the chained merge names its folder and fails.
read -r kill_array kill_merge < <(scripts/farm/submit.sh bench 2 farm/killed --filter '^(resnet_bottleneck|gap_fc_head)$')
for _ in $(seq 600); do
  [ -e farm/killed/shard-1/bench.partial ] && break
  sleep 0.05
done
scancel "${kill_array}_1"  # as a time limit or a preemption ends a task
wait_jobs "$kill_array" "$kill_merge"
grep -q "npu: error: farm/killed/shard-1: did not finish (bench.partial is there" farm/killed/logs/npu-merge-"$kill_merge".log \
  || fail "the merge after a killed task: $(cat farm/killed/logs/npu-merge-"$kill_merge".log 2>/dev/null)"

# The CI-matrix example, step by step: each matrix job's `run:` lines with the matrix substituted
# (`make build` is the build this test runs with), the artifacts copied as download-artifact does.
/usr/bin/python3 - "$src/scripts/farm/github-actions.yml" > ci-steps.sh <<'EOF' || fail "reading the CI example"
import itertools, re, sys, yaml
workflow = yaml.safe_load(open(sys.argv[1]))
for name, job in workflow["jobs"].items():
    matrix = job.get("strategy", {}).get("matrix", {})
    keys = list(matrix)
    for values in itertools.product(*(matrix[k] for k in keys)) if keys else [()]:
        env = dict(zip(keys, values))
        print(f"echo 'job {name} {env}'")
        for step in job["steps"]:
            if "run" not in step or step["run"].strip() == "make build":
                continue
            run = re.sub(r"\$\{\{ *matrix\.(\w+) *\}\}", lambda m: str(env[m.group(1)]), step["run"])
            assert "${{" not in run, run
            print(run.strip() + " || echo \"step failed: $?\"")
EOF
mkdir ci && (cd ci && ln -s ../build build && bash ../ci-steps.sh) > ci.log 2>&1
grep -q 'step failed' ci.log && fail "a CI example step failed: $(cat ci.log)"
[ -d ci/bench-report ] || fail "the CI example wrote no merged report: $(cat ci.log)"
"$src/tests/subnet_bench/compare_merged.py" single/bench ci/bench-report \
  || fail "the CI example's merged report differs from the single-machine run's"
exit $status
