package pgn

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/dchess/dchess/internal/testenv"
)

// BenchmarkSplitter measures cutting Kasparov.pgn (lichess-style clock
// comments would be slower: every byte of them is scanned).
func BenchmarkSplitter(b *testing.B) {
	data, err := os.ReadFile(testenv.SharedData(b, "pgn/Kasparov.pgn"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	var buf []byte
	for b.Loop() {
		s := NewSplitter(bytes.NewReader(data))
		for {
			var err error
			buf, _, err = s.Next(buf[:0])
			if err == io.EOF {
				break
			}
		}
	}
}
