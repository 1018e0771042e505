//go:build !linux

package initpages

// Release does nothing on this system.
func Release() {}
