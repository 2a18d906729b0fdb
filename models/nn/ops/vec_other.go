//go:build !amd64

package ops

const useVecAsm = false

func clip01x8(int, *float32)                      { panic("ops: clip01x8 needs amd64") }
func clipGrad8(int, *float32, *float32, *float32) { panic("ops: clipGrad8 needs amd64") }

func mulVec8(int, *float32, *float32, *float32) { panic("ops: mulVec8 needs amd64") }

func relu8(int, *float32)                  { panic("ops: relu8 needs amd64") }
func reluGrad8(int, *float32, *float32)    { panic("ops: reluGrad8 needs amd64") }
func clippedGrad8(int, *float32, *float32) { panic("ops: clippedGrad8 needs amd64") }

func transpose8x8(*float32, int, *float32, int) { panic("ops: transpose8x8 needs amd64") }

func featureSum256(*float32, *float32, *float32, int, *int32, int) {
	panic("ops: featureSum256 needs amd64")
}
