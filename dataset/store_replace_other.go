//go:build !linux

package dataset

import "errors"

// exchangeDirs has no atomic implementation here; replaceDir falls back to
// two renames.
func exchangeDirs(a, b string) error { return errors.New("atomic exchange not supported") }
