package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dchess/dchess/pipeline/train"
)

func TestExportOverAnExistingFileNeedsForce(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "mine.dcw")
	os.WriteFile(dst, []byte("precious"), 0o644)
	s, _, _ := testDatasetStreams()
	opts := &exportOptions{RunDir: t.TempDir(), Output: dst}
	if err := runExport(context.Background(), opts, s); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("export over an existing file: %v", err)
	}
	if data, _ := os.ReadFile(dst); string(data) != "precious" {
		t.Fatalf("the file was changed: %q", data)
	}
	// With --force the export goes ahead (and here finds no checkpoint).
	opts.Force = true
	if err := runExport(context.Background(), opts, s); !errors.Is(err, train.ErrNoCheckpoint) {
		t.Fatalf("export --force: %v", err)
	}
}
