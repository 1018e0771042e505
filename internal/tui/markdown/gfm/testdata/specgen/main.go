// Command specgen extracts the examples of a CommonMark or GFM spec.txt
// into JSON lines (one example a line: number, section, extension,
// markdown, html), the test data of the gfm package's spec tests. It
// reads spec.txt the way the spec's own test/spec_tests.py does: an
// example opens with a line of 32 backticks and " example" (GFM adds the
// extension's name after it), its Markdown and HTML are split by a line
// holding ".", and "→" stands for a tab.
//
//	go run ./testdata/specgen < spec.txt > testdata/spec/commonmark-0.31.2.jsonl
//	go run ./testdata/specgen -ext < gfm-spec.txt > testdata/spec/gfm-0.29-extensions.jsonl
//
// With -ext only the examples of an extension are written (GFM's spec
// repeats CommonMark's examples; its task list examples are marked
// "disabled" and written as extension "tasklist").
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"log"
	"os"
	"strings"
)

type example struct {
	Example   int    `json:"example"`
	Section   string `json:"section"`
	Extension string `json:"extension,omitempty"`
	Markdown  string `json:"markdown"`
	HTML      string `json:"html"`
}

func main() {
	extOnly := flag.Bool("ext", false, "write only the examples of GFM extensions")
	flag.Parse()
	fence := strings.Repeat("`", 32)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	var (
		state   int // 0 text, 1 markdown, 2 html
		section string
		n       int
		cur     example
		md, out strings.Builder
	)
	for sc.Scan() {
		line := sc.Text()
		l := strings.TrimSpace(line)
		switch {
		case state == 0 && strings.HasPrefix(l, fence+" example"):
			state = 1
			cur = example{Section: section, Extension: strings.TrimSpace(strings.TrimPrefix(l, fence+" example"))}
			if cur.Extension == "disabled" && strings.Contains(section, "Task list") {
				cur.Extension = "tasklist"
			}
			md.Reset()
			out.Reset()
		case state == 2 && l == fence:
			state = 0
			n++
			cur.Example = n
			cur.Markdown = strings.ReplaceAll(md.String(), "→", "\t")
			cur.HTML = strings.ReplaceAll(out.String(), "→", "\t")
			if !*extOnly || cur.Extension != "" {
				if err := enc.Encode(cur); err != nil {
					log.Fatal(err)
				}
			}
		case state == 1 && l == ".":
			state = 2
		case state == 1:
			md.WriteString(line + "\n")
		case state == 2:
			out.WriteString(line + "\n")
		case state == 0 && strings.HasPrefix(line, "#") && strings.Contains(line, "# "):
			if h := strings.TrimLeft(line, "#"); strings.HasPrefix(h, " ") {
				section = strings.TrimSpace(h)
			}
		}
	}
	if err := sc.Err(); err != nil {
		log.Fatal(err)
	}
}
