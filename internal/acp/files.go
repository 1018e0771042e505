package acp

// files.go: the client's file system (fs/read_text_file,
// fs/write_text_file) as the session's tools.Editor, when the client
// offered it at initialize: the read and edit tools see the editor's
// buffers, and what write and edit store is sent to the editor after it is
// on disk (tools/editor.go).

import (
	"context"
	"path/filepath"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// fileTimeout bounds one file request to the client.
const fileTimeout = 30 * time.Second

type clientFiles struct {
	s            *session
	read, writes bool
}

func (c *clientFiles) ReadText(ctx context.Context, path string) (string, error) {
	if !c.read {
		return "", errNoCapability
	}
	ctx, cancel := context.WithTimeout(ctx, fileTimeout)
	defer cancel()
	resp, err := c.s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(c.s.id), Path: path})
	if err != nil {
		c.s.a.log.Debug("fs/read_text_file", "path", path, "error", err)
		return "", err
	}
	return resp.Content, nil
}

func (c *clientFiles) WroteText(ctx context.Context, path, content string) {
	if !c.writes {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fileTimeout)
	defer cancel()
	if _, err := c.s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(c.s.id), Path: path, Content: content}); err != nil {
		c.s.a.log.Warn("fs/write_text_file", "path", path, "error", err)
	}
}

// diffReadTimeout bounds the editor's read of a file a write or edit's
// diff is worked out from: the observer waits for it before the call
// runs, so an editor slow to answer falls back to the disk soon.
const diffReadTimeout = 2 * time.Second

// textOf is the text of path as the file tools read it, for a diff: the
// editor's buffer when the client offers fs/read_text_file and answers
// within diffReadTimeout, else the disk (nil: the disk only).
func textOf(s *session, fs sdk.FileSystemCapabilities) func(string) (string, bool, error) {
	if !fs.ReadTextFile {
		return nil
	}
	files := &clientFiles{s: s, read: true}
	return func(path string) (string, bool, error) {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		ctx, cancel := context.WithTimeout(context.Background(), diffReadTimeout)
		defer cancel()
		if text, err := files.ReadText(ctx, path); err == nil && len(text) <= maxDiffFileBytes {
			return text, true, nil
		}
		return readSmall(path)
	}
}

type capabilityError string

func (e capabilityError) Error() string { return string(e) }

const errNoCapability = capabilityError("the client does not offer fs/read_text_file")
