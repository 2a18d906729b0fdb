package dcw

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sample() *File {
	return &File{
		Family: "ann",
		Arch:   []byte(`{"hidden":[4,2]}`),
		Tensors: []Tensor{
			{Name: "w0", Shape: []int{3, 4}, Data: []float32{1, -2, 3.5, 0, 1e-7, -1e9, 7, 8, 9, 10, 11, 12}},
			{Name: "b0", Shape: []int{4}, Data: []float32{0.25, -0.25, 0, 1}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "model.dcw")
	want := sample()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if _, err := got.Tensor("w0", 3, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := got.Tensor("w0", 4, 3); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("wrong shape accepted: %v", err)
	}
	if _, err := got.Tensor("w9", 1); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing tensor accepted: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left beside the weights: %v", entries)
	}
}

func TestDamagedFiles(t *testing.T) {
	data, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation must be reported, never panic or load.
	for n := 0; n < len(data); n++ {
		_, err := Unmarshal(data[:n])
		if err == nil {
			t.Fatalf("truncated to %d of %d bytes: loaded", n, len(data))
		}
		if n >= len(Magic) && !errors.Is(err, ErrTruncated) {
			t.Fatalf("truncated to %d bytes: %v, want ErrTruncated", n, err)
		}
	}
	// Every flipped bit after the magic and version must be caught by the checksum.
	for i := len(Magic) + 4; i < len(data); i++ {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x10
		if _, err := Unmarshal(bad); !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrTruncated) {
			t.Fatalf("byte %d flipped: %v, want a checksum error", i, err)
		}
	}
	if _, err := Unmarshal([]byte("PK\x03\x04 some zip file")); !errors.Is(err, ErrNotDCW) {
		t.Fatalf("foreign file: %v", err)
	}
	newer := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(newer[len(Magic):], Version+1)
	if _, err := Unmarshal(newer); !errors.Is(err, ErrNewerVersion) {
		t.Fatalf("newer version: %v", err)
	}
	path := filepath.Join(t.TempDir(), "model.dcw")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error should name the file and the cause: %v", err)
	}
}

func TestMarshalRejectsInconsistentTensors(t *testing.T) {
	f := sample()
	f.Tensors[0].Data = f.Tensors[0].Data[:5]
	if _, err := Marshal(f); err == nil {
		t.Fatal("shape/data mismatch accepted")
	}
	f = sample()
	f.Tensors[1].Name = "w0"
	if _, err := Marshal(f); err == nil {
		t.Fatal("repeated tensor name accepted")
	}
}
