//go:build !linux

package snapshot

import "os"

// statSupported: elsewhere git walks (walk.go).
const statSupported = false

func fileChanged(string, *indexEntry, [2]uint32, map[string]uint32, string) bool { return true }

func (s *Store) goUpdate([]string, []string, *[]Skip, os.FileInfo, *cacheTree) (string, error) {
	return "", errGoUpdate
}
