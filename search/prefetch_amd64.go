package search

// prefetchBucket asks the CPU to bring a bucket into its cache without waiting
// for it, so the probe that follows a move finds it there.
//
//go:noescape
func prefetchBucket(addr *ttBucket)
