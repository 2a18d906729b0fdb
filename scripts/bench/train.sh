#!/usr/bin/env bash
# Training speed: dchess's Gorgonia training step (BenchmarkTrainStep: forward,
# backward, Adam at batch 256 on the thesis ANN and CNN; forward and backward
# at batch 1024 on the NNUE of configs/nnue.yaml, models/nnue, with and
# without its pairwise product: nnue-pairwise and nnue) against the same
# models in PyTorch on CPU (train_torch.py, the NNUE's first layer an
# EmbeddingBag), run back to back so the ratio is
# taken under the same machine load, with the same number of threads on both
# sides (Go's GOMAXPROCS via -test.cpu, torch.set_num_threads). Each side
# reports samples/s (wall) and CPU milliseconds per step (all threads), which
# other jobs on the machine disturb less. Also times the pure-Go CNN and ANN
# forward passes used at play time.
# Needs: apt-get install -y python3-torch libopenblas0-pthread
# Usage: [TAGS=openblas] [STEPS=300] scripts/bench/train.sh [RUNS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
threads=${2:-2}
steps=${STEPS:-300}
tags=${TAGS:-}
# Debian's torch is for the system Python, not one a version manager put first on PATH.
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -tags "$tags" -o "$tmp/train.test" ./pipeline/train/
go test -c -tags "$tags" -o "$tmp/nnue.test" ./models/nnue/

echo "threads ${threads}${tags:+, $tags}; samples/s (wall) and CPU ms per step; ratios dchess:PyTorch speed"
echo "run  model  dchess_samples/s  torch_samples/s  ratio  dchess_cpu_ms  torch_cpu_ms  cpu_ratio"
for i in $(seq 1 "$runs"); do
	torch_out=$("$python" scripts/bench/train_torch.py --threads "$threads" --seconds 3)
	for model in ann cnn nnue nnue-pairwise; do
		# The benchmark runs one step before the timed ones.
		if [[ $model = nnue* ]]; then
			bench=BenchmarkTrainStep
			[ "$model" = nnue ] || bench=BenchmarkTrainStepPairwise
			go_out=$({ /usr/bin/time -f "cpu %U %S" "$tmp/nnue.test" -test.run '^$' \
				-test.bench "$bench\$" -test.benchtime "${steps}x" -test.cpu "$threads"; } 2>&1)
		else
			go_out=$({ /usr/bin/time -f "cpu %U %S" "$tmp/train.test" -test.run '^$' \
				-test.bench "BenchmarkTrainStep/$model\$" -test.benchtime "${steps}x" -test.cpu "$threads"; } 2>&1)
		fi
		gs=$(awk '/^BenchmarkTrainStep/ {for (f = 1; f < NF; f++) if ($(f+1) == "samples/s") print int($f)}' <<<"$go_out")
		gcpu=$(awk -v n="$steps" '$1 == "cpu" {printf "%.2f", ($2 + $3) * 1000 / (n + 1)}' <<<"$go_out")
		ts=$(awk -v m="$model" '$1 == m {print $2}' <<<"$torch_out")
		tcpu=$(awk -v m="$model" '$1 == m {print $3}' <<<"$torch_out")
		ratio=$(awk -v a="$gs" -v b="$ts" 'BEGIN { printf "%.2f", a / b }')
		cpu_ratio=$(awk -v a="$gcpu" -v b="$tcpu" 'BEGIN { printf "%.2f", b / a }')
		echo "$i  $model  $gs  $ts  $ratio  $gcpu  $tcpu  $cpu_ratio"
	done
done
echo
echo "pure-Go forward pass per position (play time):"
go test -tags "$tags" -run '^$' -bench 'BenchmarkEvaluate' -benchtime 2s ./models/ann/ ./models/cnn/ | grep -E '^(Benchmark|ok|pkg)'
