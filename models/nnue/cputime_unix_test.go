//go:build unix

package nnue

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time the process has used so far, user and system.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// cpuPerOp starts counting the benchmark's CPU time; the function it
// returns reports it per op as cpu-ns/op. On a machine other jobs share,
// the wall time counts the time they took the core away too, the CPU
// time only the benchmark's own work (and what their cache misses cost it).
func cpuPerOp(b *testing.B) func() {
	start := processCPU()
	return func() {
		if start > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
