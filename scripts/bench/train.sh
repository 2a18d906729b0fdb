#!/usr/bin/env bash
# Training speed on one and two cores: dchess's Gorgonia training step
# (BenchmarkTrainStepWorkers in pipeline/train: forward, backward and the
# optimizer on the default configs' batches, the batch split across as many
# workers as cores) against the same models in PyTorch on CPU
# (train_torch.py: ann, cnn, nnue, policy-small, diffusion-small), at 1 and 2
# cores (Go's GOMAXPROCS via -test.cpu, workers = cores) and 1 and 2 threads
# (torch.set_num_threads). For each model the four runs go back to back, so
# the ratios are taken under the same machine load. Each side reports
# samples/s (wall) and CPU milliseconds per step (all threads), which other
# jobs on the machine disturb less. Printed per model: samples/s at 1 and 2
# cores and their ratio (the scaling) for both, the dchess:PyTorch ratio of
# samples/s at 1 and at 2, and the CPU ms per step of the four runs. Also
# times the pure-Go CNN and ANN forward passes used at play time.
# Needs: apt-get install -y python3-torch libopenblas0-pthread
# Usage: [TAGS=openblas] [BENCHTIME=3] scripts/bench/train.sh [RUNS] [MODELS]
#   RUNS (default 3) rounds of every model; MODELS a comma-separated subset of
#   ann,cnn,nnue,policy-small,diffusion-small (the default); BENCHTIME each
#   measurement's seconds (at least one step is timed: diffusion-small's takes
#   about a second of CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
models=${2:-ann,cnn,nnue,policy-small,diffusion-small}
seconds=${BENCHTIME:-3}
tags=${TAGS:-}
# Debian's torch is for the system Python, not one a version manager put first on PATH.
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -tags "$tags" -o "$tmp/train.test" ./pipeline/train/

# dchess CORES MODEL: "samples/s cpu-ms" of the benchmark on CORES cores and workers.
dchess() {
	(cd pipeline/train && "$tmp/train.test" -test.run '^$' -test.bench "BenchmarkTrainStepWorkers/$2/workers=$1\$" \
		-test.benchtime "${seconds}s" -test.cpu "$1") |
		awk '/^BenchmarkTrainStepWorkers/ {for (f = 2; f < NF; f++) {
			if ($(f+1) == "samples/s") s = $f; if ($(f+1) == "cpu-ms/op") c = $f }; printf "%.1f %.3f\n", s, c}'
}

# torch THREADS MODEL: "samples/s cpu-ms" of the same step in PyTorch.
torch() {
	"$python" scripts/bench/train_torch.py --threads "$1" --seconds "$seconds" --models "$2" | awk '{print $2, $3}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "samples/s (wall) at 1 and 2 cores (dchess: workers = cores) and 1 and 2 threads (PyTorch)${tags:+, $tags}"
echo "run  model  dchess_1  dchess_2  scaling  torch_1  torch_2  scaling  dchess:torch_1  dchess:torch_2  cpu_ms_dchess_1/2  cpu_ms_torch_1/2"
for i in $(seq 1 "$runs"); do
	for model in ${models//,/ }; do
		read -r d1 dc1 < <(dchess 1 "$model")
		read -r t1 tc1 < <(torch 1 "$model")
		read -r d2 dc2 < <(dchess 2 "$model")
		read -r t2 tc2 < <(torch 2 "$model")
		echo "$i  $model  $d1  $d2  $(ratio "$d2" "$d1")  $t1  $t2  $(ratio "$t2" "$t1")  $(ratio "$d1" "$t1")  $(ratio "$d2" "$t2")  $dc1/$dc2  $tc1/$tc2"
	done
done
echo
echo "pure-Go forward pass per position (play time):"
go test -tags "$tags" -run '^$' -bench 'BenchmarkEvaluate' -benchtime 2s ./models/ann/ ./models/cnn/ | grep -E '^(Benchmark|ok|pkg)'
