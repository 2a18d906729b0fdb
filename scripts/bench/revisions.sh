# Sourced by the bench scripts that compare two revisions (anything git
# names, or "." for the working tree): with revs set, it sets root, makes
# the temporary folder work (removed on exit), and checks out each
# revision's tree, trees[i] (the repository itself for ".").
# shellcheck shell=bash
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work=$(mktemp -d /tmp/dchess-bench.XXXXXX)
trap 'for w in "$work"/tree-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$work"' EXIT
trees=()
for i in "${!revs[@]}"; do
	trees[i]=$root
	if [ "${revs[$i]}" != "." ]; then
		trees[i]=$work/tree-$i
		git -C "$root" worktree add -f --detach "${trees[$i]}" "${revs[$i]}" -q
	fi
done
