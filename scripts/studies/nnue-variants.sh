#!/usr/bin/env bash
# Variants of the nnue recipe on the same data (issue #19's 150 ns goal,
# docs/results/2026-11-26-nnue-sparsity.md,
# docs/results/2026-11-26-nnue-pairwise.md): configs/nnue.yaml with some
# of its model settings changed, each trained on DATA, then each network's
# static accuracy on the first dataset's test split, its share of zero
# chunks and its ns a node (the models/nnue benchmarks, alternating the
# networks, minima), and each variant against the first, the same search
# to a fixed depth or at a clock.
#
#   scripts/studies/nnue-variants.sh DATA OUT VARIANT [VARIANT ...]
#   STEPS=10000 scripts/studies/nnue-variants.sh chunk-1/labelled OUT sparsity=0 sparsity=0.01 pairwise=true
#
# A VARIANT is KEY=VALUE[,KEY=VALUE...] of the config's model section; its
# run is OUT/KEY-VALUE[+KEY-VALUE...]. DATA is comma-separated labelled
# datasets. STEPS (default 10000) is the run's length and its cosine's;
# ROUNDS (default 7) the benchmark rounds; GAMES (default 100) the
# matches, at DEPTH (default 6), or at the clock TC (as 10+0.1) when set.
# A rerun skips the trained runs, the scores and the matches that are
# done, and continues an interrupted training run or match where it
# stopped.
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 DATA OUT VARIANT [VARIANT ...]   (a VARIANT is KEY=VALUE[,KEY=VALUE...])" >&2
	exit 2
fi
data=$1
out=$2
shift 2
variants=("$@")
. "$(dirname "$0")/env.sh"
steps=${STEPS:-10000}
first=${data%%,*}
mkdir -p "$out"
name() { local n=${1//=/-}; echo "${n//,/+}"; }
names=()
for v in "${variants[@]}"; do
	run=$out/$(name "$v")
	names+=("$(name "$v")")
	edits=(-e "s/^max_steps: [0-9]*/max_steps: $steps/" -e "s/^  decay_steps: [0-9]*/  decay_steps: $steps/")
	IFS=, read -ra settings <<<"$v"
	for kv in "${settings[@]}"; do
		key=${kv%%=*}
		if [[ $kv != *=* ]] || ! grep -q "^  $key: " "$root/configs/nnue.yaml"; then
			echo "$0: $kv is not KEY=VALUE of a model setting in configs/nnue.yaml" >&2
			exit 2
		fi
		edits+=(-e "s/^  $key: *[^ #]*/  $key: ${kv#*=}/")
	done
	sed "${edits[@]}" "$root/configs/nnue.yaml" >"$run.yaml"
	[ -f "$run/model.dcw" ] || train_run nnue "$data" "$run" "$run.yaml"
	# Written aside and moved, so that an interrupted score is redone, not skipped.
	[ -f "$run.eval.json" ] || { "$dchess" eval --player "nnue:$run/model.dcw" --data "$first" --depth 1 --json --quiet >"$run.eval.json.tmp" &&
		mv "$run.eval.json.tmp" "$run.eval.json"; }
done
# The benchmarks, one network after the other in each round.
(cd "$root/models/nnue" && go test -c -o "$out/nnue.test" .)
for r in $(seq 1 "${ROUNDS:-7}"); do
	for n in "${names[@]}"; do
		(cd "$root/models/nnue" && DCHESS_BENCH_NNUE=$out/$n/model.dcw "$out/nnue.test" -test.run '^$' \
			-test.bench 'UpdateEvaluate|EvaluatorNode|FirstLayer' -test.cpu 1 -test.benchtime 0.5s) |
			awk -v n="$n" '/^Benchmark/ { print n, $0 }'
	done
done >"$out/bench.txt"
echo "variant benchmark min_ns zero_chunks_%"
for n in "${names[@]}"; do
	for b in BenchmarkUpdateEvaluate BenchmarkEvaluatorNode BenchmarkFirstLayer; do
		awk -v n="$n" -v b="$b" '$1 == n && $2 == b { print $4, ($6 == "" ? "-" : $6) }' "$out/bench.txt" | sort -g | sed -n 1p |
			awk -v n="$n" -v b="$b" '{ print n, b, $1, $2 }'
	done
done
search=(--depth "${DEPTH:-6}")
suffix=
if [ -n "${TC:-}" ]; then
	search=(--tc "$TC")
	suffix=-tc-$TC
fi
base=${names[0]}
for n in "${names[@]:1}"; do
	m=$out/match-$n-vs-$base$suffix
	# Journalled (-o): an interrupted match continues where it stopped.
	[ -f "$m.json" ] || { "$dchess" match --a "nnue:$out/$n/model.dcw?name=$n" --b "nnue:$out/$base/model.dcw?name=$base" \
		"${search[@]}" --games "${GAMES:-100}" --openings "$root/../shared/data/openings/noob_2moves.epd" \
		--openings-order random --seed 7 --concurrency 2 --shard 0/1 -o "$m" --json --quiet >"$m.json.tmp" &&
		mv "$m.json.tmp" "$m.json"; }
done
