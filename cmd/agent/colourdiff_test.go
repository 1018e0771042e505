package main

import (
	"strings"
	"testing"
)

// TestColourDiffColoursContentThatLooksLikeAHeader: in a hunk, the removed
// line "-- comment" ("--- comment") and the added line "++ z" ("+++ z")
// are a deletion and an addition, red and green as agent diff counts them,
// not file headers.
func TestColourDiffColoursContentThatLooksLikeAHeader(t *testing.T) {
	diff := "diff --git a/q.sql b/q.sql\n--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n x\n--- comment\n+++ z\n y\n" +
		"diff --git a/r b/r\n--- a/r\n+++ b/r\n@@ -1 +1 @@\n-a\n+b\n"
	got := colourDiff(diff)
	for _, want := range []string{
		"\x1b[1m--- a/q.sql\x1b[0m", "\x1b[1m+++ b/q.sql\x1b[0m",
		"\x1b[31m--- comment\x1b[0m", "\x1b[32m+++ z\x1b[0m",
		"\x1b[1m--- a/r\x1b[0m", "\x1b[1m+++ b/r\x1b[0m", "\x1b[31m-a\x1b[0m",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("colourDiff lacks %q:\n%q", want, got)
		}
	}
}
