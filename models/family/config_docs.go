package family

import "strings"

// SharedBounds returns a copy of the bounds of the keys outside the model
// section (batch_size, data.shuffle_buffer, ...), by YAML path, for the
// generated config reference (scripts/configdocs).
func SharedBounds() Bounds { return MergeBounds(sharedBounds) }

// Unbounded says whether the integer key (a YAML path, "" prefix) is one
// that measures nothing, a seed, and so needs no bound: the keys
// CheckBounds and a training config's check pass over.
func Unbounded(key string) bool { return notSizes[key] || strings.HasSuffix(key, ".seed") }
