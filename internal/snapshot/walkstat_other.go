//go:build !linux

package snapshot

// statSupported: elsewhere git walks (walk.go).
const statSupported = false

func fileChanged(int, string, string, *indexEntry, [2]uint32, map[string]uint32) bool { return true }

func openDir(string) int { return -1 }

func closeDir(int) {}

func (g *goPath) update([]string, []string, *[]Skip, walkResult, *reporter) (string, error) {
	return "", errGoUpdate
}
