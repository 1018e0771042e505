package tokens

import (
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestTodoRowCountsLikePins: the todo list sent after the pins is its own
// row; estimated, it adds to the total; anchored on a call, a change
// shifts the total by the difference, and the messages row never holds it.
func TestTodoRowCountsLikePins(t *testing.T) {
	c := NewCalculator(Options{Window: 200000}, Chars{})
	c.SetFixed(1000, 2000)
	c.SetTodo(50)
	if r := c.Reading(); r.Total != 3050 || r.Breakdown.Todo != 50 || r.Breakdown.Messages != 0 {
		t.Fatalf("estimated: %+v", r.Breakdown)
	}
	c.Observe(message.Usage{Input: 5000, Output: 100}, 0)
	c.SetTodo(80)
	r := c.Reading()
	if r.Total != 5130 || r.Breakdown.Todo != 80 || r.Breakdown.Messages != 5130-1000-2000-80 {
		t.Fatalf("anchored: total %d, %+v", r.Total, r.Breakdown)
	}
}
