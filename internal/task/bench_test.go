package task

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

// BenchmarkTaskSpawn measures what a task call costs before and after
// its model calls: creating the child session, opening it (lease, repair,
// history, system prompt with git status outside a repository) and
// closing it.
func BenchmarkTaskSpawn(b *testing.B) {
	ctx := context.Background()
	dir, data := b.TempDir(), b.TempDir()
	cfg, err := config.Load(config.Flags{Model: "gpt-4.1", BaseURL: "http://127.0.0.1:1/v1", DataDir: data}, dir,
		func(k string) string { return map[string]string{"HOME": b.TempDir()}[k] })
	if err != nil {
		b.Fatal(err)
	}
	st, err := storage.Open(ctx, data)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sess := &message.Session{Model: cfg.Model, Dir: dir}
	if err := st.CreateSession(ctx, sess); err != nil {
		b.Fatal(err)
	}
	parent := loop.Parent{ID: sess.ID, Model: cfg.Model, Dir: dir, Options: loop.Options{
		Store: st, Provider: provider.NewOpenAI(provider.Config{BaseURL: cfg.BaseURL, APIKey: "k"}),
		Config: cfg, Perms: tools.NewPermissions(nil, nil, false), OutputDir: filepath.Join(data, "outputs"),
	}}
	tool := New(cfg.Task)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := tool.open(ctx, parent, tool.reg, "bench", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
