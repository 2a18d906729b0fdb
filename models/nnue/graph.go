package nnue

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dchess/dchess/internal/chess/pgn"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/models/dcw"
	"github.com/dchess/dchess/models/nn"
	"github.com/dchess/dchess/models/nn/ops"
)

// Model is the training side of the family.
type Model struct{ cfg Config }

// NewModel checks cfg and returns the trainable model.
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg}, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Arch returns the architecture as stored in model.dcw. One output is
// stored as files before OutputBuckets have it, absent, so such a network's
// file is byte for byte what it was.
func (m *Model) Arch() ([]byte, error) {
	c := m.cfg
	if c.OutputBuckets == 1 {
		c.OutputBuckets = 0
	}
	return json.Marshal(c)
}

// InitParams draws fresh weights from seed: Glorot-uniform weights (the
// feature transformer's as a 768 × N layer, so about 26 active rows put
// the accumulators mostly inside the clip's [0, 1]) and zero biases.
func (m *Model) InitParams(seed int64) []dcw.Tensor {
	rng := nn.NewRand(seed)
	var out []dcw.Tensor
	for _, p := range m.cfg.paramShapes() {
		if len(p.shape) == 1 {
			out = append(out, nn.Zeros(p.name, p.shape...))
			continue
		}
		out = append(out, nn.Uniform(rng, p.name, nn.GlorotLimit(p.shape[0], p.shape[1]), p.shape...))
	}
	return out
}

// Graph inputs, in InputShapes' order.
const (
	InputActive  = iota // batch × 2·Slots: the side to move's features, then the other side's
	InputWinProb        // batch × 1: Stockfish's win probability for the side to move
	InputResult         // batch × 1: the game's result for the side to move (1, 0.5, 0)
	InputBucket         // batch × OutputBuckets, only when there are several: 1 at the position's output, 0 elsewhere
)

// InputShapes are the graph's inputs for a batch. Active features are
// stored as feature index + 1, 0 for an empty slot (ops.FeatureTransformer),
// so a zeroed padding row holds no piece.
func (m *Model) InputShapes(batch int) [][]int {
	shapes := [][]int{{batch, 2 * Slots}, {batch, 1}, {batch, 1}}
	if b := m.cfg.buckets(); b > 1 {
		shapes = append(shapes, []int{batch, b})
	}
	return shapes
}

// Encode fills one row of each input of InputShapes from a labelled record
// and says whether the record is used: records without a Stockfish label,
// without a game result when the target needs one (lambda < 1), or not
// quiet when QuietOnly, are skipped. An error means a record that cannot
// be read (a bad FEN or best move), which the loop counts as rejected.
func (m *Model) Encode(r *dataset.Record, rows [][]float32) (bool, error) {
	var used [1]bool
	_, err := m.EncodeRecord(r, 0, 1, [][][]float32{rows}, used[:])
	return used[0] && err == nil, err
}

// EncodeRecord fills the rows of a record and of its lines for training
// (Config.Children, Config.ChildPlies): rows[0] as Encode does, and
// rows[k*plies+p] with the position after the first p plies of line k
// (0 its best line, k ≥ 1 its --multipv line k+1), for k < lines and
// 1 ≤ p ≤ plies, scored by that line from that position's side to move.
// used[i] says which rows hold a position: a row whose line is missing or
// shorter than p, or whose position is not quiet when QuietOnly, does not.
// The record's position is parsed once and each line's moves are made in
// turn, not replayed for every row. failed is the first row that could not
// be read, with its error (a bad FEN or best move fails row 0; a move of a
// line that is not legal, that line's row at its ply), and -1 otherwise;
// the rows after it are not filled.
func (m *Model) EncodeRecord(r *dataset.Record, lines, plies int, rows [][][]float32, used []bool) (failed int, err error) {
	clear(used)
	if !m.usable(r) {
		return -1, nil
	}
	root, err := board.FromFEN(r.FEN)
	if err != nil {
		return 0, err
	}
	if used[0], err = m.encode(root, r.Label.BestMove, r.Label.WinProb, r.Result, rows[0]); err != nil {
		return 0, err
	}
	for k := 0; k < lines && k <= len(r.Label.MultiPV); k++ {
		line := dataset.PVLine{CP: r.Label.CP, Mate: r.Label.Mate, PV: r.Label.PV}
		if k > 0 {
			line = r.Label.MultiPV[k-1]
		}
		win := dataset.WinProbability(line.CP, line.Mate)
		b := root.Clone()
		for p := 1; p <= min(plies, len(line.PV)); p++ {
			row := k*plies + p
			mv, err := b.ParseUCI(line.PV[p-1])
			if err != nil {
				return row, fmt.Errorf("line %d: %w", k+1, err)
			}
			b.Make(mv)
			next := ""
			if len(line.PV) > p {
				next = line.PV[p]
			}
			w := win
			if p%2 == 1 {
				w = 1 - win
			}
			if used[row], err = m.encode(b, next, w, r.Result, rows[row]); err != nil {
				return row, err
			}
		}
	}
	return -1, nil
}

