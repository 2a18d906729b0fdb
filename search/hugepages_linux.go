package search

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back the n bytes at p with 2 MB pages
// where it can: probes land anywhere in the table, and with 4 KB pages
// nearly every one also missed the TLB. Call it before the memory is
// touched. Failure is harmless: the table works either way.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	const page = 4096
	skip := (page - uintptr(p)%page) % page
	if n <= skip+page {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, skip)), (n-skip)&^(page-1)), syscall.MADV_HUGEPAGE)
}
