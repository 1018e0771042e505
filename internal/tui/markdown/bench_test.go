package markdown

import (
	"strings"
	"testing"
)

// typicalReply is a ≈3 KB assistant answer (four times the same section):
// a heading, paragraphs with inline code, emphasis and a link, a list and
// a Go code block.
var typicalReply = strings.Repeat(`## Fixing the retry loop

The **retry loop** in `+"`fetch`"+` gives up too early: it counts the first attempt as a retry, so
with *max = 3* only two retries happen. The fix is to count attempts, not retries, and to
wait with a backoff that doubles each time (see [the docs](https://example.com/retry)).

- count attempts from one
- double the wait, up to a cap
- stop when the context is done

`+"```go"+`
func fetch(ctx context.Context, url string) ([]byte, error) {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		body, err := get(ctx, url) // one try
		if err == nil || attempt == maxAttempts {
			return body, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}
`+"```"+`

`, 4)

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
