//go:build !unix

package nnue

import "testing"

// cpuPerOp reports nothing where the CPU time cannot be read.
func cpuPerOp(*testing.B) func() { return func() {} }
