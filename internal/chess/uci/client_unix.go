//go:build unix

package uci

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the engine in its own process group: a terminal's
// Ctrl-C then reaches only dchess, which can finish and save its work before
// closing the engines, and a kill reaches the engine's own children too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
