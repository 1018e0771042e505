package providertest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/provider/providertest"
)

// TestConversationThroughProvider is the typical use, and a check that the
// provider reads what this server writes: the model calls a tool, then
// answers.
func TestConversationThroughProvider(t *testing.T) {
	var out strings.Builder
	srv := providertest.New(t,
		providertest.ToolCall("call_1", "ls", `{"path":"."}`),
		providertest.Text("There are two files."),
	)
	p := provider.NewOpenAI(provider.Config{BaseURL: srv.URL, APIKey: "test"})
	for range 2 {
		s, err := p.Stream(context.Background(), provider.Request{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			ev, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			switch ev.Type {
			case provider.EventToolCallEnd:
				fmt.Fprintln(&out, "tool:", ev.ToolCall.Name, ev.ToolCall.Arguments)
			case provider.EventTextDelta:
				fmt.Fprint(&out, ev.Text)
			case provider.EventFinish:
				fmt.Fprintln(&out, " ["+ev.FinishReason+"]")
			}
		}
		s.Close()
	}
	fmt.Fprintln(&out, len(srv.Requests()), "requests")
	want := "tool: ls {\"path\":\".\"}\n [tool_calls]\nThere are two files. [stop]\n2 requests\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
