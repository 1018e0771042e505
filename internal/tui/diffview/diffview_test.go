package diffview

import (
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
