package train

import "golang.org/x/sys/cpu"

// useAdamAsm is whether adamUpdate8's AVX assembly can run here.
var useAdamAsm = cpu.X86.HasAVX

// adamUpdate8 is adam.step's update of n values (n a multiple of 8) in
// AVX assembly, bit for bit the Go loop's (adam_amd64.s).
//
//go:noescape
func adamUpdate8(n int, wp, gp, mp, vp *float32, cp *adamConsts)
