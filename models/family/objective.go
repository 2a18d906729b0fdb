package family

import (
	"context"

	G "gorgonia.org/gorgonia"

	"github.com/dchess/dchess/dataset"
	"github.com/dchess/dchess/models/dcw"
)

// Objective is what one run of the training loop optimises: a family's
// network, the loss it is trained with and the examples it is fed. The
// loop around it (the optimiser, batches, checkpoints, validation, early
// stopping) is the same for every family; a family's Objective is all it
// gives the loop.
type Objective interface {
	// Family names the family; it is stored in model.dcw.
	Family() string
	// Arch is the architecture as JSON, stored in model.dcw for the loader.
	Arch() ([]byte, error)
	// InitParams draws the initial weights from seed.
	InitParams(seed int64) ([]dcw.Tensor, error)
	// Stages is how many stages are trained one after the other, each for
	// the configured epochs (Pos2Vec's layers); 1 for every other family.
	Stages() int
	// InputShapes gives each input node's shape for a batch (batch
	// first); TargetWidth the values per row of the target node (0: none).
	InputShapes(batch int) [][]int
	TargetWidth() int
	// Build adds the network of stage on the input nodes to g with weights
	// params and returns its per-row loss (batch × 1), the output Score
	// reads and the learnables, each named like its tensor in params.
	Build(g *G.ExprGraph, stage int, inputs []*G.Node, target *G.Node, params []dcw.Tensor) (Net, error)
	// Stream writes a split's examples into sink: shuffled by the config's
	// seed and order.Epoch when order.Shuffled, else in a fixed order. The
	// loop runs it on a goroutine of its own, beside the step that calls
	// Score, so the two share no state that changes.
	Stream(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order StreamOrder, sink Sink) error
	// Score adds the first rows of the batch's last run to tally.
	Score(b Batch, rows int, tally *Tally)
	// EpochSize estimates an epoch's examples, for the progress bar.
	EpochSize(m *dataset.Manifest) int64
}

// Net is what a family's graph for one stage returns to the loop.
type Net struct {
	// PerRow is the loss of each row (batch × 1); the loop weights and
	// sums it.
	PerRow *G.Node
	// Output is what Score reads after a run.
	Output *G.Node
	// Learnables are the weights trained, each named like its tensor.
	Learnables []*G.Node
}

// StreamOrder says how Stream orders a split.
type StreamOrder struct {
	Shuffled bool
	Epoch    int
	// Streamed, when set, counts the records handed to the objective: the
	// share of an epoch a stopped run got through, whatever rows a record
	// makes.
	Streamed *int64
}

// Sink receives examples one row at a time: Row returns the buffers of
// the next row (one slice per input, then the target's), Add commits it,
// and Reject counts a record that could not be read.
type Sink interface {
	Row() (inputs [][]float32, target []float32)
	Add() error
	Reject()
}

// Batch is a batch's buffers and the values of its last run, as Score
// reads them.
type Batch interface {
	// Inputs are the input buffers, row-major, one per input node.
	Inputs() [][]float32
	// Targets is the target buffer (nil without a target).
	Targets() []float32
	// Outputs are the last run's output values, row-major.
	Outputs() []float32
	// RowLosses are the last run's per-row losses.
	RowLosses() []float32
}
