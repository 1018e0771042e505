package main

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestAppPreconnectOpensTheConnectionTheRunUses: a headless run's
// preconnect (runPrompt, before the database opens) makes the server
// accept a connection before any request, and the provider the session is
// driven with is the same one, whose dial hands that connection out.
func TestAppPreconnectOpensTheConnectionTheRunUses(t *testing.T) {
	srv := pt.New(t, pt.Text("hi"))
	dir := t.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: srv.URL, DataDir: t.TempDir()}, dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	a := &app{cfg: cfg, dir: dir}
	a.preconnect()
	select {
	case <-srv.Connected():
	case <-time.After(10 * time.Second): // a failure bound, not a wait
		t.Fatal("preconnect opened no connection")
	}
	p := a.loopOptions(nil, nil).Provider
	if p != a.provider() {
		t.Fatal("the session is driven by another provider than the preconnected one")
	}
	s, err := p.Stream(context.Background(), provider.Request{Model: "gpt-4.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for {
		if _, err := s.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
	}
	// Whether the request took the parked connection is the provider's
	// test (the park may not be stored yet when the accept is seen here).
}
