package loop

import (
	"encoding/json"
	"testing"

	"github.com/ctxloop/agent/internal/provider"
	openai "github.com/sashabaranov/go-openai"
)

// TestToolsPrintHashedOnlyWhenJudged: the first request's print is judged
// against nothing and leaves its tools unencoded; the next request with
// the same array shares the print, and the hash, once read, is the hash of
// the array's JSON as before (a differential check against the encoding).
func TestToolsPrintHashedOnlyWhenJudged(t *testing.T) {
	defs := []openai.Tool{
		{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "bash", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
	}
	req := provider.Request{Model: "m", Tools: defs}
	first := printRequest(req, 0, "", "", nil, nil, nil)
	if v := judgePrints(nil, first, ""); v.broken {
		t.Fatal("the first request broke a prefix")
	}
	if first.tools.p != (partPrint{}) {
		t.Fatal("the first request's tools were encoded for a print no one compared")
	}
	second := printRequest(req, 0, "", "", nil, first, nil)
	if second.tools != first.tools {
		t.Fatal("the same tools array made a new print")
	}
	if v := judgePrints(first, second, ""); v.broken {
		t.Fatalf("the same request broke the prefix: %+v", v)
	}
	want, _ := json.Marshal(defs)
	if got := second.tools.print(); got != printOf(want) {
		t.Fatalf("print %v, want %v (the array's JSON)", got, printOf(want))
	}
	// Equal content in another slice: the same print; any change: another.
	copied := append([]openai.Tool(nil), defs...)
	if p := printRequest(provider.Request{Model: "m", Tools: copied}, 0, "", "", nil, second, nil); p.tools == second.tools || p.tools.print() != second.tools.print() {
		t.Fatal("an equal array in another slice: want a new print with the same hash")
	}
	changed := append([]openai.Tool(nil), defs...)
	fn := *changed[1].Function
	fn.Description = "Run a command."
	changed[1].Function = &fn
	p := printRequest(provider.Request{Model: "m", Tools: changed}, 0, "", "", nil, second, nil)
	if v := judgePrints(second, p, ""); !v.broken || v.reason != BoundaryTools {
		t.Fatalf("a changed tool: %+v, want a tools boundary", v)
	}
	if p := printRequest(provider.Request{Model: "m"}, 0, "", "", nil, second, nil); p.tools != nil || p.tools.print() != (partPrint{}) {
		t.Fatal("no tools: want the empty print")
	}
}