// usable says whether a record has what the target needs.
func (m *Model) usable(r *dataset.Record) bool {
	if r.Label == nil || r.Label.Status != dataset.LabelOK {
		return false
	}
	return m.cfg.Lambda == 1 || r.Result != pgn.ResultUnknown
}

// encode fills one row from a position, Stockfish's best move there (""
// when unknown), its win probability from the side to move and the game's
// result.
func (m *Model) encode(b *board.Board, best string, winProb float32, result pgn.Result, rows [][]float32) (bool, error) {
	if m.cfg.QuietOnly {
		if quiet, err := (&dataset.Label{BestMove: best}).Quiet(b); err != nil || !quiet {
			return false, err
		}
	}
	if err := encodeActive(b, rows[InputActive]); err != nil {
		return false, err
	}
	rows[InputWinProb][0] = winProb
	rows[InputResult][0] = resultFor(result, b.SideToMove())
	if m.cfg.buckets() > 1 {
		clear(rows[InputBucket])
		rows[InputBucket][m.cfg.bucket(popcount(b.Occupied()))] = 1
	}
	return true, nil
}

// encodeActive writes b's active features as the graph reads them: the
// side to move's view in the first Slots values, the other's after.
func encodeActive(b *board.Board, dst []float32) error {
	var idx [Slots]int
	stm := b.SideToMove()
	for k, view := range [2]board.Color{stm, stm.Other()} {
		n := activeFeatures(b, view, idx[:])
		if n > Slots {
			return fmt.Errorf("more than %d pieces", Slots)
		}
		slots := dst[k*Slots : (k+1)*Slots]
		clear(slots)
		for i, f := range idx[:n] {
			slots[i] = float32(f + 1)
		}
	}
	return nil
}

// Mirrorable says whether Config.Mirror adds the mirror of r's rows: when
// neither side of r's position may castle (nor of its children, as a move
// never gives a right back).
func (m *Model) Mirrorable(r *dataset.Record) bool {
	if !m.cfg.Mirror {
		return false
	}
	fields := strings.Fields(r.FEN)
	return len(fields) > 2 && fields[2] == "-"
}

// MirrorRow fills dst with src's position mirrored left to right and the
// same target. A feature's square is its low six bits, the file the low
// three, so the mirror flips those (slots hold feature + 1, 0 empty).
func MirrorRow(src, dst [][]float32) {
	for i := range src {
		copy(dst[i], src[i])
	}
	for i, v := range dst[InputActive] {
		if v > 0 {
			dst[InputActive][i] = float32(int(v-1)^7) + 1
		}
	}
}

// resultFor is a game's result from side's view: 1 won, 0.5 drawn or
// unknown, 0 lost.
func resultFor(r pgn.Result, side board.Color) float32 {
	switch {
	case r == pgn.WhiteWin && side == board.White, r == pgn.BlackWin && side == board.Black:
		return 1
	case r == pgn.WhiteWin, r == pgn.BlackWin:
		return 0
	}
	return 0.5
}

// Outputs are the nodes the training loop reads.
type Outputs struct {
	// PerRow is each row's loss (batch × 1): (sigmoid(score / Scale) -
	// target)², target = Lambda · win probability + (1 - Lambda) · result,
	// plus Sparsity · the mean of the row's inputs to the dense layers.
	PerRow *G.Node
	// Score is the network's output in centipawns (batch × 1).
	Score *G.Node
	// Logit is Score / Scale (batch × 1), whose sigmoid is the side to
	// move's predicted win probability.
	Logit      *G.Node
	Learnables []*G.Node
}

