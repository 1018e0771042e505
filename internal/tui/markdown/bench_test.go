package markdown

import (
	"os"
	"testing"
)

// typicalReply is a ≈3 KB assistant answer (four times the same section):
// a heading, paragraphs with inline code, emphasis and a link, a list and
// a Go code block. internal/tui's BenchmarkMarkdownReply reads it too.
var typicalReply = mustRead("testdata/reply.md")

func mustRead(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchmarkRender renders a typical 3 KB reply at 100 columns in one
// piece (the chat renders it block by block: BenchmarkMarkdownReply in
// internal/tui).
func BenchmarkRender(b *testing.B) {
	b.SetBytes(int64(len(typicalReply)))
	b.ReportAllocs()
	for b.Loop() {
		Render(typicalReply, 100, true)
	}
}
