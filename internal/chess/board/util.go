package board

import "math/bits"

func popcount(x uint64) int { return bits.OnesCount64(x) }
