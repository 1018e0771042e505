package snapshot

// treeentry.go: a tree object's entry and its mode as git writes it, for
// every platform (the Go walk that builds trees from the index is
// Linux-only; the seed builds them everywhere: seedtrees.go).

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name string
	mode uint32
	oid  [20]byte
}

// strconvOctal is a tree entry's mode as git writes it.
func strconvOctal(m uint32) string {
	switch m {
	case 0o100644:
		return "100644"
	case 0o100755:
		return "100755"
	case 0o120000:
		return "120000"
	case 0o40000:
		return "40000"
	}
	return "160000"
}
