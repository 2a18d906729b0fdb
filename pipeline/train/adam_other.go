//go:build !amd64

package train

// useAdamAsm is false: the update runs in Go.
const useAdamAsm = false

func adamUpdate8(int, *float32, *float32, *float32, *float32, *adamConsts) { panic("no assembly") }
