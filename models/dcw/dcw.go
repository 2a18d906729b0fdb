// Package dcw reads and writes model.dcw, dchess's exported weights: a
// small versioned binary file holding a model family's name, its
// architecture (the JSON of the config's model section) and named float32
// tensors, closed by a SHA-256 checksum. docs/weights-format.md describes
// the layout byte by byte.
//
// Players load weights with Read and run them in plain Go; training writes
// them with Write, which replaces the file atomically (internal/safefile),
// so a reader never sees half a file.
package dcw

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dchess/dchess/internal/safefile"
)

// Magic opens every .dcw file.
const Magic = "DCW1"

// Version is the format version this code writes and the newest it reads.
const Version = 1

// dtypeFloat32 is the only element type so far; the byte leaves room for more.
const dtypeFloat32 = 1

// Limits that keep a damaged header from asking for absurd allocations.
const (
	maxNameLen   = 1 << 10
	maxArchLen   = 1 << 20
	maxTensors   = 1 << 12
	maxRank      = 8
	checksumSize = sha256.Size
)

var (
	// ErrNotDCW means the file does not start with the .dcw magic.
	ErrNotDCW = errors.New("not a dchess weights (.dcw) file")
	// ErrNewerVersion means the file was written by a newer dchess.
	ErrNewerVersion = errors.New("weights format is newer than this dchess supports")
	// ErrChecksum means the contents do not match the stored SHA-256.
	ErrChecksum = errors.New("checksum mismatch: the weights file is damaged")
	// ErrTruncated means the file ends before its declared contents.
	ErrTruncated = errors.New("weights file is truncated")
)

// Tensor is one named array of weights, row-major.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// Size returns the number of elements Shape describes.
func (t *Tensor) Size() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// File is the decoded content of a .dcw file.
type File struct {
	// Family names the model family ("ann", "cnn", ...), which decides who can load it.
	Family string
	// Arch is the family's architecture as JSON (the config's model section).
	Arch    []byte
	Tensors []Tensor
}

// Tensor returns the data of the named tensor after checking its shape, so
// a loader can ask for exactly what its architecture needs.
func (f *File) Tensor(name string, shape ...int) ([]float32, error) {
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name != name {
			continue
		}
		if !equalShape(t.Shape, shape) {
			return nil, fmt.Errorf("weights: tensor %q has shape %v, the architecture needs %v", name, t.Shape, shape)
		}
		return t.Data, nil
	}
	return nil, fmt.Errorf("weights: tensor %q is missing", name)
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Marshal encodes f in the .dcw layout, checksum included.
func Marshal(f *File) ([]byte, error) {
	if f.Family == "" || len(f.Family) > maxNameLen {
		return nil, fmt.Errorf("weights: family name %q must have 1 to %d bytes", f.Family, maxNameLen)
	}
	if len(f.Arch) > maxArchLen {
		return nil, fmt.Errorf("weights: architecture blob of %d bytes exceeds %d", len(f.Arch), maxArchLen)
	}
	if len(f.Tensors) > maxTensors {
		return nil, fmt.Errorf("weights: %d tensors exceed %d", len(f.Tensors), maxTensors)
	}
	var b bytes.Buffer
	b.WriteString(Magic)
	le := binary.LittleEndian
	b.Write(le.AppendUint32(nil, Version))
	writeBlob(&b, []byte(f.Family))
	writeBlob(&b, f.Arch)
	b.Write(le.AppendUint32(nil, uint32(len(f.Tensors))))
	seen := make(map[string]bool, len(f.Tensors))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name == "" || len(t.Name) > maxNameLen || seen[t.Name] {
			return nil, fmt.Errorf("weights: tensor name %q is empty, too long or repeated", t.Name)
		}
		seen[t.Name] = true
		if len(t.Shape) > maxRank {
			return nil, fmt.Errorf("weights: tensor %q has rank %d > %d", t.Name, len(t.Shape), maxRank)
		}
		if t.Size() != len(t.Data) {
			return nil, fmt.Errorf("weights: tensor %q has shape %v but %d values", t.Name, t.Shape, len(t.Data))
		}
		writeBlob(&b, []byte(t.Name))
		b.WriteByte(dtypeFloat32)
		b.WriteByte(byte(len(t.Shape)))
		for _, d := range t.Shape {
			if d <= 0 || d > math.MaxUint32 {
				return nil, fmt.Errorf("weights: tensor %q has dimension %d", t.Name, d)
			}
			b.Write(le.AppendUint32(nil, uint32(d)))
		}
		buf := make([]byte, 4*len(t.Data))
		for j, v := range t.Data {
			le.PutUint32(buf[4*j:], math.Float32bits(v))
		}
		b.Write(buf)
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes(), nil
}

