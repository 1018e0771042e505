package diffview

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

const sample = `--- a/main.go
+++ b/main.go
@@ -10,4 +10,4 @@
 func main() {
-	fmt.Println("hello, world", os.Args[1:], "and a long tail of arguments that goes past sixty columns")
+	fmt.Println("goodbye, world", os.Args[1:], "and a long tail of arguments that goes past sixty columns")
 	os.Exit(0)
 }
`

func plain() Styles {
	s := lipgloss.NewStyle()
	return Styles{Context: s, Add: s, Del: s, AddWord: s.Reverse(true), DelWord: s.Reverse(true), Hunk: s, Gutter: s}
}

func TestParseNumbersLinesAndMarksChangedWords(t *testing.T) {
	ls := Parse(sample)
	if len(ls) != 6 {
		t.Fatalf("%d lines: %+v", len(ls), ls)
	}
	del, add := ls[2], ls[3]
	if del.Kind != Removed || del.Old != 11 || add.Kind != Added || add.New != 11 || ls[4].Old != 12 || ls[4].New != 12 {
		t.Fatalf("numbers: %+v %+v %+v", del, add, ls[4])
	}
	if len(del.Words) != 1 || del.Text[del.Words[0][0]:del.Words[0][1]] != "hello" {
		t.Errorf("removed words %v of %q", del.Words, del.Text)
	}
	if len(add.Words) != 1 || add.Text[add.Words[0][0]:add.Words[0][1]] != "goodbye" {
		t.Errorf("added words %v of %q", add.Words, add.Text)
	}
}

// TestNarrowDiffWrapsAndKeepsEveryCharacter: at 60 columns a long line
// is wrapped, never cut with "…" (issue 14.9).
func TestNarrowDiffWrapsAndKeepsEveryCharacter(t *testing.T) {
	rows := Render(sample, 60, Auto, plain())
	var text strings.Builder
	for _, r := range rows {
		p := ansi.Strip(r)
		if w := ansi.StringWidth(p); w > 60 {
			t.Errorf("row of %d cells: %q", w, p)
		}
		if strings.Contains(p, "…") {
			t.Errorf("row cut: %q", p)
		}
		text.WriteString(p)
	}
	flat := strings.Join(strings.Fields(text.String()), "")
	for _, want := range []string{"goespastsixtycolumns", "11-", "11+"} {
		if !strings.Contains(flat, want) {
			t.Errorf("lost %q in:\n%s", want, strings.Join(rows, "\n"))
		}
	}
}

func TestWideDiffIsSideBySide(t *testing.T) {
	rows := Render(sample, 170, Auto, plain())
	found := false
	for _, r := range rows {
		p := ansi.Strip(r)
		if ansi.StringWidth(p) > 170 {
			t.Errorf("row too wide: %q", p)
		}
		if strings.Contains(p, "hello") && strings.Contains(p, "goodbye") && strings.Contains(p, "│") {
			found = true
		}
	}
	if !found {
		t.Errorf("old and new not side by side:\n%s", ansi.Strip(strings.Join(rows, "\n")))
	}
}

func TestControlSequencesInAFileAreStripped(t *testing.T) {
	rows := Render("@@ -1 +1 @@\n-a\x1b]52;c;ZXZpbA==\x07b\n+ab\n", 60, Unified, plain())
	for _, r := range rows {
		if strings.Contains(r, "\x1b]52") || strings.Contains(r, "\x07") {
			t.Errorf("control sequence kept: %q", r)
		}
	}
}

// TestParseKeepsContentLinesThatLookLikeHeaders: inside a hunk, a removed
// line "-- x" reads "--- x" and an added "++ y" reads "+++ y"; they are
// content, counted by the hunk header, not file headers (FuzzRender
// found the added line dropped).
func TestParseKeepsContentLinesThatLookLikeHeaders(t *testing.T) {
	diff := "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n+++ y\n -- x\n-++ y\n@@ -5 +5 @@\n---- z\n++++ z\n"
	var got []string
	for _, l := range Parse(diff) {
		got = append(got, fmt.Sprintf("%d:%d/%d:%s", l.Kind, l.Old, l.New, l.Text))
	}
	want := []string{"3:0/0:@@ -1,2 +1,2 @@", "1:0/1:++ y", "0:1/2:-- x", "2:2/0:++ y", "3:0/0:@@ -5 +5 @@", "2:5/0:--- z", "1:0/5:+++ z"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
	// A header that counts too many lines does not hide the next hunk.
	got = nil
	for _, l := range Parse("@@ -1,9 +1,9 @@\n-a\n+b\n@@ -20 +20 @@\n-c\n+d\n") {
		got = append(got, fmt.Sprintf("%d:%d/%d:%s", l.Kind, l.Old, l.New, l.Text))
	}
	want = []string{"3:0/0:@@ -1,9 +1,9 @@", "2:1/0:a", "1:0/1:b", "3:0/0:@@ -20 +20 @@", "2:20/0:c", "1:0/20:d"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
}

// TestNarrowWidthsStayInWidth: rows are at most width cells at any width
// from 8, side by side asked for or not, with line numbers of any length
// (FuzzRender found side by side at 8 columns drawing 11).
func TestNarrowWidthsStayInWidth(t *testing.T) {
	diff := "@@ -99998,2 +99998,2 @@\n-a long removed line\n+a long added line\n context\n"
	for width := 8; width <= 40; width++ {
		for _, layout := range []Layout{Unified, SideBySide} {
			rows := Render(diff, width, layout, plain())
			if len(rows) == 0 {
				t.Fatalf("width %d: nothing drawn", width)
			}
			for _, r := range rows {
				if w := ansi.StringWidth(r); w > width {
					t.Errorf("layout %d, width %d: a row of %d cells: %q", layout, width, w, ansi.Strip(r))
				}
			}
		}
	}
}
