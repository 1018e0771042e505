// Command bare is the floor the agent's headless start-up is measured
// against (issue 20): the least a Go program built with this project's own
// modules does to answer one prompt. It opens SQLite in WAL mode
// (modernc.org/sqlite, as internal/storage does), streams one answer over
// HTTP with go-openai, prints it and stores it, then exits. No config, no
// sessions, no tools, no prompt environment.
//
// It reads the environment the agent reads: OPENAI_BASE_URL,
// OPENAI_API_KEY, AGENT_MODEL and AGENT_DATA_DIR (bare.db is written
// there). The prompt is its arguments. cmd/agent's
// BenchmarkHeadlessVsBare builds it and runs it interleaved with
// `agent run`.
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
