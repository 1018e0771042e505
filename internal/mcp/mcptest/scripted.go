package mcptest

// What real stdio servers were seen to do, scripted by environment
// variables of the stdio server (Serve):
//
//   - EnvStdoutJunk: the value is printed on stdout, as a line, before the
//     first message (a server that logs a banner to stdout).
//   - EnvTaskTools: the tools long_job, listed with execution.taskSupport
//     "required" (callable only as an MCP task), and quick_job, "optional".
//   - EnvOnce: a file path; the first start creates it, a later start
//     writes "mcptest: started before, refusing" to stderr and exits 1 (a
//     restart that fails).
//   - EnvRoots: the tool roots, answering the client's roots (roots/list)
//     as one URI a line.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment variables of the scripted behaviours.
const (
	EnvStdoutJunk = "AGENT_MCPTEST_STDOUT_JUNK"
	EnvTaskTools  = "AGENT_MCPTEST_TASK_TOOLS"
	EnvOnce       = "AGENT_MCPTEST_ONCE"
	EnvRoots      = "AGENT_MCPTEST_ROOTS"
)

// serverOptions are the stdio server's: with EnvRoots it speaks the
// protocol of 2025-06-18, as the npm servers do, where a server asks
// for roots/list while it serves a call.
func serverOptions() *sdk.ServerOptions {
	if os.Getenv(EnvRoots) == "" {
		return nil
	}
	return &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-06-18"}}
}

// onceOnly exits, as a failed start, when EnvOnce's file exists.
func onceOnly() {
	path := os.Getenv(EnvOnce)
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintln(os.Stderr, "mcptest: started before, refusing")
		os.Exit(1)
	}
	_ = os.WriteFile(path, []byte("started\n"), 0o600)
}

// scripted adds the scripted tools to s and returns the stdio transport,
// with stdout's junk and task markings when asked for.
func scripted(s *sdk.Server) sdk.Transport {
	var w io.WriteCloser = os.Stdout
	if junk := os.Getenv(EnvStdoutJunk); junk != "" {
		fmt.Fprintln(os.Stdout, junk)
	}
	if os.Getenv(EnvTaskTools) != "" {
		addTaskTools(s)
		w = taskMarker{os.Stdout}
	}
	if os.Getenv(EnvRoots) != "" {
		s.AddTool(&sdk.Tool{Name: "roots", Description: "Answer the client's roots.", InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				res, err := req.Session.ListRoots(ctx, nil)
				if err != nil {
					return nil, err
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				return text(strings.Join(uris, "\n")), nil
			})
	}
	return &sdk.IOTransport{Reader: os.Stdin, Writer: w}
}

// HTTPTasks is HTTP without a required header, whose tools add long_job
// (execution.taskSupport "required") and quick_job ("optional"), as
// EnvTaskTools does over stdio.
func HTTPTasks(t testing.TB) *httptest.Server {
	t.Helper()
	s := NewServer(false)
	addTaskTools(s)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(markedWriter{ResponseWriter: w}, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// markedWriter marks the task tools in what an HTTP response writes.
type markedWriter struct{ http.ResponseWriter }

func (m markedWriter) Write(p []byte) (int, error) {
	if _, err := m.ResponseWriter.Write(markTasks(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (m markedWriter) Flush() {
	if f, ok := m.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func addTaskTools(s *sdk.Server) {
	for _, name := range []string{"long_job", "quick_job"} {
		s.AddTool(&sdk.Tool{Name: name, Description: "A job.", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("done without a task"), nil
			})
	}
}

func markTasks(p []byte) []byte {
	q := bytes.ReplaceAll(p, []byte(`"name":"long_job"`), []byte(`"execution":{"taskSupport":"required"},"name":"long_job"`))
	return bytes.ReplaceAll(q, []byte(`"name":"quick_job"`), []byte(`"execution":{"taskSupport":"optional"},"name":"quick_job"`))
}

// taskMarker adds the execution field the SDK's Tool does not have to
// the listings of long_job and quick_job.
type taskMarker struct{ w io.WriteCloser }

func (t taskMarker) Write(p []byte) (int, error) {
	if _, err := t.w.Write(markTasks(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t taskMarker) Close() error { return t.w.Close() }
