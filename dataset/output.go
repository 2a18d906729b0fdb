package dataset

import (
	"strings"
)

// datasetOwns says whether a dataset folder's entry is one dchess writes
// there: the manifest, shards, and the temporaries of a manifest rewrite
// and of a split.
func datasetOwns(name string) bool {
	return name == ManifestFile || (strings.HasPrefix(name, "shard-") && strings.HasSuffix(name, ".rec")) ||
		strings.HasPrefix(name, "."+ManifestFile+".tmp-") || strings.HasPrefix(name, splitScratchPrefix)
}
