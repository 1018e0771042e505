package truncate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTruncate checks the shared cap: a result within the limits is left
// alone; a longer one is cut to the limits (plus its marker) on a valid
// UTF-8 boundary, keeping its head (and for HeadTail, its tail).
func FuzzTruncate(f *testing.F) {
	f.Add("line\n", 10, 100)
	f.Add(strings.Repeat("héllo wörld\n", 500), 20, 300)
	f.Add("\xff\xfe no newline at all", 1, 5)
	f.Fuzz(func(t *testing.T, s string, maxLines, maxBytes int) {
		maxLines = 1 + abs(maxLines)%3000
		maxBytes = 16 + abs(maxBytes)%100000
		for name, fn := range map[string]func(string, int, int) (string, bool){"Apply": Apply, "HeadTail": HeadTail, "Tail": Tail} {
			kept, cut := fn(s, maxLines, maxBytes)
			if !cut {
				if kept != s {
					t.Fatalf("%s: not cut but changed", name)
				}
				continue
			}
			if len(kept) > maxBytes+512 {
				t.Fatalf("%s: kept %d bytes for a %d-byte cap", name, len(kept), maxBytes)
			}
			if utf8.ValidString(s) && !utf8.ValidString(kept) {
				t.Fatalf("%s: cut inside a rune", name)
			}
			if CountLines(kept) > maxLines+4 {
				t.Fatalf("%s: kept %d lines for a %d-line cap", name, CountLines(kept), maxLines)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}
