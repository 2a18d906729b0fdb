package experience

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dchess/dchess/dataset/ingest"
)

// FileSummary is what ImportFiles did with one input.
type FileSummary struct {
	Input string `json:"input"`
	ImportSummary
}

// ImportFilesOptions tune ImportFiles.
type ImportFilesOptions struct {
	// Again imports files already in the tree once more (ImportSource.Again).
	Again bool
	// Stdin is read for the input "-" (ingest.Stdin).
	Stdin io.Reader
	// Progress, if not nil, hears the games added so far over all inputs.
	Progress func(games int64)
}

// ImportFiles imports PGN files into the database at dbPath (made when
// missing) one after the other (`dchess experience build`), each under its base name and content hash so that a
// file imported before adds nothing unless Again. Standard input is copied
// beside the database first, so its hash is known before its games count.
// It returns the totals (with at most ten first errors) and each input's
// summary; on an error, the inputs done so far and the one that failed.
func ImportFiles(ctx context.Context, dbPath string, inputs []string, opts ImportFilesOptions) (total ImportSummary, perInput []FileSummary, err error) {
	db, err := Open(ctx, dbPath)
	if err != nil {
		return total, nil, err
	}
	defer func() {
		if cerr := db.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	for _, in := range inputs {
		path, name, cleanup, err := inputFile(in, opts.Stdin, filepath.Dir(db.Path()))
		if err != nil {
			return total, perInput, err
		}
		src, err := ingest.HashSources([]string{path})
		if err != nil {
			cleanup()
			return total, perInput, err
		}
		f, err := os.Open(path)
		if err != nil {
			cleanup()
			return total, perInput, err
		}
		done := total.Games
		sum, err := Import(ctx, db, bufio.NewReaderSize(f, 1<<16), ImportSource{Name: name, SHA256: src[0].SHA256, Again: opts.Again},
			func(p ImportSummary) {
				if opts.Progress != nil {
					opts.Progress(done + p.Games)
				}
			})
		f.Close()
		cleanup()
		perInput = append(perInput, FileSummary{Input: in, ImportSummary: sum})
		total.Games += sum.Games
		total.Skipped += sum.Skipped
		total.NoResult += sum.NoResult
		total.Plies += sum.Plies
		total.Seconds += sum.Seconds
		for _, e := range sum.FirstErrors {
			if len(total.FirstErrors) < maxReportedErrors {
				total.FirstErrors = append(total.FirstErrors, e)
			}
		}
		if err != nil {
			return total, perInput, fmt.Errorf("%w (%d games of %s were added before)", err, sum.Games, in)
		}
	}
	return total, perInput, nil
}

// inputFile returns a file to import for input: the file itself, or for
// stdin a copy in dir, so that its content hash is known before its games
// are counted. name labels the games' source; cleanup removes a copy.
func inputFile(input string, stdin io.Reader, dir string) (path, name string, cleanup func(), err error) {
	if input != ingest.Stdin {
		return input, filepath.Base(input), func() {}, nil
	}
	if stdin == nil {
		return "", "", nil, errors.New("no stdin to read")
	}
	f, err := os.CreateTemp(dir, ".stdin-*.pgn")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, stdin)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", "", nil, fmt.Errorf("copying stdin: %w", err)
	}
	return f.Name(), ingest.Stdin, cleanup, nil
}

// ReadStats summarises the database at path (`dchess experience stats`)
// with at most top start moves (0: all). Unlike Open it never creates a
// database where none is.
func ReadStats(ctx context.Context, path string, top int) (Stats, error) {
	if _, err := os.Stat(path); err != nil {
		return Stats{}, fmt.Errorf("experience stats: %w", err)
	}
	db, err := Open(ctx, path)
	if err != nil {
		return Stats{}, err
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		return st, err
	}
	if top > 0 && len(st.StartMoves) > top {
		st.StartMoves = st.StartMoves[:top]
	}
	return st, nil
}
