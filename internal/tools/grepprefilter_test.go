package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// grepOracle is the plain scan every prefilter must agree with: each line
// (without its newline) run through the regular expression.
func grepOracle(re *regexp.Regexp, content string) []grepMatch {
	var out []grepMatch
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") || content == "" {
		lines = lines[:len(lines)-1] // no line after the last newline
	}
	for i, line := range lines {
		if re.MatchString(line) {
			out = append(out, grepMatch{line: i + 1, text: cutLine([]byte(line), grepMaxLineBytes)})
		}
	}
	return out
}

// grepScan runs one file through the search as the tool does, with the
// prefilters the pattern gets.
func grepScan(t testing.TB, pattern, path string) ([]grepMatch, bool) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, false
	}
	lit, fold := requiredLiteral(pattern)
	s := &grepSearch{re: re, lit: []byte(lit), fold: fold, limit: 1 << 30}
	if lit == "" {
		s.set = requiredBytes(pattern)
	}
	var w grepWorker
	return s.scanFile(path, &w, &grepAt{dir: atFDCWD, rel: path}), true
}

func checkAgainstOracle(t *testing.T, pattern, content string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := grepScan(t, pattern, path)
	if !ok || strings.Contains(content, "\x00") {
		return
	}
	want := grepOracle(regexp.MustCompile("(?m)"+pattern), content)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pattern %q on %q:\n got %v\nwant %v", pattern, content, got, want)
	}
}

func TestGrepPrefilterAgreesWithEveryLine(t *testing.T) {
	content := "date 2024-01-02T10:00\nno date 2024-01-02\n\tx := 12 - 3\nKelvin \u212a and k and K\nſ long s\n" +
		"caf\u00e9 CAFÉ\ninvalid \xff byte\nend-of-line -\r\n-\n" + strings.Repeat("9", 300) + "-\nlast 1999-12-31T"
	for _, pattern := range []string{
		`\d{4}-\d{2}-\d{2}T`, `\d+`, `[0-9]{3}`, `x|y`, `(?i)k`, `(?i)s`, `(?i)é`, `[^a-z ]{2}`, `\xff`, `\x{fffd}`,
		`-$`, `^-`, `(\d)-`, `[é]`, `.`, `T$`, `[^\n]-`, `\d{2}\s`, `a{0}b?`, `(?i)[k]`, `\pL\d`, `[\x{80}-\x{10ffff}]`,
		`(?i)date`, `(?i)DATE 20`, `(?i)long S`, `(?i)-line -`, `(?i)9-\n`, `(?i)31t`, `(?i)caf`, `(?i)999`,
	} {
		t.Run(pattern, func(t *testing.T) { checkAgainstOracle(t, pattern, content) })
	}
}

func TestRequiredBytes(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    string // the set's bytes, "" for none
	}{
		{`\d{4}-\d{2}-\d{2}T`, "-"},
		{`[0-9]+x?`, "0123456789"},
		{`(?i)q`, "Qq"},
		{`a|b`, "ab"},
		{`a|bc`, ""},
		{`.+`, ""},
		{`\s+`, ""},
	} {
		var got string
		if s := requiredBytes(tc.pattern); s != nil {
			for c, in := range s.has {
				if in {
					got += string(rune(c))
				}
			}
		}
		if got != tc.want {
			t.Errorf("requiredBytes(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func FuzzGrepPrefilter(f *testing.F) {
	f.Add(`\d{4}-\d{2}`, "x 2024-01\n1-2\n")
	f.Add(`(?i)k\d`, "\u212a1\nK2\nk3\n")
	f.Add(`[^a]b`, "\xffb\nab\n")
	f.Add(`-$`, "a-\r\nb-\n")
	f.Fuzz(func(t *testing.T, pattern, content string) {
		if len(pattern) > 40 || len(content) > 4000 {
			return
		}
		checkAgainstOracle(t, pattern, content)
	})
}

// A case-insensitive literal is anchored on the window of it the text
// holds least, not on the byte a static guess calls rare: in Go code full
// of `:=`, the ':' of "deprecated:" is on nearly every line (issue 36: the
// guess made (?i)deprecated: 1.25× rg on the benchmark tree).
func TestGrepFoldAnchorAvoidsFrequentByte(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "\tcount := strings.TrimSpace(line[1:]) // %d\n", i)
	}
	b.WriteString("// Deprecated: use the other one.\n")
	lit := []byte("deprecated:")
	// Nothing sampled yet: the static guess, which picks ':' here.
	var fresh foldAnchor
	if w := fresh.pick(lit, nil); lit[w.k] != ':' || w.width != 1 || w.n != 1 {
		t.Fatalf("without a sample anchored on %+v, want the guess ':'", w)
	}
	var a foldAnchor
	w := a.pick(lit, []byte(b.String()))
	if n := strings.Count(strings.ToLower(b.String()), string(lit[w.k:w.k+w.width])); w.width != 2 || n > 10 {
		t.Fatalf("anchored on %q (%+v), in the text %d times", lit[w.k:w.k+w.width], w, n)
	}
	want := map[string]bool{}
	for _, f := range w.forms[:w.n] {
		want[string(f[:])] = true
	}
	lower := string(lit[w.k : w.k+2])
	if w.n != len(want) || !want[lower] || !want[strings.ToUpper(lower)] {
		t.Fatalf("forms %q of %q", w.forms[:w.n], lower)
	}
	checkAgainstOracle(t, "(?i)deprecated:", b.String())
}