// Build adds the network and its loss on the inputs of InputShapes to g,
// with weights params; the learnables are named like their tensors.
func (m *Model) Build(g *G.ExprGraph, inputs []*G.Node, params []dcw.Tensor) (Outputs, error) {
	c := m.cfg
	fail := func(err error) (Outputs, error) { return Outputs{}, fmt.Errorf("nnue graph: %w", err) }
	if want := len(m.InputShapes(1)); len(inputs) != want {
		return fail(fmt.Errorf("%d inputs, want %d", len(inputs), want))
	}
	var learnables []*G.Node
	param := func(name string, shape ...int) (*G.Node, error) {
		t, err := nn.Find(params, name)
		if err != nil {
			return nil, err
		}
		n, err := nn.Param(g, t, shape...)
		if err != nil {
			return nil, err
		}
		learnables = append(learnables, n)
		return n, nil
	}
	ftw, err := param("ft.w", Features, c.Accumulator)
	if err != nil {
		return fail(err)
	}
	ftb, err := param("ft.b", 1, c.Accumulator)
	if err != nil {
		return fail(err)
	}
	x, err := ops.FeatureTransformer(ftw, ftb, inputs[InputActive], 2, true)
	if err != nil {
		return fail(err)
	}
	if c.Pairwise {
		if x, err = ops.PairwiseProduct(x, 2); err != nil {
			return fail(err)
		}
	}
	widths := c.widths()
	var ws, bs []*G.Node
	for i := 0; i+1 < len(widths); i++ {
		w, err := param(denseName(i)+".w", widths[i], widths[i+1])
		if err != nil {
			return fail(err)
		}
		b, err := param(denseName(i)+".b", 1, widths[i+1])
		if err != nil {
			return fail(err)
		}
		ws, bs = append(ws, w), append(bs, b)
	}
	logit, err := ops.DenseStackInner(x, ws, bs, ops.ActClippedReLU)
	if err != nil {
		return fail(err)
	}
	if c.buckets() > 1 {
		if logit, err = pickBucket(logit, inputs[InputBucket]); err != nil {
			return fail(err)
		}
	}
	score, err := G.Mul(logit, G.NewConstant(float32(c.Scale), G.WithName("nnue.scale")))
	if err != nil {
		return fail(err)
	}
	p, err := G.Sigmoid(logit)
	if err != nil {
		return fail(err)
	}
	target := inputs[InputWinProb]
	if c.Lambda < 1 {
		wp, err := G.Mul(target, G.NewConstant(float32(c.Lambda), G.WithName("nnue.lambda")))
		if err != nil {
			return fail(err)
		}
		res, err := G.Mul(inputs[InputResult], G.NewConstant(float32(1-c.Lambda), G.WithName("nnue.1-lambda")))
		if err != nil {
			return fail(err)
		}
		if target, err = G.Add(wp, res); err != nil {
			return fail(err)
		}
	}
	diff, err := G.Sub(p, target)
	if err != nil {
		return fail(err)
	}
	perRow, err := G.Square(diff)
	if err != nil {
		return fail(err)
	}
	if c.Sparsity > 0 {
		if perRow, err = addSparsity(perRow, x, c.Sparsity/float64(c.widths()[0])); err != nil {
			return fail(err)
		}
	}
	return Outputs{PerRow: perRow, Score: score, Logit: logit, Learnables: learnables}, nil
}

// pickBucket keeps each row's output at its bucket: out (batch × buckets)
// times the one-hot rows of bucket, summed along the row (batch × 1).
func pickBucket(out, bucket *G.Node) (*G.Node, error) {
	picked, err := G.HadamardProd(out, bucket)
	if err != nil {
		return nil, err
	}
	sum, err := G.Sum(picked, 1)
	if err != nil {
		return nil, err
	}
	return G.Reshape(sum, []int{out.Shape()[0], 1})
}

// addSparsity adds k times the sum of each row of x, the first dense
// layer's inputs, to perRow (batch × 1).
func addSparsity(perRow, x *G.Node, k float64) (*G.Node, error) {
	sum, err := G.Sum(x, 1)
	if err != nil {
		return nil, err
	}
	col, err := G.Reshape(sum, perRow.Shape())
	if err != nil {
		return nil, err
	}
	pen, err := G.Mul(col, G.NewConstant(float32(k), G.WithName("nnue.sparsity")))
	if err != nil {
		return nil, err
	}
	return G.Add(perRow, pen)
}
