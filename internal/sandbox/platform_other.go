//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"runtime"
)

func platformSupported() error {
	return fmt.Errorf("no sandbox on %s yet (Linux uses bubblewrap, macOS sandbox-exec)", runtime.GOOS)
}

func platformProbe() error { return platformSupported() }

func platformCommand(Policy, string, string) (string, []string, error) {
	return "", nil, platformSupported()
}
