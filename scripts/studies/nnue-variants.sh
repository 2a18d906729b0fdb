#!/usr/bin/env bash
# What the nnue config's sparsity setting buys and costs (issue #19's 150 ns
# goal, docs/strength.md): the recipe of configs/nnue.yaml trained on the
# same data with each sparsity, then each network's static accuracy on the
# first dataset's test split, its share of zero chunks and its ns a node
# (the models/nnue benchmarks, alternating the networks, minima), and each
# sparse network against the one without the penalty, the same search to
# a fixed depth.
#
#   scripts/studies/nnue-sparsity.sh DATA OUT [SPARSITY ...]
#
# DATA is comma-separated labelled datasets; sparsities default to 0 0.002
# 0.01 (0 first: the others play it). STEPS (default 10000) is the run's
# length and its cosine's; ROUNDS (default 7) the benchmark rounds; DEPTH
# (default 6) and GAMES (default 100) the matches. A rerun skips the
# trained runs, the scores and the matches that are done, and continues
# an interrupted training run or match where it stopped.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 DATA OUT [SPARSITY ...]" >&2
	exit 2
fi
data=$1
out=$2
shift 2
sparsities=("$@")
[ ${#sparsities[@]} -gt 0 ] || sparsities=(0 0.002 0.01)
. "$(dirname "$0")/env.sh"
steps=${STEPS:-10000}
first=${data%%,*}
mkdir -p "$out"
for s in "${sparsities[@]}"; do
	run=$out/sparsity-$s
	sed -e "s/^  sparsity: [0-9.e-]*/  sparsity: $s/" -e "s/^max_steps: [0-9]*/max_steps: $steps/" \
		-e "s/^  decay_steps: [0-9]*/  decay_steps: $steps/" "$root/configs/nnue.yaml" >"$run.yaml"
	if [ ! -f "$run/model.dcw" ]; then
		if compgen -G "$run/checkpoint/*.dcw" >/dev/null; then
			"$dchess" train --model nnue --data "$data" --out "$run" --resume --json >"$run.train.json"
		else
			"$dchess" train --model nnue --data "$data" --config "$run.yaml" --out "$run" --json >"$run.train.json"
		fi
	fi
	# Written aside and moved, so that an interrupted score is redone, not skipped.
	[ -f "$run.eval.json" ] || { "$dchess" eval --player "nnue:$run/model.dcw" --data "$first" --depth 1 --json --quiet >"$run.eval.json.tmp" &&
		mv "$run.eval.json.tmp" "$run.eval.json"; }
done
# The benchmarks, one network after the other in each round.
(cd "$root/models/nnue" && go test -c -o "$out/nnue.test" .)
for r in $(seq 1 "${ROUNDS:-7}"); do
	for s in "${sparsities[@]}"; do
		(cd "$root/models/nnue" && DCHESS_BENCH_NNUE=$out/sparsity-$s/model.dcw "$out/nnue.test" -test.run '^$' \
			-test.bench 'UpdateEvaluate|FirstLayer' -test.cpu 1 -test.benchtime 0.5s) |
			awk -v s="$s" '/^Benchmark/ { print s, $0 }'
	done
done >"$out/bench.txt"
echo "sparsity benchmark min_ns zero_chunks_%"
for s in "${sparsities[@]}"; do
	for b in BenchmarkUpdateEvaluate BenchmarkFirstLayer; do
		awk -v s="$s" -v b="$b" '$1 == s && $2 == b { print $4, ($6 == "" ? "-" : $6) }' "$out/bench.txt" | sort -g | sed -n 1p |
			awk -v s="$s" -v b="$b" '{ print s, b, $1, $2 }'
	done
done
for s in "${sparsities[@]:1}"; do
	m=$out/match-$s-vs-0
	# Journalled (-o): an interrupted match continues where it stopped.
	[ -f "$m.json" ] || { "$dchess" match --a "nnue:$out/sparsity-$s/model.dcw?name=sparsity-$s" --b "nnue:$out/sparsity-0/model.dcw?name=sparsity-0" \
		--depth "${DEPTH:-6}" --games "${GAMES:-100}" --openings "$root/../shared/data/openings/noob_2moves.epd" \
		--openings-order random --seed 7 --concurrency 2 --shard 0/1 -o "$m" --json --quiet >"$m.json.tmp" &&
		mv "$m.json.tmp" "$m.json"; }
done
