//go:build !linux

package pgtest

import "syscall"

// setParentDeathSignal does nothing where the kernel has no parent-death signal; Main still
// stops the cluster.
func setParentDeathSignal(*syscall.SysProcAttr) {}
