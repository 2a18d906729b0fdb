package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/epd"
	"github.com/dchess/dchess/internal/chess/pgn"
)

// lineDecoder turns one line of a labelled file into a labelled record.
type lineDecoder struct {
	opts  *Options
	white bool // scores are from White's view and must be flipped for Black to move
	fen   []byte
}

func newLineDecoder(opts *Options) *lineDecoder {
	d := &lineDecoder{opts: opts}
	switch opts.ScoreView {
	case ViewWhite:
		d.white = true
	case ViewSideToMove:
		d.white = false
	default:
		d.white = opts.Format == FormatLichessEvals || opts.Format == FormatCSV || opts.Format == FormatBullet
	}
	return d
}

// parsed is what a line says about its position.
type parsed struct {
	board    *board.Board
	cp, mate int32
	bestMove string
	pv       []string
	depth    int
	nodes    uint64
	// multiPV holds further lines (lichess-evals), scored like cp and mate.
	multiPV []dataset.PVLine
	// warn is about a part of the line left out; the line is kept.
	warn string
	// notes is Record.Notes: the EPD operations no other field holds.
	notes string
	// unscored marks an EPD line with no ce or dm (a test suite, an opening
	// book): the position is kept unlabelled, ready for `dchess label`.
	unscored bool
	// The NNUE formats also give the game's result and ply.
	result pgn.Result
	ply    int
}

func (d *lineDecoder) decode(b *batch, u *unit) outcome {
	if d.opts.Format == FormatPlain || d.opts.Format == FormatBinpack {
		return d.decodeEntry(b, u)
	}
	if u.tooLong {
		return outcome{counted: true, err: &LineError{Line: u.line, Reason: "line longer than 1 MiB"}}
	}
	line := string(bytes.TrimRight(b.text[u.start:u.end], "\r\n"))
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || trimmed[0] == '#' && d.opts.Format == FormatEPD {
		return outcome{}
	}
	var p *parsed
	var err error
	switch d.opts.Format {
	case FormatLichessEvals:
		p, err = parseLichess(trimmed)
	case FormatCSV:
		if u.line == 1 && isPuzzleHeader(trimmed) {
			return outcome{counted: true, err: &LineError{Line: u.line, Reason: "the header names FEN and Moves columns: a Lichess puzzle CSV, which --format puzzles reads (--format csv reads FEN,Evaluation)"}}
		}
		if u.line == 1 && strings.HasPrefix(strings.ToLower(trimmed), "fen,") {
			return outcome{} // the optional header
		}
		p, err = parseCSV(trimmed)
	case FormatEPD:
		p, err = parseEPD(trimmed)
	case FormatBullet:
		p, err = parseBullet(trimmed)
	}
	if err != nil {
		return outcome{counted: true, err: &LineError{Line: u.line, Reason: err.Error()}}
	}
	return d.record(p, u)
}

// decodeEntry reads one entry of a plain or binpack file.
func (d *lineDecoder) decodeEntry(b *batch, u *unit) outcome {
	bad := func(reason string) outcome {
		return outcome{counted: true, err: &EntryError{Entry: u.number, Line: u.line, Reason: reason}}
	}
	switch {
	case u.bad != "":
		return bad(u.bad)
	case u.tooLong:
		return bad("line longer than 1 MiB")
	}
	p, err := parsePlain(string(b.text[u.start:u.end]), u.closed)
	if err != nil {
		return bad(err.Error())
	}
	return d.record(p, u)
}

// record makes the record of a parsed line or entry.
func (d *lineDecoder) record(p *parsed, u *unit) outcome {
	if d.white && p.board.SideToMove() == board.Black {
		p.cp, p.mate = -p.cp, -p.mate
		for i := range p.multiPV {
			l := &p.multiPV[i]
			l.CP, l.Mate = -l.CP, -l.Mate
		}
	}
	var warn error
	if p.warn != "" {
		warn = &LineError{Line: u.line, Reason: p.warn}
	}
	d.fen = p.board.AppendFEN(d.fen[:0])
	fen := string(d.fen)
	key := positionKey(fen)
	if p.unscored {
		return outcome{counted: true, records: []dataset.Record{{FEN: fen, Key: key, GameID: key, Notes: p.notes}}}
	}
	game := key
	if u.game != 0 {
		game = u.game
	}
	rec := dataset.Record{
		FEN:    fen,
		Key:    key,
		GameID: game,
		Result: p.result,
		Ply:    uint16(min(max(p.ply, 0), 65535)),
		Notes:  p.notes,
		Label: &dataset.Label{
			Status:   dataset.LabelOK,
			CP:       p.cp,
			Mate:     p.mate,
			WinProb:  dataset.WinProbability(p.cp, p.mate),
			BestMove: p.bestMove,
			PV:       p.pv,
			Depth:    uint16(min(max(p.depth, 0), 65535)),
			Nodes:    p.nodes,
			Engine:   "import:" + string(d.opts.Format),
			MultiPV:  p.multiPV,
		},
	}
	return outcome{counted: true, records: []dataset.Record{rec}, warn: warn}
}

