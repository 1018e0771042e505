//go:build !(linux || darwin)

package gitcmd

// discoverGitDir is not known here: Output asks git for the filter
// drivers.
func discoverGitDir(string) (string, bool) { return "", false }
