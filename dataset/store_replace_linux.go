package dataset

import "golang.org/x/sys/unix"

// exchangeDirs swaps two paths in one step (renameat2 RENAME_EXCHANGE).
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