func writeBlob(b *bytes.Buffer, p []byte) {
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(p))))
	b.Write(p)
}

// Unmarshal decodes a .dcw file's bytes, checking magic, version and checksum
// before trusting any length inside.
func Unmarshal(data []byte) (*File, error) {
	if len(data) < len(Magic) || string(data[:len(Magic)]) != Magic {
		return nil, ErrNotDCW
	}
	if len(data) < len(Magic)+4 {
		return nil, ErrTruncated
	}
	if v := binary.LittleEndian.Uint32(data[len(Magic):]); v > Version || v == 0 {
		return nil, fmt.Errorf("%w (file version %d, supported %d)", ErrNewerVersion, v, Version)
	}
	if len(data) < len(Magic)+4+checksumSize {
		return nil, ErrTruncated
	}
	body, stored := data[:len(data)-checksumSize], data[len(data)-checksumSize:]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], stored) {
		// A file cut short also fails here; tell the two apart by trying to
		// parse the body, so the error names the likelier cause.
		if _, rest, err := parseBody(data[len(Magic)+4:]); errors.Is(err, ErrTruncated) || (err == nil && rest < checksumSize) {
			return nil, ErrTruncated
		}
		return nil, ErrChecksum
	}
	f, rest, err := parseBody(body[len(Magic)+4:])
	if err != nil {
		return nil, err
	}
	if rest != 0 {
		return nil, fmt.Errorf("weights: %d unexpected bytes after the tensors", rest)
	}
	return f, nil
}

