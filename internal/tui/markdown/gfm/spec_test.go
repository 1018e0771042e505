package gfm

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// specExample is one example of a spec, as testdata/specgen writes it.
type specExample struct {
	Example   int    `json:"example"`
	Section   string `json:"section"`
	Extension string `json:"extension"`
	Markdown  string `json:"markdown"`
	HTML      string `json:"html"`
}

func loadSpec(t testing.TB, path string) []specExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open spec examples: %v", err)
	}
	defer f.Close()
	var out []specExample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e specExample
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// runSpec runs every example of a spec file, except the known ones:
// those must still differ (a fixed difference is taken off the list).
func runSpec(t *testing.T, path string, tagFilter bool, known map[int]string) {
	examples := loadSpec(t, path)
	passed := 0
	for _, e := range examples {
		got := renderHTML(Parse(e.Markdown), tagFilter)
		same := normalizeHTML(got) == normalizeHTML(e.HTML)
		reason, isKnown := known[e.Example]
		switch {
		case same && isKnown:
			t.Errorf("example %d (%s) passes but is listed as a known difference (%s): take it off the list", e.Example, e.Section, reason)
		case !same && !isKnown:
			t.Errorf("example %d (%s):\nmarkdown: %q\nwant: %q\ngot:  %q", e.Example, e.Section, e.Markdown, e.HTML, got)
		}
		if same {
			passed++
		}
	}
	t.Logf("%s: %d of %d examples pass, %d known differences", path, passed, len(examples), len(known))
}

// TestCommonMarkSpec runs the 652 examples of CommonMark 0.31.2.
func TestCommonMarkSpec(t *testing.T) {
	runSpec(t, "testdata/spec/commonmark-0.31.2.jsonl", false, knownCommonMark)
}

// TestGFMSpec runs the examples of GFM 0.29's extensions.
func TestGFMSpec(t *testing.T) {
	runSpec(t, "testdata/spec/gfm-0.29-extensions.jsonl", true, knownGFM)
}

// knownCommonMark are the CommonMark examples the package differs on,
// as its comment lists them: the bare URL extension is always on, and
// named references are a subset.
var knownCommonMark = map[int]string{
	25:  "named entity references outside entities.go's subset stay text",
	608: "a bare URL is a link (GFM's extended autolinks are always on)",
	611: "a bare URL is a link (GFM's extended autolinks are always on)",
}

// knownGFM are the GFM extension examples the package differs on.
var knownGFM = map[int]string{
	629: "bare e-mail addresses are not links",
	630: "bare e-mail addresses are not links",
	631: "bare e-mail addresses are not links",
}
