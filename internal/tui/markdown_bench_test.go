package tui

import (
	"os"
	"testing"
)

// typicalReply is the renderer's own benchmark reply (≈3 KB).
var typicalReply = func() string {
	b, err := os.ReadFile("markdown/testdata/reply.md")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// BenchmarkMarkdownReply renders a typical 3 KB reply block by block at
// 100 columns, as the chat does once a reply is finished.
func BenchmarkMarkdownReply(b *testing.B) {
	blocks, _ := splitBlocks(typicalReply, true)
	b.SetBytes(int64(len(typicalReply)))
	b.ReportAllocs()
	for b.Loop() {
		for _, blk := range blocks {
			renderMarkdown(blk, 100, true)
		}
	}
}
