package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/dchess/dchess/dataset"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Stdin is the input name that reads standard input.
const Stdin = "-"

// ExpandInputs resolves globs in the arguments, keeping their order; a glob
// that matches nothing or a missing file is an error. "-" stays as stdin.
func ExpandInputs(args []string) ([]string, error) {
	var out []string
	stdin := 0
	for _, a := range args {
		if a == Stdin {
			stdin++
			out = append(out, a)
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			matches, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("bad pattern %q: %v", a, err)
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("no file matches %q", a)
			}
			sort.Strings(matches)
			out = append(out, matches...)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			if pe, ok := err.(*os.PathError); ok {
				err = pe.Err
			}
			return nil, fmt.Errorf("input %s: %w", a, err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("input %s is a folder, not a file", a)
		}
		out = append(out, a)
	}
	if stdin > 1 {
		return nil, fmt.Errorf("stdin (-) can be read only once")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	return out, nil
}

// HashSources returns the manifest entries of the inputs: size and SHA-256
// of each file as stored (compressed files are hashed compressed). Stdin
// cannot be read twice, so its entry has no hash.
func HashSources(names []string) ([]dataset.Source, error) {
	out := make([]dataset.Source, 0, len(names))
	for _, name := range names {
		if name == Stdin {
			out = append(out, dataset.Source{Path: Stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", name, err)
		}
		out = append(out, dataset.Source{Path: name, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: n})
	}
	return out, nil
}

// countingReader counts the bytes read through it for the progress bar.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// openInput opens a file (or stdin) and undoes gzip or zstd compression,
// recognised by the stream's magic bytes so that stdin works too. read
// counts the raw bytes consumed.
func openInput(name string, stdin io.Reader, read *atomic.Int64) (io.Reader, func() error, error) {
	var raw io.Reader
	closeRaw := func() error { return nil }
	if name == Stdin {
		if stdin == nil {
			return nil, nil, fmt.Errorf("no stdin to read")
		}
		raw = stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		raw, closeRaw = f, f.Close
	}
	br := bufio.NewReaderSize(countingReader{raw, read}, 1<<16)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			closeRaw()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return zr, func() error { zr.Close(); return closeRaw() }, nil
	case bytes.HasPrefix(magic, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			closeRaw()
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return zr, func() error { zr.Close(); return closeRaw() }, nil
	}
	return br, closeRaw, nil
}
