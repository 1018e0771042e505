package markdown

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The corpus (testdata/corpus.txt) is a differential test: ~150 Markdown
// texts covering each construct and their interactions, each with the
// render made by goldmark's parser when the renderer still used it (the
// "goldmark" section, written once and kept). A case whose render differs
// on purpose has a "want" section and a "note" saying why.
//
// The file's syntax: a line "§ case NAME" (optionally "width N") starts a
// case and is followed by its source; "§ goldmark", "§ want" and "§ note"
// start the sections. In renders, ESC is written ␛ and BEL ␇.
//
// go test -run Corpus -update fills in missing goldmark sections and
// writes a want section for each case that differs from its goldmark
// render (dropping it where they agree); a want then needs a note.

var update = flag.Bool("update", false, "rewrite testdata/corpus.txt (see corpus_test.go)")

const corpusFile = "testdata/corpus.txt"

type corpusCase struct {
	name     string
	width    int
	src      string
	goldmark *string
	want     *string
	note     string
}

func parseCorpus(t *testing.T, text string) []*corpusCase {
	t.Helper()
	var cases []*corpusCase
	var c *corpusCase
	var section *string
	var buf []string
	flush := func() {
		if section != nil {
			*section = strings.Join(buf, "\n")
		}
		buf = nil
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(line, "§ ") {
			buf = append(buf, line)
			continue
		}
		flush()
		f := strings.Fields(line[len("§ "):])
		switch {
		case len(f) >= 2 && f[0] == "case":
			c = &corpusCase{width: 50}
			name := strings.Join(f[1:], " ")
			if k := len(f); k >= 4 && f[k-2] == "width" {
				n, err := strconv.Atoi(f[k-1])
				if err != nil {
					t.Fatalf("%s:%d: width %q", corpusFile, i+1, f[k-1])
				}
				c.width = n
				name = strings.Join(f[1:k-2], " ")
			}
			c.name = name
			cases = append(cases, c)
			section = &c.src
		case c == nil:
			t.Fatalf("%s:%d: a section before the first case", corpusFile, i+1)
		case len(f) == 1 && f[0] == "goldmark":
			c.goldmark = new(string)
			section = c.goldmark
		case len(f) == 1 && f[0] == "want":
			c.want = new(string)
			section = c.want
		case len(f) == 1 && f[0] == "note":
			section = &c.note
		default:
			t.Fatalf("%s:%d: unknown section %q", corpusFile, i+1, line)
		}
	}
	flush()
	return cases
}

func writeCorpus(cases []*corpusCase) string {
	var b strings.Builder
	for _, c := range cases {
		if c.width != 50 {
			fmt.Fprintf(&b, "§ case %s width %d\n", c.name, c.width)
		} else {
			fmt.Fprintf(&b, "§ case %s\n", c.name)
		}
		b.WriteString(c.src + "\n")
		if c.goldmark != nil {
			b.WriteString("§ goldmark\n" + *c.goldmark + "\n")
		}
		if c.want != nil {
			b.WriteString("§ want\n" + *c.want + "\n")
		}
		if c.note != "" {
			b.WriteString("§ note\n" + c.note + "\n")
		}
	}
	return b.String()
}

// showRender writes rendered lines with their escapes visible.
func showRender(lines []string) string {
	r := strings.NewReplacer("\x1b", "␛", "\a", "␇")
	return r.Replace(strings.Join(lines, "\n"))
}

func TestCorpus(t *testing.T) {
	data, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	cases := parseCorpus(t, string(data))
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Errorf("two cases named %q", c.name)
		}
		seen[c.name] = true
		got := showRender(Render(c.src, c.width, true))
		checkLines(t, Render(c.src, c.width, true), c.width)
		if *update {
			switch {
			case c.goldmark == nil:
				c.goldmark = &got
			case got == *c.goldmark:
				c.want = nil
			default:
				c.want = &got
			}
			continue
		}
		if c.goldmark == nil {
			t.Errorf("case %q has no goldmark render (run with -update)", c.name)
			continue
		}
		want := *c.goldmark
		if c.want != nil {
			want = *c.want
			if strings.TrimSpace(c.note) == "" {
				t.Errorf("case %q differs from goldmark with no note saying why", c.name)
			}
		}
		if got != want {
			t.Errorf("case %q at width %d:\n%s\ngot:\n%s\nwant:\n%s", c.name, c.width, c.src, got, want)
		}
	}
	if *update {
		if err := os.WriteFile(corpusFile, []byte(writeCorpus(cases)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