// lichessLine is one line of the Lichess evaluation export. Scores there
// are from White's point of view; moves are UCI, castling written as the
// king taking its own rook (e1h1).
type lichessLine struct {
	FEN   string `json:"fen"`
	Evals []struct {
		Depth  int    `json:"depth"`
		Knodes uint64 `json:"knodes"`
		PVs    []struct {
			CP   *int32 `json:"cp"`
			Mate *int32 `json:"mate"`
			Line string `json:"line"`
		} `json:"pvs"`
	} `json:"evals"`
}

func parseLichess(line string) (*parsed, error) {
	var l lichessLine
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		return nil, fmt.Errorf("bad JSON: %s", jsonProblem(err))
	}
	if l.FEN == "" {
		return nil, fmt.Errorf("no fen")
	}
	b, err := board.FromFEN(l.FEN)
	if err != nil {
		return nil, err
	}
	best := -1
	for i, e := range l.Evals {
		if len(e.PVs) > 0 && (best < 0 || e.Depth > l.Evals[best].Depth) {
			best = i
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("no evaluation with a principal variation")
	}
	// The deepest evaluation's first line is the label; its other lines
	// (Lichess keeps up to five) are the label's further lines. A further
	// line that cannot be read is left out, and said.
	e := l.Evals[best]
	p := &parsed{board: b, depth: e.Depth, nodes: e.Knodes * 1000}
	for i, pv := range e.PVs {
		var line dataset.PVLine
		switch {
		case pv.Mate != nil && *pv.Mate != 0:
			line.Mate = *pv.Mate
		case pv.CP != nil:
			line.CP = *pv.CP
		default:
			err = fmt.Errorf("evaluation has neither cp nor mate")
		}
		if err == nil {
			line.PV, err = uciLine(b, strings.Fields(pv.Line))
		}
		if i == 0 {
			if err != nil {
				return nil, err
			}
			p.cp, p.mate, p.pv = line.CP, line.Mate, line.PV
			continue
		}
		if err != nil {
			if p.warn == "" {
				p.warn = fmt.Sprintf("pvs[%d] of the deepest evaluation left out: %v", i, err)
			}
			err = nil
			continue
		}
		p.multiPV = append(p.multiPV, line)
	}
	if len(p.pv) > 0 {
		p.bestMove = p.pv[0]
	}
	return p, nil
}

// jsonProblem says what is wrong with a line in terms of the JSON the user
// has, not of the Go types it is decoded into.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("%v at byte %d", syntax, syntax.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the line"
		}
		return fmt.Sprintf("%s is %s, want %s", field, jsonValueName(typ.Value), jsonKindName(typ.Type.Kind()))
	}
	return err.Error()
}

// jsonValueName names a JSON value as UnmarshalTypeError.Value gives it:
// "string", "number", "number 1.5", "object", "array", "bool".
func jsonValueName(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		if strings.ContainsAny(n, ".eE") {
			return n + " (not a whole number)"
		}
		return n + " (out of range)"
	}
	switch v {
	case "string":
		return "text"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return "a " + v
}

func jsonKindName(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "text"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return k.String()
}

// uciLine checks a line of UCI moves by playing it, and returns it in
// standard UCI (castling as the king's two-square move).
func uciLine(b *board.Board, moves []string) ([]string, error) {
	if len(moves) == 0 {
		return nil, nil
	}
	play := b.Clone()
	out := make([]string, 0, len(moves))
	for _, s := range moves {
		m, err := parseUCIMove(play, s)
		if err != nil {
			return nil, err
		}
		out = append(out, board.UCI(m))
		play.Make(m)
	}
	return out, nil
}

// parseUCIMove finds the legal move a UCI string names, accepting castling
// written as king-takes-own-rook.
func parseUCIMove(b *board.Board, s string) (board.Move, error) {
	if len(s) != 4 && len(s) != 5 {
		return board.NullMove, fmt.Errorf("bad UCI move %q", s)
	}
	from, ok1 := squareOf(s[0], s[1])
	to, ok2 := squareOf(s[2], s[3])
	if !ok1 || !ok2 {
		return board.NullMove, fmt.Errorf("bad UCI move %q", s)
	}
	promo := board.NoPiece
	if len(s) == 5 {
		i := strings.IndexByte("nbrq", s[4])
		if i < 0 {
			return board.NullMove, fmt.Errorf("bad UCI move %q", s)
		}
		promo = [...]board.Piece{board.Knight, board.Bishop, board.Rook, board.Queen}[i]
	}
	if p, c := b.PieceAt(from); p == board.King && c == b.SideToMove() {
		if q, qc := b.PieceAt(to); q == board.Rook && qc == c && from/8 == to/8 {
			if to > from {
				to = from + 2
			} else {
				to = from - 2
			}
		}
	}
	for _, m := range b.LegalMoves() {
		if m.From() == from && m.To() == to && board.Piece(m.Promote()) == promo {
			return m, nil
		}
	}
	return board.NullMove, fmt.Errorf("illegal move %q", s)
}

