package gfm

import (
	"os"
	"strings"
	"testing"
)

// gfmReply is a ≈2 KB answer that uses every extension: a table with
// alignments and an escaped pipe, strikethrough, a task list and bare
// URLs between prose.
var gfmReply = strings.Repeat(`Compared on the test machine (see https://example.com/bench, or www.example.com/b):

| variant | time | memory \| peak |
|:--------|-----:|:--------------:|
| old     | 12 ms | 40 MB |
| ~~new~~ | 9 ms | 31 MB |
| `+"`a\\|b`"+` | 7 ms | 30 MB |

- [x] measure the ~~old~~ original
- [ ] measure the new one (https://example.com/new_(v2)).
- [ ] write it up, then mail bob@example.com

`, 5)

// BenchmarkParse parses the chat's typical reply (../testdata/reply.md,
// few extensions) and a reply full of them.
func BenchmarkParse(b *testing.B) {
	reply, err := os.ReadFile("../testdata/reply.md")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		src  string
	}{{"reply", string(reply)}, {"gfm", gfmReply}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.src)))
			b.ReportAllocs()
			for b.Loop() {
				Parse(bc.src)
			}
		})
	}
}
