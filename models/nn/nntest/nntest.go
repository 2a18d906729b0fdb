// Package nntest helps the model families test that their pure-Go forward
// pass computes what their Gorgonia graph computes: random legal positions,
// records of them labelled by material or as from decisive games (which
// the training and evaluation tests read too), a Gorgonia forward run, and
// a few plain SGD steps to get weights that are not freshly initialised.
package nntest

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/internal/chess/board"
	"github.com/dchess/dchess/internal/chess/pgn"
	"github.com/dchess/dchess/models/dcw"
)

// Model is the part of family.Model these helpers use.
type Model interface {
	Family() string
	Arch() ([]byte, error)
	InputShape(batch int) []int
	InitParams(seed int64) []dcw.Tensor
	Build(g *G.ExprGraph, x *G.Node, params []dcw.Tensor) (*G.Node, []*G.Node, error)
}

// RandomBoards plays n random games of random length (up to 80 plies) from
// the start and returns the positions they end in.
func RandomBoards(n int, seed uint64) []*board.Board {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]*board.Board, 0, n)
	for len(out) < n {
		b := board.New()
		plies := rng.IntN(80)
		for i := 0; i < plies; i++ {
			moves := b.LegalMoves()
			if len(moves) == 0 {
				break
			}
			b.Make(moves[rng.IntN(len(moves))])
		}
		b.ResetHistory()
		out = append(out, b)
	}
	return out
}

// MaterialRecords labels positions with a win probability from material
// balance (pawn 100, knight and bishop 300, rook 500, queen 900, from the
// side to move), a target a small network can learn.
func MaterialRecords(boards []*board.Board) []*dataset.Record {
	values := [...]int32{board.Pawn: 100, board.Knight: 300, board.Bishop: 300, board.Rook: 500, board.Queen: 900}
	recs := make([]*dataset.Record, len(boards))
	for i, b := range boards {
		var cp int32
		for sq := uint8(0); sq < 64; sq++ {
			p, c := b.PieceAt(sq)
			if p == board.NoPiece || p == board.King {
				continue
			}
			if c == b.SideToMove() {
				cp += values[p]
			} else {
				cp -= values[p]
			}
		}
		fen := b.FEN()
		recs[i] = &dataset.Record{FEN: fen, Key: dataset.PositionKey(fen), GameID: uint64(i),
			Label: &dataset.Label{Status: dataset.LabelOK, CP: cp, WinProb: dataset.WinProbability(cp, 0)}}
	}
	return recs
}

// DecisiveRecords makes MaterialRecords' positions look as if from
// decisive games, as DeepChess's pairs need: those not level in material,
// unlabelled, at ply 20 of a game the side ahead in material won, each
// with its first quiet legal move as the move played.
func DecisiveRecords(boards []*board.Board) []*dataset.Record {
	var recs []*dataset.Record
	for i, r := range MaterialRecords(boards) {
		cp := r.Label.CP
		if cp == 0 {
			continue
		}
		b := boards[i]
		r.Result, r.Ply, r.Label = pgn.BlackWin, 20, nil
		if (cp > 0) == (b.SideToMove() == board.White) {
			r.Result = pgn.WhiteWin
		}
		for _, m := range b.LegalMoves() {
			if !b.IsCapture(m) {
				r.Move = board.UCI(m)
				break
			}
		}
		recs = append(recs, r)
	}
	return recs
}

// GraphLogits runs m's Gorgonia graph with params on the inputs (one row of
// InputShape(1) values per position) and returns the logits.
func GraphLogits(m Model, params []dcw.Tensor, inputs [][]float32) ([]float32, error) {
	g := G.NewGraph()
	shape := m.InputShape(len(inputs))
	x := G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName("x"))
	logit, _, err := m.Build(g, x, params)
	if err != nil {
		return nil, err
	}
	if err := G.Let(x, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(flatten(inputs)))); err != nil {
		return nil, err
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return nil, err
	}
	return append([]float32(nil), logit.Value().Data().([]float32)...), nil
}

// Train runs steps of plain SGD (learning rate lr, mean squared error of the
// sigmoid against targets) from params and returns the trained weights.
func Train(m Model, params []dcw.Tensor, inputs [][]float32, targets []float32, steps int, lr float64) ([]dcw.Tensor, error) {
	g := G.NewGraph()
	shape := m.InputShape(len(inputs))
	x := G.NewTensor(g, tensor.Float32, len(shape), G.WithShape(shape...), G.WithName("x"))
	y := G.NewMatrix(g, tensor.Float32, G.WithShape(len(inputs), 1), G.WithName("y"))
	logit, learnables, err := m.Build(g, x, params)
	if err != nil {
		return nil, err
	}
	p, err := G.Sigmoid(logit)
	if err != nil {
		return nil, err
	}
	diff, err := G.Sub(p, y)
	if err != nil {
		return nil, err
	}
	sq, err := G.Square(diff)
	if err != nil {
		return nil, err
	}
	cost, err := G.Mean(sq)
	if err != nil {
		return nil, err
	}
	if _, err := G.Grad(cost, learnables...); err != nil {
		return nil, err
	}
	G.Let(x, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(flatten(inputs))))
	G.Let(y, tensor.New(tensor.WithShape(len(inputs), 1), tensor.WithBacking(append([]float32(nil), targets...))))
	vm := G.NewTapeMachine(g, G.BindDualValues(learnables...))
	defer vm.Close()
	solver := G.NewVanillaSolver(G.WithLearnRate(lr))
	for i := 0; i < steps; i++ {
		if err := vm.RunAll(); err != nil {
			return nil, err
		}
		if err := solver.Step(G.NodesToValueGrads(learnables)); err != nil {
			return nil, err
		}
		vm.Reset()
	}
	out := make([]dcw.Tensor, len(params))
	for i, n := range learnables {
		data := n.Value().Data().([]float32)
		if len(data) != len(params[i].Data) {
			return nil, fmt.Errorf("learnable %s has %d values, parameter %s %d", n.Name(), len(data), params[i].Name, len(params[i].Data))
		}
		out[i] = dcw.Tensor{Name: params[i].Name, Shape: params[i].Shape, Data: append([]float32(nil), data...)}
	}
	return out, nil
}

// File makes a weights file from m's architecture and params.
func File(m Model, params []dcw.Tensor) (*dcw.File, error) {
	arch, err := m.Arch()
	if err != nil {
		return nil, err
	}
	return &dcw.File{Family: m.Family(), Arch: arch, Tensors: params}, nil
}

func flatten(rows [][]float32) []float32 {
	var out []float32
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// MaxChange is the largest absolute difference between two sets of weights.
func MaxChange(a, b []dcw.Tensor) float64 {
	var most float64
	for i := range a {
		for j, v := range a[i].Data {
			most = math.Max(most, math.Abs(float64(v-b[i].Data[j])))
		}
	}
	return most
}
