//go:build !amd64

package search

// prefetchBucket does nothing where the search has no prefetch instruction.
func prefetchBucket(*ttBucket) {}
