//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// LocksWork says that Lock really excludes other processes here.
const LocksWork = true

// Lock takes an exclusive lock on path (created if missing), so two runs
// never write one output at once. The lock goes away with the process, even
// after kill -9. It returns ErrLocked when another process holds it.
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func lockFile(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return ErrLocked
		}
		return err
	}
	return nil
}
