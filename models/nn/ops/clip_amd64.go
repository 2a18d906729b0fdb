package ops

import "golang.org/x/sys/cpu"

// useClipAsm is whether clip01x8 and clipGrad8 can run here (AVX).
var useClipAsm = cpu.X86.HasAVX

// clip01x8 is clip01 for n a multiple of 8 (clip_amd64.s).
//
//go:noescape
func clip01x8(n int, x *float32)

// clipGrad8 is clipGrad for n a multiple of 8 (clip_amd64.s).
//
//go:noescape
func clipGrad8(n int, gp, y, dout *float32)

// mulVec8 is mulVec for n a multiple of 8 (clip_amd64.s).
//
//go:noescape
func mulVec8(n int, dst, x, y *float32)
