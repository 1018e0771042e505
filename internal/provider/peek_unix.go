//go:build linux || darwin || freebsd || netbsd || openbsd

package provider

import (
	"errors"
	"net"
	"syscall"
)

// peek looks at c's socket without reading from it or waiting.
func peek(c net.Conn) peekResult {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return peekUnknown
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return peekUnknown
	}
	var n int
	var rerr error
	var b [1]byte
	err = rc.Read(func(fd uintptr) bool {
		// Go's sockets are non-blocking: nothing to read is EAGAIN.
		n, _, rerr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		return true
	})
	switch {
	case err != nil:
		return peekClosed
	case errors.Is(rerr, syscall.EAGAIN) || errors.Is(rerr, syscall.EWOULDBLOCK):
		return peekNothing
	case rerr != nil, n == 0:
		return peekClosed
	}
	return peekData
}
