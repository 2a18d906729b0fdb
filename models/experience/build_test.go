package experience

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportFilesCountsEachFileOnceUnlessAgain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pgnPath := filepath.Join(dir, "g.pgn")
	if err := os.WriteFile(pgnPath, []byte("[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"+
		"[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n\n[Result \"*\"]\n\n1. d4 *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "exp.db")
	stdin := func() *strings.Reader { return strings.NewReader("[Result \"0-1\"]\n\n1. d4 d5 0-1\n") }
	var heard int64
	total, per, err := ImportFiles(ctx, db, []string{pgnPath, "-"}, ImportFilesOptions{Stdin: stdin(), Progress: func(g int64) { heard = g }})
	if err != nil {
		t.Fatal(err)
	}
	if total.Games != 3 || total.Skipped != 1 || total.NoResult != 1 || len(per) != 2 || per[0].Games != 2 || per[1].Input != "-" || per[1].Games != 1 || heard != 3 {
		t.Fatalf("first import: total %+v, per input %+v, progress %d", total, per, heard)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".stdin-*")); len(left) != 0 {
		t.Errorf("the copy of stdin was left: %v", left)
	}
	total, per, err = ImportFiles(ctx, db, []string{pgnPath, "-"}, ImportFilesOptions{Stdin: stdin()})
	if err != nil || total.Games != 0 || !per[0].AlreadyIn || !per[1].AlreadyIn {
		t.Fatalf("second import of the same content: total %+v, per input %+v, %v", total, per, err)
	}
	total, per, err = ImportFiles(ctx, db, []string{pgnPath}, ImportFilesOptions{Again: true})
	if err != nil || total.Games != 2 || per[0].Copy != 2 {
		t.Fatalf("import again: total %+v, per input %+v, %v", total, per, err)
	}
	_, per, err = ImportFiles(ctx, db, []string{pgnPath, filepath.Join(dir, "missing.pgn")}, ImportFilesOptions{})
	if err == nil || len(per) != 1 {
		t.Errorf("import with a missing file: %v after %d inputs", err, len(per))
	}

	st, err := ReadStats(ctx, db, 1)
	if err != nil || st.Games != 5 || len(st.StartMoves) != 1 || st.StartMoves[0].Move != "e4" {
		t.Errorf("stats %+v, %v: want 5 games and only the most played start move, e4", st, err)
	}
	missing := filepath.Join(dir, "none.db")
	if _, err := ReadStats(ctx, missing, 0); err == nil {
		t.Error("stats of a missing database succeeded")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Error("stats created a database")
	}
}
