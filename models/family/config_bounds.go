package family

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Bound is the range of one integer key of a config, or of the length of a
// list. A config is checked against its bounds when it is loaded, before
// any of it is used: a size no machine could train (filters: 100000000)
// is a one-line error naming the key, not gigabytes allocated and a crash.
// The bounds are generous; the families' Validate keep the finer rules
// (a multiple of heads, a kernel that fits the board, a list not empty).
type Bound struct{ Min, Max int64 }

// Bounds maps the keys of a config section to their bounds. A list's key
// bounds its length, the key with "[]" its elements: "hidden" and
// "hidden[]", "conv" and "conv[].filters".
type Bounds map[string]Bound

// Bounds every family shares.
const (
	// MaxLayers bounds a list of layers.
	MaxLayers = 64
	// MaxWidth bounds a dense layer's width.
	MaxWidth = 1 << 16
	// maxCount bounds counts of steps, epochs and examples, which cost
	// time, not memory: no run lives to make 10^15 optimizer steps.
	maxCount = 1_000_000_000_000_000
	// MaxWorkers bounds workers: each holds a graph over its share of
	// the batch, and no machine has more cores.
	MaxWorkers = 1024
)

// sharedBounds are the bounds of the keys outside the model section.
var sharedBounds = Bounds{
	"batch_size": {1, 1 << 16},
	"epochs":     {1, maxCount},
	"max_steps":  {0, maxCount},
	"patience":   {0, maxCount},
	"log_every":  {1, maxCount},
	"workers":    {0, MaxWorkers},
	// The shuffle holds this many records, each a pointer and some 200
	// bytes: 10^8 of them fill 24 GiB.
	"data.shuffle_buffer":    {1, 100_000_000},
	"data.val_max":           {0, maxCount},
	"data.min_ply":           {0, 1<<16 - 1}, // a record's ply is 16 bits
	"optimizer.warmup_steps": {0, maxCount},
	"optimizer.decay_steps":  {0, maxCount},
}

// notSizes are the integer keys that measure nothing.
var notSizes = map[string]bool{"seed": true}

// LayerBounds bounds a list of layer widths under key.
func LayerBounds(key string, width int64) Bounds {
	return Bounds{key: {0, MaxLayers}, key + "[]": {1, width}}
}

// MergeBounds returns the union of bound tables.
func MergeBounds(tables ...Bounds) Bounds {
	out := Bounds{}
	for _, t := range tables {
		for k, b := range t {
			out[k] = b
		}
	}
	return out
}

// CheckBounds checks every integer field of the struct v points to, and
// every list's length, against bounds, whose keys are the fields' YAML
// paths ("selfplay.games", "train[].epochs"): the same one-line error as a
// training config's, for any config. A key named seed measures nothing and
// needs no bound.
func CheckBounds(v any, bounds Bounds) error {
	return walkBounds(reflect.ValueOf(v), "", "", "", bounds)
}

// checkBounds checks every integer key of c, and every list's length,
// against its bound: the shared keys against sharedBounds, the model
// section's against its family's Bounds. A key without a bound is an
// error too, so no size of a new field goes unchecked.
func (c *Config) checkBounds() error {
	f, err := Lookup(c.Model.Family)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		field := v.Type().Field(i)
		key := yamlKey(field)
		if field.Type == reflect.TypeOf(ModelSection{}) {
			if err := walkBounds(reflect.ValueOf(c.Model.Settings), "model.", "", "", f.Bounds); err != nil {
				return err
			}
			continue
		}
		if key == "" {
			continue
		}
		if err := walkBounds(v.Field(i), "", key, key, sharedBounds); err != nil {
			return err
		}
	}
	return nil
}

// walkBounds checks v, found under key (as bounds names it: "conv[].pad")
// and shown as shown ("model.conv[1].pad"), and what it holds.
func walkBounds(v reflect.Value, prefix, key, shown string, bounds Bounds) error {
	bound, bounded := bounds[key]
	missing := func() error {
		return fmt.Errorf("config: %s%s has no bound (a family must bound every size in its registration)", prefix, key)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walkBounds(v.Elem(), prefix, key, shown, bounds)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			name := yamlKey(v.Type().Field(i))
			if name == "" {
				continue
			}
			k, s := name, name
			if key != "" {
				k, s = key+"."+name, shown+"."+name
			}
			if err := walkBounds(v.Field(i), prefix, k, s, bounds); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if !bounded {
			return missing()
		}
		if n := int64(v.Len()); n < bound.Min || n > bound.Max {
			return fmt.Errorf("config: %s%s lists %d entries, out of bounds: it takes %d..%d", prefix, shown, n, bound.Min, bound.Max)
		}
		for i := 0; i < v.Len(); i++ {
			if err := walkBounds(v.Index(i), prefix, key+"[]", fmt.Sprintf("%s[%d]", shown, i), bounds); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if notSizes[key] || strings.HasSuffix(key, ".seed") {
			return nil
		}
		if !bounded {
			return missing()
		}
		var n int64
		if v.CanInt() {
			n = v.Int()
		} else if n = int64(v.Uint()); n < 0 {
			n = math.MaxInt64 // above any bound
		}
		if n < bound.Min || n > bound.Max {
			return fmt.Errorf("config: %s%s %d is out of bounds: it must be in %d..%d", prefix, shown, n, bound.Min, bound.Max)
		}
	}
	return nil
}

// yamlKey is a field's key in the config file, "" for one it does not have.
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return strings.ToLower(f.Name)
	}
	return name
}

// ModelSize is what a config's network holds while it trains.
type ModelSize struct {
	// Params counts the weights.
	Params int64
	// Values counts the values one example's forward pass holds: its
	// input and each layer's output.
	Values int64
}

// maxTrainingBytes bounds the memory a config's training needs at the
// least: above it, no machine of 24 GiB could train the model.
const maxTrainingBytes = 24 << 30

// checkMemory bounds what training the config's model needs at the least:
// each weight, its gradient and Adam's two moments, and each value of a
// batch's forward pass, as float32. It runs after every size has been
// checked against its bound, so the products cannot overflow.
func (c *Config) checkMemory() error {
	s := c.Family().Size(c)
	need := 4 * (4*s.Params + int64(c.BatchSize)*s.Values)
	if need > maxTrainingBytes {
		return fmt.Errorf("config: training this model needs at least %.1f GiB (%d weights, %d values per example at batch_size %d), above the bound of %d GiB: make the model or batch_size smaller",
			float64(need)/(1<<30), s.Params, s.Values, c.BatchSize, maxTrainingBytes>>30)
	}
	return nil
}

// DenseSize is the size of a stack of dense layers of the given widths,
// input first.
func DenseSize(widths []int) ModelSize {
	var s ModelSize
	for i, w := range widths {
		s.Values += int64(w)
		if i > 0 {
			s.Params += int64(widths[i-1]+1) * int64(w)
		}
	}
	return s
}
