//go:build !linux

package search

import "unsafe"

// adviseHugePages does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHugePages(unsafe.Pointer, uintptr) {}
