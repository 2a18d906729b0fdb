package match

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dchess/dchess/search/board"
)

// Opening is the position a game pair starts from.
type Opening struct {
	FEN string
	// Source says where it came from ("book.epd:12", "random 4 plies"), for
	// error messages and the PGN.
	Source string
}

// LoadOpenings reads an EPD file (one position a line; opcodes after the
// four FEN fields are ignored) or a PGN file (the position after each game's
// moves). The format is chosen by content: a file whose first text is a
// "[" tag is PGN.
func LoadOpenings(path string) ([]Opening, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	var list []Opening
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("[")) || strings.EqualFold(filepath.Ext(path), ".pgn") {
		list, err = parsePGNOpenings(data, filepath.Base(path))
	} else {
		list, err = parseEPDOpenings(data, filepath.Base(path))
	}
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("openings: %s holds no positions", path)
	}
	return list, nil
}

func parseEPDOpenings(data []byte, name string) ([]Opening, error) {
	var list []Opening
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fen, err := epdFEN(line)
		if err != nil {
			return nil, fmt.Errorf("openings: %s:%d: %v", name, lineNo, err)
		}
		b, err := board.FromFEN(fen)
		if err != nil {
			return nil, fmt.Errorf("openings: %s:%d: %v", name, lineNo, err)
		}
		if b.Status() != board.NotOver {
			return nil, fmt.Errorf("openings: %s:%d: the game is already over (%v)", name, lineNo, b.Status())
		}
		list = append(list, Opening{FEN: b.FEN(), Source: fmt.Sprintf("%s:%d", name, lineNo)})
	}
	return list, sc.Err()
}

// epdFEN takes the four FEN fields of an EPD line and, when the next two
// fields are move counters (a FEN line rather than EPD), those too.
func epdFEN(line string) (string, error) {
	fields := strings.Fields(line)
	if len(fields) < 4 {
		return "", errors.New("want at least the four FEN fields")
	}
	n := 4
	for n < 6 && n < len(fields) {
		if _, err := strconv.Atoi(strings.TrimSuffix(fields[n], ";")); err != nil {
			break
		}
		n++
	}
	if n == 5 { // a lone number is an opcode operand, not a halfmove clock
		n = 4
	}
	return strings.TrimSuffix(strings.Join(fields[:n], " "), ";"), nil
}

// parsePGNOpenings plays each game's moves from its start (or FEN tag) and
// keeps the final position. Comments, variations, NAGs and move numbers are
// skipped; anything else must be a legal SAN move.
func parsePGNOpenings(data []byte, name string) ([]Opening, error) {
	var list []Opening
	var (
		b      *board.Board
		fenTag string
		inGame bool
		gameNo int
	)
	finish := func() error {
		if !inGame {
			return nil
		}
		if b == nil {
			var err error
			if b, err = startBoard(fenTag); err != nil {
				return fmt.Errorf("openings: %s game %d: %v", name, gameNo, err)
			}
		}
		if b.Status() == board.NotOver {
			list = append(list, Opening{FEN: b.FEN(), Source: fmt.Sprintf("%s game %d", name, gameNo)})
		}
		b, fenTag, inGame = nil, "", false
		return nil
	}
	text := string(data)
	depth := 0 // variation nesting
	for len(text) > 0 {
		text = strings.TrimLeft(text, " \t\r\n\ufeff")
		if text == "" {
			break
		}
		switch {
		case text[0] == '[':
			end := strings.IndexByte(text, ']')
			if end < 0 {
				return nil, fmt.Errorf("openings: %s: unterminated tag", name)
			}
			if b != nil { // a tag after movetext starts the next game
				if err := finish(); err != nil {
					return nil, err
				}
			}
			if !inGame {
				inGame = true
				gameNo++
			}
			tag := text[1:end]
			if key, value, ok := strings.Cut(tag, " "); ok && strings.EqualFold(key, "FEN") {
				fenTag = strings.Trim(strings.TrimSpace(value), `"`)
			}
			text = text[end+1:]
			continue
		case text[0] == '{':
			end := strings.IndexByte(text, '}')
			if end < 0 {
				return nil, fmt.Errorf("openings: %s game %d: unterminated comment", name, gameNo)
			}
			text = text[end+1:]
			continue
		case text[0] == ';':
			end := strings.IndexByte(text, '\n')
			if end < 0 {
				end = len(text) - 1
			}
			text = text[end+1:]
			continue
		case text[0] == '(':
			depth++
			text = text[1:]
			continue
		case text[0] == ')':
			depth--
			text = text[1:]
			continue
		}
		end := strings.IndexAny(text, " \t\r\n{}();[")
		if end < 0 {
			end = len(text)
		}
		if end == 0 {
			end = 1
		}
		token := text[:end]
		text = text[end:]
		if depth > 0 {
			continue
		}
		switch token {
		case "1-0", "0-1", "1/2-1/2", "*":
			if err := finish(); err != nil {
				return nil, err
			}
			continue
		}
		if !inGame {
			inGame = true
			gameNo++
		}
		if token[0] == '$' {
			continue
		}
		// Strip a move number glued to the move ("12.e4", "12...e5").
		if i := strings.LastIndexByte(token, '.'); i >= 0 {
			token = token[i+1:]
		}
		if token == "" {
			continue
		}
		if b == nil {
			var err error
			if b, err = startBoard(fenTag); err != nil {
				return nil, fmt.Errorf("openings: %s game %d: %v", name, gameNo, err)
			}
		}
		m, err := b.ParseSAN(token)
		if err != nil {
			return nil, fmt.Errorf("openings: %s game %d: %v", name, gameNo, err)
		}
		b.Make(m)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return list, nil
}

func startBoard(fen string) (*board.Board, error) {
	if fen == "" {
		return board.New(), nil
	}
	return board.FromFEN(fen)
}

// GenerateOpenings makes n openings of plies random legal moves from the
// start position, each from its own generator seeded by seed and its
// index, so opening i is the same however many are made. A line that ends
// the game is drawn again.
func GenerateOpenings(n, plies int, seed uint64) []Opening {
	list := make([]Opening, n)
	for i := range list {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		for {
			b := board.New()
			for range plies {
				moves := b.LegalMoves()
				if len(moves) == 0 {
					break
				}
				b.Make(moves[rng.IntN(len(moves))])
			}
			if b.Status() == board.NotOver {
				list[i] = Opening{FEN: b.FEN(), Source: fmt.Sprintf("random %d plies #%d", plies, i+1)}
				break
			}
		}
	}
	return list
}

// PickOpenings returns n openings from list, in file order (wrapping
// around) or shuffled with seed.
func PickOpenings(list []Opening, n int, random bool, seed uint64) []Opening {
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	out := make([]Opening, n)
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e))
	for i := range out {
		if random && i%len(list) == 0 {
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		out[i] = list[order[i%len(list)]]
	}
	return out
}
