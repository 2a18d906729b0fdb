#!/usr/bin/env bash
# The comparison of training recipes (docs/results/2026-11-25-policy-loss-and-recipe.md) for the sequence
# families (issue #20, item 6), on policy-small at equal steps: recipe B
# (configs/policy-small.yaml as it is: AdamW 3e-4, weight decay 0.01, warm-up
# and cosine, clipping 1, batch 128) against recipe A (Adam 1e-3, constant
# rate, clipping 1, batch 32) and B at batch 32, each with and without
# legal_mask. Every run is scored on the first 500 test positions.
#
#   scripts/studies/policy-recipes.sh [DATA_DIR] [RUNS_DIR] [STEPS]
#       (defaults studies/d8pv4/labelled, studies/recipes, 5000)
#
# A rerun skips finished runs and scores and resumes an interrupted run.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
data=${1:-studies/d8pv4/labelled}
runs=${2:-studies/recipes}
steps=${3:-5000}
mkdir -p "$runs"
base=configs/policy-small.yaml
grep -q '^  name: adamw' "$base" || { echo "$base is not recipe B any more" >&2; exit 1; }

# recipe NAME: writes RUNS/NAME.yaml from the base config.
recipe() {
	local out=$runs/$1.yaml
	local mask=true
	case $1 in *-nomask) mask=false ;; esac
	sed -e "s/^  legal_mask: true/  legal_mask: $mask/" -e "s/^  decay_steps: [0-9]*/  decay_steps: $((steps - 250))/" \
		-e "s/^max_steps: [0-9]*/max_steps: $steps/" "$base" >"$out.tmp"
	case $1 in
	a*) sed -i -e 's/^  name: adamw.*/  name: adam/' -e 's/^  lr: .*/  lr: 0.001/' -e 's/^  weight_decay: .*/  weight_decay: 0/' \
		-e 's/^  schedule: cosine.*/  schedule: constant/' -e 's/^  warmup_steps: .*/  warmup_steps: 0/' \
		-e 's/^  decay_steps: .*/  decay_steps: 0/' -e 's/^batch_size: .*/batch_size: 32/' "$out.tmp" ;;
	b32*) sed -i 's/^batch_size: .*/batch_size: 32/' "$out.tmp" ;;
	esac
	mv "$out.tmp" "$out"
	echo "$out"
}

for r in a-nomask b32-nomask b128-nomask a b128; do
	run=$runs/policy-$r
	if [ ! -f "$run/model.dcw" ]; then
		if compgen -G "$run/checkpoint/*.dcw" >/dev/null; then
			"$dchess" train --model policy --data "$data" --out "$run" --resume
		else
			"$dchess" train --model policy --config "$(recipe "$r")" --data "$data" --out "$run"
		fi
	fi
	[ -f "$run.eval.json" ] || "$dchess" eval --player "policy:$run/model.dcw" --data "$data" --limit 500 --json --quiet >"$run.eval.json"
	grep -o '"action_accuracy": [^,]*' "$run.eval.json" | sed -n 1p | sed "s/^/$r: /"
done