// parseBody reads the fields after magic and version. Every length is checked
// against what is left, so damaged input gives ErrTruncated or a format
// error, never a panic. rest is the number of bytes left after the tensors.
func parseBody(p []byte) (f *File, rest int, err error) {
	r := reader{p: p}
	f = &File{}
	family := r.blob(maxNameLen)
	arch := r.blob(maxArchLen)
	count := r.u32()
	if r.err != nil {
		return nil, 0, r.err
	}
	if count > maxTensors {
		return nil, 0, fmt.Errorf("weights: %d tensors declared, more than %d: the file is damaged", count, maxTensors)
	}
	if len(family) == 0 {
		return nil, 0, errors.New("weights: the family name is empty: the file is damaged")
	}
	f.Family, f.Arch = string(family), append([]byte(nil), arch...)
	// What Marshal refuses to write is refused here too, so every file that
	// reads writes back the same.
	seen := make(map[string]bool, count)
	for i := 0; i < int(count); i++ {
		name := string(r.blob(maxNameLen))
		dtype := r.byte()
		rank := int(r.byte())
		if r.err != nil {
			return nil, 0, r.err
		}
		if name == "" || seen[name] {
			return nil, 0, fmt.Errorf("weights: tensor name %q is empty or repeated: the file is damaged", name)
		}
		seen[name] = true
		if dtype != dtypeFloat32 {
			return nil, 0, fmt.Errorf("weights: tensor %q has unknown element type %d", name, dtype)
		}
		if rank > maxRank {
			return nil, 0, fmt.Errorf("weights: tensor %q has rank %d > %d: the file is damaged", name, rank, maxRank)
		}
		t := Tensor{Name: name, Shape: make([]int, rank)}
		size := 1
		for d := range t.Shape {
			t.Shape[d] = int(r.u32())
			if r.err != nil {
				return nil, 0, r.err
			}
			if t.Shape[d] == 0 {
				return nil, 0, fmt.Errorf("weights: tensor %q has a zero dimension", name)
			}
			size *= t.Shape[d]
			if size > len(p) {
				return nil, 0, ErrTruncated
			}
		}
		raw := r.take(4 * size)
		if r.err != nil {
			return nil, 0, r.err
		}
		t.Data = make([]float32, size)
		for j := range t.Data {
			t.Data[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
		f.Tensors = append(f.Tensors, t)
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return f, len(r.p), nil
}

type reader struct {
	p   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.p) {
		r.err = ErrTruncated
		return nil
	}
	out := r.p[:n]
	r.p = r.p[n:]
	return out
}

func (r *reader) u32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) byte() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

func (r *reader) blob(limit int) []byte {
	n := r.u32()
	if r.err == nil && int64(n) > int64(limit) {
		r.err = fmt.Errorf("weights: a field declares %d bytes, more than %d: the file is damaged", n, limit)
		return nil
	}
	return r.take(int(n))
}

// Write stores f at path atomically (safefile.WriteFile), making its
// folder when missing.
func Write(path string, f *File) error {
	data, err := Marshal(f)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("weights %s: %w", path, err)
	}
	if err := safefile.WriteFile(path, data); err != nil {
		return fmt.Errorf("weights %s: %w", path, err)
	}
	return nil
}

// Read loads and checks the .dcw file at path. Errors name the path and
// wrap ErrNotDCW, ErrNewerVersion, ErrChecksum or ErrTruncated.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	f, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("weights %s: %w", path, err)
	}
	return f, nil
}

// ReadFamily reads the family name from the head of the .dcw file at
// path (the magic, the version, then the family's length and bytes),
// without reading or checking the rest: listing many files stays cheap.
// A file that does not start as a .dcw file is ErrNotDCW or ErrTruncated.
func ReadFamily(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("weights: %w", err)
	}
	defer f.Close()
	var head [len(Magic) + 8]byte
	if _, err := io.ReadFull(f, head[:len(Magic)]); err != nil || string(head[:len(Magic)]) != Magic {
		return "", fmt.Errorf("weights %s: %w", path, ErrNotDCW)
	}
	if _, err := io.ReadFull(f, head[len(Magic):]); err != nil {
		return "", fmt.Errorf("weights %s: %w", path, ErrTruncated)
	}
	n := binary.LittleEndian.Uint32(head[len(Magic)+4:])
	if n == 0 || n > maxNameLen {
		return "", fmt.Errorf("weights %s: a family name of %d bytes: the file is damaged", path, n)
	}
	name := make([]byte, n)
	if _, err := io.ReadFull(f, name); err != nil {
		return "", fmt.Errorf("weights %s: %w", path, ErrTruncated)
	}
	return string(name), nil
}

// DecodeArch reads the file's architecture into cfg, refusing the weights
// of another family (family may list several: "diffusion", "policy") and
// an architecture with fields cfg does not have.
func (f *File) DecodeArch(cfg any, families ...string) error {
	if !slices.Contains(families, f.Family) {
		return fmt.Errorf("weights are for model family %q, not %s", f.Family, strings.Join(families, " or "))
	}
	dec := json.NewDecoder(bytes.NewReader(f.Arch))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("%s: architecture in the weights file: %w", f.Family, err)
	}
	return nil
}

// ReadAs reads a weights file and builds a network from it with build; an
// error in the weights is one line naming the file.
func ReadAs[T any](path string, build func(*File) (T, error)) (T, error) {
	var zero T
	f, err := Read(path)
	if err != nil {
		return zero, err
	}
	n, err := build(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
