//go:build unix

package jobarray

import (
	"errors"
	"os"
	"syscall"
)

// LocksWork says that Lock really excludes other processes here.
const LocksWork = true

// Lock takes an exclusive lock on path (created if missing), so two runs
// never append to one journal. The lock goes away with the process, even
// after kill -9. It returns ErrLocked when another process holds it.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
