//go:build !linux

package mcp

import "syscall"

func setParentDeath(*syscall.SysProcAttr) {}
