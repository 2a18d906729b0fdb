//go:build unix

package ops

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU time so far, which moves less than the
// wall time on a machine busy with other work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
