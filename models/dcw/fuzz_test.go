package dcw

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

// FuzzUnmarshal: no input panics or over-allocates, and a file that decodes
// encodes back to the same bytes. The fuzzer's bytes are the body after the
// magic and version, closed with a valid checksum, so it reaches the
// parser rather than stopping at the checksum.
func FuzzUnmarshal(f *testing.F) {
	good, err := Marshal(&File{Family: "ann", Arch: []byte(`{"hidden":[2]}`), Tensors: []Tensor{
		{Name: "w", Shape: []int{2, 2}, Data: []float32{1, -2, 3.5, 0}},
		{Name: "b", Shape: []int{2}, Data: []float32{0.25, -1}},
	}})
	if err != nil {
		f.Fatal(err)
	}
	header := len(Magic) + 4
	f.Add(good[header : len(good)-checksumSize])
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(Magic), binary.LittleEndian.AppendUint32(nil, Version)...)
		data = append(data, body...)
		sum := sha256.Sum256(data)
		data = append(data, sum[:]...)
		file, err := Unmarshal(data)
		if err != nil {
			return
		}
		again, err := Marshal(file)
		if err != nil {
			t.Fatalf("a decoded file does not encode: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("re-encoding changed the file:\n%x\n%x", data, again)
		}
	})
}
