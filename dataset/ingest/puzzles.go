package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/puzzle"
)

// readPuzzleHeader reads the header line of a puzzle CSV.
func readPuzzleHeader(br *bufio.Reader) (puzzle.Columns, error) {
	line, err := br.ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		if err == io.EOF {
			return puzzle.Columns{}, errors.New("empty: no header, no puzzle")
		}
		return puzzle.Columns{}, err
	}
	header, cerr := csv.NewReader(strings.NewReader(line)).Read()
	if cerr != nil {
		return puzzle.Columns{}, fmt.Errorf("line 1: %w", puzzle.ErrHeader)
	}
	cols, err := puzzle.ReadHeader(header)
	if err != nil {
		return cols, fmt.Errorf("line 1: %w", err)
	}
	return cols, nil
}

// puzzleDecoder turns a puzzle row into the record of the position to
// solve: after the opponent's move Moves[0], with the solution's first
// move as the move played and the rest of the line as the next moves
// (they are the moves of the game the puzzle comes from).
type puzzleDecoder struct {
	opts *Options
	cols puzzle.Columns
	fen  []byte
}

func (d *puzzleDecoder) decode(b *batch, u *unit) outcome {
	if u.tooLong {
		return outcome{counted: true, err: &LineError{Line: u.line, Reason: "line longer than 1 MiB"}}
	}
	line := bytes.TrimSpace(b.text[u.start:u.end])
	if len(line) == 0 {
		return outcome{}
	}
	bad := func(err error) outcome {
		return outcome{counted: true, err: &LineError{Line: u.line, Reason: err.Error()}}
	}
	row, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return bad(err)
	}
	p, err := d.cols.Parse(row)
	if err != nil {
		return bad(err)
	}
	o := d.opts
	if o.MinElo > 0 && p.Rating < o.MinElo || o.MaxElo > 0 && p.Rating > o.MaxElo {
		return outcome{counted: true, skip: skipFiltered}
	}
	bd, err := board.FromFEN(p.FEN)
	if err != nil {
		return bad(err)
	}
	m, err := bd.ParseUCI(p.Moves[0])
	if err != nil {
		return bad(err)
	}
	bd.Make(m)
	ply := 2 * (bd.FullmoveNumber() - 1)
	if bd.SideToMove() == board.Black {
		ply++
	}
	solution, err := bd.ParseUCI(p.Moves[1])
	if err != nil {
		return bad(err)
	}
	if ply < o.MinPly || o.MaxPly > 0 && ply > o.MaxPly || o.SkipCaptures && bd.IsCapture(solution) {
		return outcome{counted: true, skip: skipFiltered}
	}
	d.fen = bd.AppendFEN(d.fen[:0])
	fen := string(d.fen)
	key := positionKey(fen)
	gameID := key
	if g := puzzleGame(p.GameURL); g != "" {
		gameID = fnvString(fnvOffset, g)
	}
	end := min(2+o.Horizon, len(p.Moves))
	rec := dataset.Record{
		FEN:    fen,
		Key:    key,
		Move:   p.Moves[1],
		Next:   p.Moves[2:end:end],
		Ply:    uint16(min(ply, 65535)),
		GameID: gameID,
		Notes:  puzzleNotes(p),
	}
	return outcome{counted: true, records: []dataset.Record{rec}}
}

// puzzleGame is the game a puzzle's URL points into, without the move
// (#34) and the side (/black), so that the puzzles of one game share a
// GameID and therefore a split.
func puzzleGame(url string) string {
	url, _, _ = strings.Cut(url, "#")
	url = strings.TrimSuffix(strings.TrimSuffix(url, "/black"), "/white")
	return url
}

// puzzleNotes writes what the record's other fields do not hold of a
// puzzle, as EPD operations: id, rating, themes and site (the game URL).
func puzzleNotes(p puzzle.Puzzle) string {
	var b strings.Builder
	if p.ID != "" {
		appendOp(&b, "id", p.ID)
	}
	appendOp(&b, "rating", strconv.Itoa(p.Rating))
	if p.Themes != "" {
		appendOp(&b, "themes", p.Themes)
	}
	if p.GameURL != "" {
		appendOp(&b, "site", p.GameURL)
	}
	return b.String()
}
