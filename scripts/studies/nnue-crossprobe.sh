#!/usr/bin/env bash
# The NNUE study's cross-probe (issue #19, docs/results/2026-11-26-nnue-third-round-cosine.md): every network
# scored on the labelled positions of every probe (scripts/studies/
# nnue-probe.sh: the games a network played against the heuristic at depth
# 4), so each is judged on positions other networks' searches steered to as
# well as its own, where it is biased: its search seeks out the positions
# it overvalues. Prints, for each network and the heuristic, the quiet
# positions' MSE and the share of positions where the depth-1 search plays
# Stockfish's move, per probe and pooled.
#
#   scripts/studies/nnue-crossprobe.sh OUT_DIR PROBE_PREFIX... -- NAME=MODEL.dcw...
#
# e.g. nnue-crossprobe.sh xprobe probe/nnue2 probe/dagger1 -- dagger1=nnue-dagger1.dcw dagger2=runs/exp-dagger2/model.dcw
# Scores are kept in OUT_DIR/PROBE.NAME.json; a rerun computes only the missing ones.
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 OUT_DIR PROBE_PREFIX... -- NAME=MODEL.dcw..." >&2
	exit 2
fi
out=$1
shift
probes=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	probes+=("$1")
	shift
done
[ "${1:-}" = -- ] || { echo "$0: no -- before the networks" >&2; exit 2; }
shift
. "$(dirname "$0")/env.sh"
mkdir -p "$out"
players=(heuristic=heuristic)
for nm in "$@"; do players+=("${nm%%=*}=nnue:${nm#*=}"); done
for probe in "${probes[@]}"; do
	set_name=$(basename "$probe")
	for p in "${players[@]}"; do
		f=$out/$set_name.${p%%=*}.json
		[ -f "$f" ] && continue
		"$dchess" eval --player "${p#*=}" --data "$probe.labelled" --depth 1 --json --quiet >"$f.tmp"
		mv "$f.tmp" "$f"
	done
done
python3 - "$out" "${probes[@]}" -- "${players[@]}" <<'EOF'
import json, os, sys
out = sys.argv[1]
i = sys.argv.index("--")
sets = [os.path.basename(p) for p in sys.argv[2:i]]
names = [p.split("=", 1)[0] for p in sys.argv[i + 1:]]
def row(label, cell, pooled):
    print(label.ljust(12) + "".join(c.rjust(12) for c in cell) + "  " + pooled)
print("quiet positions' MSE (positions)")
row("", sets, "pooled")
acc = {}
for n in names:
    cells, se, sn, ca, cn = [], 0.0, 0, 0.0, 0
    for s in sets:
        d = json.load(open(os.path.join(out, f"{s}.{n}.json")))
        q = d["value"]["quiet"]
        cells.append("%.5f" % q["mse"])
        se += q["mse"] * q["positions"]; sn += q["positions"]
        ca += d["action_accuracy"] * d["positions"]; cn += d["positions"]
        acc.setdefault(n, []).append("%.3f" % d["action_accuracy"])
    row(n, cells, "%.5f (%d)" % (se / sn, sn))
    acc[n].append("%.3f" % (ca / cn))
print("\nStockfish's move at depth 1")
row("", sets, "pooled")
for n in names:
    row(n, acc[n][:-1], acc[n][-1])
EOF
