package memory

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctxloop/agent/internal/storage"
)

// BenchmarkBlock10000: the prompt's memory section of a project with
// 10,000 memories, a tenth of them pinned (a session's Open makes it).
// Reading the pinned ones alone, not every memory: 91 → 13 ms a Block
// on the shared test machine (-benchtime 20x).
func BenchmarkBlock10000(b *testing.B) {
	ctx := context.Background()
	st, err := storage.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dir := b.TempDir()
	for i := range 10000 {
		m := storage.Memory{Scope: dir, Text: fmt.Sprintf("fact %d about how the build and the tests run", i), Pinned: i%10 == 0}
		if err := st.Memories().Add(ctx, &m); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if Block(ctx, st.Memories(), dir) == "" {
			b.Fatal("no section")
		}
	}
}
