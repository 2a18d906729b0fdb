//go:build !unix

package testenv

import "time"

// ProcessCPU is 0: the CPU time is read on Unix only.
func ProcessCPU() time.Duration { return 0 }
