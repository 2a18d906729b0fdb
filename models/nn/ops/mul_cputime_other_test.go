//go:build !unix

package ops

import "time"

func processCPU() time.Duration { return 0 }
