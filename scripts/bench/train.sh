#!/usr/bin/env bash
# Training speed: dchess's Gorgonia training step (BenchmarkTrainStep: forward,
# backward, Adam at batch 256 on the thesis ANN and CNN) against the same
# models in PyTorch on CPU (train_torch.py), run back to back so the ratio is
# taken under the same machine load, with the same number of threads on both
# sides (Go's GOMAXPROCS via -cpu, torch.set_num_threads). Also times the
# pure-Go CNN and ANN forward passes used at play time.
# Needs: apt-get install -y python3-torch libopenblas0-pthread
# Usage: [TAGS=openblas] scripts/bench/train.sh [RUNS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
threads=${2:-2}
# Debian's torch is for the system Python, not one a version manager put first on PATH.
python=${PYTHON:-/usr/bin/python3}
tags=${TAGS:-}
echo "run  model  dchess_samples/s(${threads} threads${tags:+, $tags})  torch_samples/s(${threads} threads)  ratio"
for i in $(seq 1 "$runs"); do
	go_out=$(go test -tags "$tags" -cpu "$threads" -run '^$' -bench 'BenchmarkTrainStep/(ann|cnn)$' -benchtime 3s ./pipeline/)
	torch_out=$("$python" scripts/bench/train_torch.py --threads "$threads" --seconds 3)
	for model in ann cnn; do
		gs=$(awk -v m="$model" '$1 ~ "BenchmarkTrainStep/"m {for (f = 1; f < NF; f++) if ($(f+1) == "samples/s") print int($f)}' <<<"$go_out")
		ts=$(awk -v m="$model" '$1 == m {print $2}' <<<"$torch_out")
		ratio=$(awk -v a="$gs" -v b="$ts" 'BEGIN { printf "%.2f", a / b }')
		echo "$i  $model  $gs  $ts  $ratio"
	done
done
echo
echo "pure-Go forward pass per position (play time):"
go test -tags "$tags" -run '^$' -bench 'BenchmarkEvaluate' -benchtime 2s ./models/ann/ ./models/cnn/ | grep -E '^(Benchmark|ok|pkg)'
