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

func TestReadFamily(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.dcw")
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	if fam, err := ReadFamily(path); err != nil || fam != "ann" {
		t.Errorf("ReadFamily = %q, %v", fam, err)
	}
	// Only the head is read: a file cut after the family still names it.
	data, _ := os.ReadFile(path)
	cut := filepath.Join(dir, "cut.dcw")
	os.WriteFile(cut, data[:len(Magic)+8+len("ann")], 0o644)
	if fam, err := ReadFamily(cut); err != nil || fam != "ann" {
		t.Errorf("ReadFamily of the head = %q, %v", fam, err)
	}
	os.WriteFile(cut, data[:len(Magic)+6], 0o644)
	if _, err := ReadFamily(cut); !errors.Is(err, ErrTruncated) {
		t.Errorf("a cut head: %v", err)
	}
	notes := filepath.Join(dir, "notes.dcw")
	os.WriteFile(notes, []byte("not weights"), 0o644)
	if _, err := ReadFamily(notes); !errors.Is(err, ErrNotDCW) {
		t.Errorf("not weights: %v", err)
	}
	empty := append([]byte(nil), data[:len(Magic)+8]...)
	binary.LittleEndian.PutUint32(empty[len(Magic)+4:], 0)
	os.WriteFile(notes, empty, 0o644)
	if _, err := ReadFamily(notes); err == nil {
		t.Error("an empty family name was read")
	}
}
