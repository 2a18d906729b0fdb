package pipeline

import "github.com/dchess/dchess/models/family"

// RunBounds returns a copy of the bounds of a run config's keys, by YAML
// path ("selfplay.games", "train[].epochs"), for the generated config
// reference (scripts/configdocs).
func RunBounds() family.Bounds { return family.MergeBounds(runBounds) }
