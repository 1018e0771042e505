//go:build !linux

package sandbox

import (
	"fmt"
	"runtime"
)

func platformSupported() error {
	return fmt.Errorf("no sandbox on %s yet (Linux uses bubblewrap)", runtime.GOOS)
}
