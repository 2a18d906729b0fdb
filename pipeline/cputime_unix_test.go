//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system, every thread) the process
// has used, or 0 where it cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
