package encode

import (
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/chess/board"
)

// The token encoding of the diffusion and policy models (seed 000's
// action-state-action sequences). A state is a block of StateLen tokens
// from a StateVocab-word vocabulary, in absolute colours (the side-to-move
// token says who moves, so consecutive states of a line read alike); an
// action is one word of the fixed ActionVocab-move vocabulary.
const (
	// StateLen tokens per state: 64 squares (a1..h8), side to move, the
	// four castling rights (K, Q, k, q) and the en-passant file.
	StateLen = 64 + 1 + 4 + 1
	// StateVocab words: 13 square words (empty, then white P N B R Q K,
	// then black p n b r q k), two side words, two castling words (right
	// lost, right kept) and nine en-passant words (none, files a-h).
	StateVocab = 13 + 2 + 2 + 9
	// ActionVocab is the number of UCI moves in the action vocabulary.
	ActionVocab = 1968
	// NoToken marks a sequence slot past the end of a shorter line.
	NoToken = -1
)

// State token words.
const (
	TokenEmpty       = 0
	TokenWhiteToMove = 13
	TokenBlackToMove = 14
	TokenRightLost   = 15
	TokenRightKept   = 16
	TokenNoEnPassant = 17 // files a-h follow: 18..25
)

// ActionParts is the size of the move-part vocabulary a move can also be
// read in: its origin square (rows 0-63), its destination square (64-127)
// and its promotion (128: none, then q, r, b, n).
const ActionParts = 64 + 64 + 5

// actionList holds the vocabulary in index order; actionIndex maps a UCI
// move back. plainIndex is the fast path for moves without promotion.
// actionParts holds each move's three rows of the move-part vocabulary.
var (
	actionList  []string
	actionIndex map[string]int
	plainIndex  [64 * 64]int16
	actionParts [][3]int
)

func init() {
	for i := range plainIndex {
		plainIndex[i] = NoToken
	}
	actionIndex = make(map[string]int, ActionVocab)
	add := func(uci string) {
		actionIndex[uci] = len(actionList)
		actionList = append(actionList, uci)
		from, to := squareIndex(uci[0:2]), squareIndex(uci[2:4])
		promotion := 0
		if len(uci) == 5 {
			promotion = 1 + strings.IndexByte("qrbn", uci[4])
		}
		actionParts = append(actionParts, [3]int{from, 64 + to, 128 + promotion})
	}
	// Every from-to a queen or a knight can make on an empty board covers
	// every non-promoting move (castling is the king's two-square move).
	for from := 0; from < 64; from++ {
		for to := 0; to < 64; to++ {
			if from == to {
				continue
			}
			df, dr := to%8-from%8, to/8-from/8
			queen := df == 0 || dr == 0 || df == dr || df == -dr
			knight := df*df+dr*dr == 5
			if queen || knight {
				plainIndex[from*64+to] = int16(len(actionList))
				add(board.SquareName(uint8(from)) + board.SquareName(uint8(to)))
			}
		}
	}
	// Promotions: a pawn's push or capture onto the last rank, for both
	// colours, to each of the four pieces.
	for _, ranks := range [2][2]int{{6, 7}, {1, 0}} {
		for file := 0; file < 8; file++ {
			from := ranks[0]*8 + file
			for df := -1; df <= 1; df++ {
				if file+df < 0 || file+df > 7 {
					continue
				}
				to := ranks[1]*8 + file + df
				for _, piece := range "qrbn" {
					add(board.SquareName(uint8(from)) + board.SquareName(uint8(to)) + string(piece))
				}
			}
		}
	}
	if len(actionList) != ActionVocab {
		panic(fmt.Sprintf("encode: action vocabulary has %d moves, want %d", len(actionList), ActionVocab))
	}
}

// ActionIndex returns m's index in the action vocabulary; ok is false only
// for a move no chess position allows.
func ActionIndex(m board.Move) (int, bool) {
	if m.Promote() == 0 {
		i := plainIndex[int(m.From())*64+int(m.To())]
		return int(i), i != NoToken
	}
	i, ok := actionIndex[board.UCI(m)]
	return i, ok
}

// ActionIndexUCI returns the index of a UCI move string.
func ActionIndexUCI(uci string) (int, bool) {
	i, ok := actionIndex[uci]
	return i, ok
}

// ActionUCI returns the UCI move at index i of the vocabulary.
func ActionUCI(i int) string { return actionList[i] }

// ActionPartRows returns the rows of move i's origin, destination and
// promotion in the move-part vocabulary (ActionParts).
func ActionPartRows(i int) [3]int { return actionParts[i] }

// squareIndex is the index (a1 = 0, h8 = 63) of a square's name.
func squareIndex(name string) int { return int(name[1]-'1')*8 + int(name[0]-'a') }

// StateTokens writes b's StateLen tokens into dst.
func StateTokens(b *board.Board, dst []int16) {
	dst = dst[:StateLen]
	for sq := uint8(0); sq < 64; sq++ {
		p, c := b.PieceAt(sq)
		t := int16(TokenEmpty)
		if p != board.NoPiece {
			t = int16(p) // Pawn..King are 1..6
			if c == board.Black {
				t += 6
			}
		}
		dst[sq] = t
	}
	dst[64] = TokenWhiteToMove
	if b.SideToMove() == board.Black {
		dst[64] = TokenBlackToMove
	}
	rights := b.CastlingRights()
	for i := 0; i < 4; i++ {
		dst[65+i] = TokenRightLost
		if rights&(1<<i) != 0 {
			dst[65+i] = TokenRightKept
		}
	}
	dst[69] = TokenNoEnPassant
	if sq, ok := b.EnPassant(); ok {
		dst[69] = TokenNoEnPassant + 1 + int16(sq%8)
	}
}

// SequenceLen is the number of tokens of a sequence with horizon h: the h
// states s_i .. s_{i+h-1}, then the h actions a_i .. a_{i+h-1}. The model
// learns each slot's place in s_i, a_i, s_{i+1}, ... from its position
// embedding, so grouping states and actions costs nothing and lets the
// model read each kind as one contiguous block.
func SequenceLen(h int) int { return h*StateLen + h }

// ActionSlot is the position of action a_{i+k} in a sequence of horizon h.
func ActionSlot(h, k int) int { return h*StateLen + k }

// Sequence writes the action-state-action sequence of horizon h that
// starts at b and follows line (UCI moves, the first played from b) into
// dst (len SequenceLen(h)). A line shorter than h leaves the later slots
// NoToken; moves past h are ignored. It returns the number of actions
// written and fails on a move that is not legal where it is played. b is
// left as it was.
func Sequence(b *board.Board, line []string, h int, dst []int16) (int, error) {
	dst = dst[:SequenceLen(h)]
	for i := range dst {
		dst[i] = NoToken
	}
	StateTokens(b, dst)
	n := min(len(line), h)
	made := 0
	defer func() {
		for ; made > 0; made-- {
			b.Unmake()
		}
	}()
	for k := 0; k < n; k++ {
		m, err := b.ParseUCI(line[k])
		if err != nil {
			return k, fmt.Errorf("move %d of the line (%s): %w", k+1, line[k], err)
		}
		idx, ok := ActionIndex(m)
		if !ok {
			return k, fmt.Errorf("move %s is not in the action vocabulary", line[k])
		}
		dst[ActionSlot(h, k)] = int16(idx)
		if k+1 < h {
			b.Make(m)
			made++
			StateTokens(b, dst[(k+1)*StateLen:])
		}
	}
	return n, nil
}
