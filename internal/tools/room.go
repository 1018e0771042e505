package tools

import "context"

// The room a result may take: the loop knows how full the context is, a
// tool does not. Before it runs a step's calls the loop puts into their
// context how many bytes one result may add without being cut afterwards
// (loop's step fit), and a tool that can shape its own result — recall
// fitting a long text as head and tail, with where the rest is — fits it
// to that room rather than letting the generic cut keep only its first
// lines. No room in the context (0) means unknown: use the usual caps.

type resultRoomKey struct{}

// WithResultRoom returns ctx carrying the room, in bytes, one tool result
// may take (≤ 0: unknown).
func WithResultRoom(ctx context.Context, maxBytes int) context.Context {
	return context.WithValue(ctx, resultRoomKey{}, maxBytes)
}

// ResultRoom returns the room, in bytes, one tool result may take in the
// call's context; 0 when unknown.
func ResultRoom(ctx context.Context) int {
	n, _ := ctx.Value(resultRoomKey{}).(int)
	return max(n, 0)
}
