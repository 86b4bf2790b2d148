package pgtest

import "syscall"

// setParentDeathSignal makes the kernel stop the postmaster with an immediate shutdown when the
// test binary dies, so a crashed or killed test run leaves no server behind.
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGQUIT }
