// Package datasettest writes the small datasets tests read. The dataset
// package's own tests cannot import it (it imports dataset).
package datasettest

import (
	"testing"

	"github.com/dchess/dchess/dataset"
)

// Write stores recs, in order, as a new dataset in dir written with opts,
// and returns dir. It fails t on an error, and then leaves dir as it was.
func Write(t testing.TB, dir string, opts dataset.WriteOptions, recs []*dataset.Record) string {
	t.Helper()
	w, err := dataset.Create(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
