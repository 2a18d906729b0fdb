package binpack

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dchess/dchess/internal/chess/board"
)

// FuzzReader: no bytes panic the binpack reader or make it loop; it reads
// entries until the end or an error, and each entry it gives is a legal
// position whose move is legal in it.
func FuzzReader(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("testdata", "sample.binpack"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)/2])
	f.Add([]byte("BINP\x05\x00\x00\x00abcde"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytesReader(data))
		for n := 0; ; n++ {
			e, err := r.Next()
			if err != nil {
				return
			}
			if n > len(data)*8 {
				t.Fatalf("more entries (%d) than bits in %d bytes", n, len(data))
			}
			b, err := board.FromFEN(e.FEN)
			if err != nil {
				t.Fatalf("entry %d: %q does not parse: %v", n, e.FEN, err)
			}
			legal := false
			for _, m := range b.LegalMoves() {
				legal = legal || board.UCI(m) == e.Move
			}
			if !legal {
				t.Fatalf("entry %d: %s is not legal in %s", n, e.Move, e.FEN)
			}
		}
	})
}

type byteSource struct{ b []byte }

func bytesReader(b []byte) io.Reader { return &byteSource{b} }

func (s *byteSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}
