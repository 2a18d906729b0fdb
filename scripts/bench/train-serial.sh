#!/usr/bin/env bash
# What two cores would give each training step on a quiet machine, from CPU
# time rather than wall time, which a loaded machine still measures: the
# step's CPU milliseconds on 1 core (1 worker, C1) and on 2 cores (2
# workers, C2, under a CPU profile), the serial share s of the 2-worker
# profile (scripts/bench/serial_share.py), and the estimate
# C1 / (C2 (s + (1 - s) / 2)): the serial part runs alone, the rest on both
# cores. Wall samples/s are printed beside it for the record.
# Usage: scripts/bench/train-serial.sh [RUNS] [MODELS]
#   MODELS: a comma-separated subset of ann,cnn,nnue,policy-small,diffusion-small.
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
models=${2:-ann,cnn,nnue,policy-small,diffusion-small}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/train.test" ./pipeline/train/

# Steps a measurement: a few seconds of CPU each.
steps() {
	case $1 in
	ann) echo 3000 ;; cnn) echo 400 ;; nnue) echo 300 ;; policy-small) echo 12 ;; *) echo 3 ;;
	esac
}

# bench CORES MODEL [PROFILE]: the benchmark's output line on CORES cores and workers.
bench() {
	(cd pipeline/train && "$tmp/train.test" -test.run '^$' -test.bench "BenchmarkTrainStepWorkers/$2/workers=$1\$" \
		-test.benchtime "$(steps "$2")x" -test.cpu "$1" ${3:+-test.cpuprofile "$3"}) | grep '^Benchmark'
}

field() { awk -v u="$2" '{for (f = 2; f < NF; f++) if ($(f+1) == u) print $f}' <<<"$1"; }

echo "run  model  C1_ms  C2_ms  split  serial_share  estimated_scaling  wall_samples/s_1  wall_samples/s_2"
for i in $(seq 1 "$runs"); do
	for model in ${models//,/ }; do
		one=$(bench 1 "$model")
		two=$(bench 2 "$model" "$tmp/cpu.prof")
		s=$(scripts/bench/serial_share.py "$tmp/train.test" "$tmp/cpu.prof" | sed 's/.*serial share //')
		awk -v i="$i" -v m="$model" -v c1="$(field "$one" cpu-ms/op)" -v c2="$(field "$two" cpu-ms/op)" -v s="$s" \
			-v w1="$(field "$one" samples/s)" -v w2="$(field "$two" samples/s)" 'BEGIN {
			printf "%d  %s  %.3f  %.3f  %+.1f%%  %.3f  %.2f  %s  %s\n", i, m, c1, c2, 100 * (c2 / c1 - 1), s,
				c1 / (c2 * (s + (1 - s) / 2)), w1, w2 }'
	done
done
