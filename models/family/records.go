package family

import (
	"context"

	"github.com/dchess/dchess/dataset"
)

// EachRecord streams a split shuffled by the config's seed and the epoch, or
// in stored order.
func EachRecord(ctx context.Context, ds *dataset.Dataset, split dataset.Split, order StreamOrder, cfg *Config, fn func(*dataset.Record) error) error {
	if n := order.Streamed; n != nil {
		each := fn
		fn = func(r *dataset.Record) error {
			*n++
			return each(r)
		}
	}
	if order.Shuffled {
		return ds.Shuffled(ctx, split, cfg.Seed, order.Epoch, cfg.Data.ShuffleBuffer, fn)
	}
	return ds.Scan(ctx, split, fn)
}

// TrainRecords is the number of records in the train split, an upper bound
// on the positions the filter keeps.
func TrainRecords(man *dataset.Manifest) int64 {
	if man.Split != nil {
		return man.Split.Records.Train
	}
	return man.Counts.Records
}

// LabelledTrainRecords estimates the labelled records of the train split.
func LabelledTrainRecords(man *dataset.Manifest) int64 {
	if man.Split != nil && man.Counts.Records > 0 {
		return man.Split.Records.Train * man.Counts.Labelled / man.Counts.Records
	}
	return man.Counts.Labelled
}

// ValidationEpoch orders the validation pairs: the same pairs every epoch,
// so their accuracy is comparable from one epoch to the next.
const ValidationEpoch = -1
