//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user and system, every thread) the process
// has used so far, or 0 where it cannot be read: benchmarks report it
// beside the wall time, which other work on a shared machine moves far more.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
