//go:build !linux

package procguard

// Harden does nothing on this system.
func Harden() {}

// DropPtraceForChildren does nothing on this system.
func DropPtraceForChildren() {}
