// Package mcptest is an MCP server for tests, built with the official SDK:
// the same tools over stdio, in a child process (the test binary started
// again, see Serve and Stdio), or over streamable HTTP in process (HTTP).
//
// Its tools: echo{text}, big{kb} (kb KB of numbered lines), image (a 3×2
// PNG and a line of text), fail (an isError result), pid (the serving
// process's id: a restart changes it), pwd, getenv{name}, hang (never
// answers until cancelled), dotted.name (a name to sanitise), and over
// stdio only crash (writes to stderr and exits 3 mid-call). Setting
// EnvStartDelayMS delays the stdio server's start; EnvHugeKB adds a tool
// with a huge schema; EnvStdoutJunk, EnvTaskTools, EnvOnce and EnvRoots
// script what real servers were seen to do (scripted.go).
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxloop/agent/internal/config"
)

// Environment variables of the stdio server.
const (
	// EnvServe makes Serve serve MCP over stdio instead of running tests.
	EnvServe = "AGENT_MCPTEST_SERVE"
	// EnvStartDelayMS delays the server's start by this many ms.
	EnvStartDelayMS = "AGENT_MCPTEST_START_DELAY_MS"
	// EnvHugeKB adds the tool huge_report, whose input schema alone is
	// this many KB (a property's description), as a server may list.
	EnvHugeKB = "AGENT_MCPTEST_HUGE_KB"
)

// ToolNames are the tools every server offers, in order; Stdio servers add
// "crash".
var ToolNames = []string{"echo", "big", "image", "fail", "pid", "pwd", "getenv", "hang", "dotted.name"}

type textIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type bigIn struct {
	KB int `json:"kb" jsonschema:"how many KB to answer"`
}

type nameIn struct {
	Name string `json:"name" jsonschema:"an environment variable"`
}

type none struct{}

// PNG is the image the image tool answers: a red 3×2 PNG.
var PNG = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for x := range 3 {
		for y := range 2 {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// NewServer returns the test server; stdio adds the crash tool.
func NewServer(stdio bool) *sdk.Server { return newServer(stdio, nil) }

func newServer(stdio bool, opt *sdk.ServerOptions) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, opt)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Answer kb KB of text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
			var b strings.Builder
			for i := 0; b.Len() < in.KB*1024; i++ {
				fmt.Fprintf(&b, "line %06d %s\n", i, strings.Repeat("x", 50))
			}
			return text(b.String()), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "image", Description: "Answer an image."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: PNG},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			res := text("it went wrong")
			res.IsError = true
			return res, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Answer the server's process id."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pwd", Description: "Answer the server's working directory."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			return text(wd), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "Answer an environment variable."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				return text("(unset)"), nil, nil
			}
			return text(v), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answer."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "dotted.name", Description: "A name with a dot."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			return text("dotted"), nil, nil
		})
	if stdio {
		sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit in the middle of the call."},
			func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
				fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
				os.Exit(3)
				return nil, nil, nil
			})
	}
	return s
}

// Serve serves MCP over stdio and exits when EnvServe is set; otherwise it
// returns at once. Call it first thing in TestMain.
func Serve() {
	if os.Getenv(EnvServe) == "" {
		return
	}
	if ms, _ := strconv.Atoi(os.Getenv(EnvStartDelayMS)); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	onceOnly()
	fmt.Fprintln(os.Stderr, "mcptest: serving on stdio")
	s := newServer(true, serverOptions())
	if kb, _ := strconv.Atoi(os.Getenv(EnvHugeKB)); kb > 0 {
		addHuge(s, kb)
	}
	if err := s.Run(context.Background(), scripted(s)); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Stdio is the config entry that starts the running test binary as a
// stdio server (its TestMain must call Serve), with env added.
func Stdio(t testing.TB, env map[string]string) config.MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{EnvServe: "1"}
	for k, v := range env {
		e[k] = v
	}
	return config.MCPServer{Command: exe, Env: e}
}

// HTTP serves the test server over streamable HTTP on 127.0.0.1 until the
// test ends. header, when not empty, is a header ("Name: value") every
// request must carry: others are refused with 401.
func HTTP(t testing.TB, header string) *httptest.Server {
	t.Helper()
	s := NewServer(false)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	name, value, _ := strings.Cut(header, ":")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if header != "" && r.Header.Get(strings.TrimSpace(name)) != strings.TrimSpace(value) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// addHuge adds the tool huge_report, whose schema alone is kb KB.
func addHuge(s *sdk.Server, kb int) {
	s.AddTool(&sdk.Tool{Name: "huge_report", Description: "Make the huge report.", InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{"q": map[string]any{
			"type": "string", "description": strings.Repeat("huge schema text ", kb*1024/17),
		}},
	}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text("huge report made"), nil
	})
}

// HTTPHuge is HTTP without a required header, whose tools add
// huge_report with a schema of kb KB (see EnvHugeKB).
func HTTPHuge(t testing.TB, kb int) *httptest.Server {
	t.Helper()
	s := NewServer(false)
	addHuge(s, kb)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// HTTPSeen is HTTP without a required header, and the headers of every
// request it was sent so far.
func HTTPSeen(t testing.TB) (*httptest.Server, func() []http.Header) {
	t.Helper()
	s := NewServer(false)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// Args marshals a tool call's arguments.
func Args(v map[string]any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