func squareOf(file, rank byte) (uint8, bool) {
	if file < 'a' || file > 'h' || rank < '1' || rank > '8' {
		return 0, false
	}
	return (rank-'1')*8 + file - 'a', true
}

// parseCSV reads `FEN,Evaluation` with evaluations like +56, -120, 0,
// #+3, #-2 (White's view in the Kaggle set).
func parseCSV(line string) (*parsed, error) {
	comma := strings.IndexByte(line, ',')
	if comma < 0 {
		return nil, fmt.Errorf("want FEN,Evaluation")
	}
	fen := strings.Trim(strings.TrimSpace(line[:comma]), `"`)
	val := line[comma+1:]
	if n := strings.Count(val, ","); n > 0 {
		return nil, fmt.Errorf("%d columns, want 2: FEN,Evaluation", n+2)
	}
	val = strings.Trim(strings.TrimSpace(val), `"`)
	b, err := board.FromFEN(fen)
	if err != nil {
		return nil, err
	}
	p := &parsed{board: b}
	if strings.HasPrefix(val, "#") {
		n, err := strconv.ParseInt(strings.TrimPrefix(val[1:], "+"), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad mate score %q", val)
		}
		if n == 0 {
			return nil, fmt.Errorf("mate score %q: the position is already mate, there is nothing to learn", val)
		}
		p.mate = int32(n)
		return p, nil
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(val, "+"), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("bad evaluation %q", val)
	}
	p.cp = int32(n)
	return p, nil
}

// parseEPD reads an EPD line. ce is in centipawns from the side to move,
// dm a mate in moves, bm and pv are SAN. A line with neither ce nor dm
// gives an unlabelled position; its bm and am must still be legal moves,
// so a suite with a typo is reported rather than read without its answer.
// The operations the label does not hold (bm, am, id, c0...) are kept as
// the record's notes; the first bm is also a label's best move.
func parseEPD(line string) (*parsed, error) {
	l, err := epd.Parse(line)
	if err != nil {
		return nil, err
	}
	notes := epdNotes(l.Ops)
	best, err := l.Moves("bm")
	if err != nil {
		return nil, err
	}
	if _, err := l.Moves("am"); err != nil {
		return nil, err
	}
	p := &parsed{board: l.Board, notes: notes}
	dm, hasDM, err := l.Int("dm")
	if err != nil {
		return nil, err
	}
	ce, hasCE, err := l.Int("ce")
	switch {
	case hasDM:
		if dm == 0 || dm != int64(int32(dm)) {
			return nil, fmt.Errorf("dm %d is not a mate in a number of moves", dm)
		}
		p.mate = int32(dm)
	case err != nil:
		return nil, err
	case hasCE:
		if ce != int64(int32(ce)) {
			return nil, fmt.Errorf("ce %d is out of range", ce)
		}
		p.cp = int32(ce)
	default:
		p.unscored = true
		return p, nil
	}
	if v, ok, _ := l.Int("acd"); ok {
		p.depth = int(v)
	}
	if v, ok, _ := l.Int("acn"); ok && v >= 0 {
		p.nodes = uint64(v)
	}
	if len(best) > 0 {
		p.bestMove = board.UCI(best[0])
	}
	if p.pv, err = l.Variation("pv"); err != nil {
		return nil, err
	}
	if p.bestMove == "" && len(p.pv) > 0 {
		p.bestMove = p.pv[0]
	}
	return p, nil
}

// labelOps are the EPD operations a label holds in full.
var labelOps = map[string]bool{"ce": true, "dm": true, "acd": true, "acn": true, "pv": true}

// epdNotes writes the operations of an EPD line that a label does not
// hold, in opcode order, as `op operand...;` joined by spaces.
func epdNotes(ops map[string][]string) string {
	names := make([]string, 0, len(ops))
	for op := range ops {
		if !labelOps[op] {
			names = append(names, op)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, op := range names {
		appendOp(&b, op, ops[op]...)
	}
	return b.String()
}

// appendOp writes one EPD operation. The operands of the string opcodes
// (id, c0-c9, v0-v9, eco, nic) are quoted, and any other one that needs
// it (spaces, a semicolon, empty).
func appendOp(b *strings.Builder, op string, operands ...string) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(op)
	str := op == "id" || op == "eco" || op == "nic" || len(op) == 2 && (op[0] == 'c' || op[0] == 'v') && op[1] >= '0' && op[1] <= '9'
	for _, a := range operands {
		b.WriteByte(' ')
		if str || a == "" || strings.ContainsAny(a, " \t;") {
			b.WriteByte('"')
			b.WriteString(a)
			b.WriteByte('"')
		} else {
			b.WriteString(a)
		}
	}
	b.WriteByte(';')
}

// isPuzzleHeader says whether a CSV's first line is the header of a
// Lichess puzzle file (PuzzleId,FEN,Moves,... or FEN,Moves,Rating).
func isPuzzleHeader(line string) bool {
	fen, moves := false, false
	for _, f := range strings.Split(line, ",") {
		switch strings.ToLower(strings.Trim(strings.TrimSpace(f), `"`)) {
		case "fen":
			fen = true
		case "moves":
			moves = true
		}
	}
	return fen && moves
}
