//go:build !unix

package pipeline

import "time"

// processCPU is 0: the CPU time is read on Unix only.
func processCPU() time.Duration { return 0 }
