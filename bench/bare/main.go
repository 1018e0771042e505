// Command bare is the floor the agent's headless start-up is measured
// against (issue 20): the least a Go program built with this project's own
// modules does to answer one prompt. It opens SQLite in WAL mode
// (modernc.org/sqlite, as internal/storage does), streams one answer over
// HTTP with go-openai, prints it and stores it, then exits. No config, no
// sessions, no tools, no prompt environment.
//
// Its database work is what the agent's least is, and no more: one
// connection, and the WAL and its index kept at close (internal/storage's
// keepWAL). Until issue 28 it let SQLite delete them at close and create
// them again on the next run — two files created and unlinked and one more
// fsync per run, which the agent does not pay — so the floor was ≈ 1.1×
// heavier than a bare program and the ratio read lower than the true one.
//
// It reads the environment the agent reads: OPENAI_BASE_URL,
// OPENAI_API_KEY, AGENT_MODEL and AGENT_DATA_DIR (bare.db is written
// there). The prompt is its arguments. cmd/agent's
// BenchmarkHeadlessVsBare builds it and runs it interleaved with
// `agent run`, both linked statically (CGO_ENABLED=0) as `make build`
// links the agent: a dynamic floor would carry ld.so and libc (1.3 MiB).
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
	_ "modernc.org/sqlite"
)

func main() {
	if err := run(context.Background(), strings.Join(os.Args[1:], " ")); err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, prompt string) error {
	dir := os.Getenv("AGENT_DATA_DIR")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "bare.db")+
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	// One connection, and the WAL and its index kept at close, as
	// internal/storage does: a run does not create the two files again.
	db.SetMaxOpenConns(1)
	if err := keepWAL(ctx, db); err != nil {
		return fmt.Errorf("keep WAL: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS answers (
		id INTEGER PRIMARY KEY, prompt TEXT NOT NULL, answer TEXT NOT NULL, at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create table: %w", err)
	}

	cfg := openai.DefaultConfig(os.Getenv("OPENAI_API_KEY"))
	cfg.BaseURL = os.Getenv("OPENAI_BASE_URL")
	client := openai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model:  os.Getenv("AGENT_MODEL"),
		Stream: true,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: "You are a helpful assistant."},
			{Role: openai.ChatMessageRoleUser, Content: prompt},
		},
	})
	if err != nil {
		return fmt.Errorf("request: %w", err)
	}
	defer stream.Close()
	var answer strings.Builder
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("stream: %w", err)
		}
		for _, c := range resp.Choices {
			answer.WriteString(c.Delta.Content)
		}
	}
	fmt.Println(answer.String())
	if _, err := db.ExecContext(ctx, "INSERT INTO answers (prompt, answer, at) VALUES (?, ?, ?)",
		prompt, answer.String(), time.Now().UnixMilli()); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// keepWAL sets SQLITE_FCNTL_PERSIST_WAL on the connection, as
// internal/storage's keepWAL does.
func keepWAL(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		fc, ok := dc.(interface {
			FileControlPersistWAL(dbName string, mode int) (int, error)
		})
		if !ok {
			return errors.New("the driver cannot keep the WAL")
		}
		_, err := fc.FileControlPersistWAL("main", 1)
		return err
	})
}
