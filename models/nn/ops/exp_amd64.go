package ops

// expShift8 is expShift in assembly for n a multiple of 8, n > 0
// (exp_amd64.s).
//
//go:noescape
func expShift8(n int, v *float32, scale, m float32) float32

// maxOf8, scale8 and softmaxGrad8 are maxOf, scaleBy and softmaxGrad in
// assembly for n a multiple of 8, n > 0 (exp_amd64.s).
//
//go:noescape
func maxOf8(n int, v *float32) float32

//go:noescape
func scale8(n int, v *float32, s float32)

//go:noescape
func softmaxGrad8(n int, p, d *float32, s float32)
