package main

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// imagesEnv is an environment whose user config declares a vision model
// (house-vl) and one without (house-text), with a 3×2 PNG in the working
// directory.
func imagesEnv(t *testing.T, steps ...pt.Step) (*env, []byte) {
	t.Helper()
	e := newEnv(t, steps...)
	cfg := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"models": {"house-vl": {"context_window": 64000, "vision": true},
		"house-text": {"context_window": 64000, "vision": false}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.work, "x.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return e, b.Bytes()
}

// TestE2ERunImage: `agent run --image x.png` with a vision model sends the
// image as an image_url part (a PNG data URL of the file's bytes) after the
// prompt's text, stored once, 0600, in the data dir.
func TestE2ERunImage(t *testing.T) {
	e, data := imagesEnv(t, pt.Text("a tiny black square"))
	res := e.run("", "run", "--model", "house-vl", "--image", "x.png", "--image", "x.png", "what is this?")
	if res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	var user *openai.ChatCompletionMessage
	for _, r := range e.srv.Requests() {
		for i, m := range r.Chat.Messages {
			if m.Role == openai.ChatMessageRoleUser && len(m.MultiContent) > 0 {
				user = &r.Chat.Messages[i]
			}
		}
	}
	if user == nil {
		t.Fatalf("no request with content parts; requests: %d", len(e.srv.Requests()))
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	parts := user.MultiContent
	if len(parts) != 3 || parts[0].Type != openai.ChatMessagePartTypeText || !strings.Contains(parts[0].Text, "what is this?") {
		t.Fatalf("parts %+v: want the text, then two images", parts)
	}
	for _, p := range parts[1:] {
		if p.Type != openai.ChatMessagePartTypeImageURL || p.ImageURL == nil || p.ImageURL.URL != want {
			t.Errorf("part %+v: want an image_url with %.40s…", p, want)
		}
	}
	var stored []string
	filepath.WalkDir(filepath.Join(e.data, "attachments"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			stored = append(stored, path)
			if fi, _ := d.Info(); fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
			}
		}
		return nil
	})
	if len(stored) != 1 || !strings.HasSuffix(stored[0], ".png") {
		t.Errorf("stored %q: want the image once", stored)
	}
}

// TestE2ERunImageRefused: an image for a model without vision, too large
// or not an image is refused with the reason, exit 2, before any request.
func TestE2ERunImageRefused(t *testing.T) {
	e, _ := imagesEnv(t)
	os.WriteFile(filepath.Join(e.work, "notes.png"), []byte("plain text, not a picture\n"), 0o644)
	big := filepath.Join(e.work, "big.png")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 21<<20); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		why  string
	}{
		{[]string{"--model", "house-text", "--image", "x.png"}, "model house-text does not take images"},
		{[]string{"--model", "deepseek-chat", "--image", "x.png"}, "model deepseek-chat does not take images"}, // a text-only catalog row
		{[]string{"--model", "house-vl", "--image", "notes.png"}, "notes.png: not a PNG, JPEG, GIF or WebP image (it looks like text/plain)"},
		{[]string{"--model", "house-vl", "--image", "big.png"}, "big.png: larger than 20 MB"},
		{[]string{"--model", "house-vl", "--image", "missing.png"}, "missing.png: open"},
	} {
		res := e.run("", append(append([]string{"run"}, tt.args...), "what is this?")...)
		if res.code != 2 || !strings.Contains(res.stderr, tt.why) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, res.code, res.stderr, tt.why)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests made, want none", n)
	}
	if _, err := os.Stat(filepath.Join(e.data, "attachments")); !os.IsNotExist(err) {
		t.Errorf("an image was stored for a refused run (%v)", err)
	}
	if res := e.run("", "sessions", "--json"); strings.Contains(res.stdout, "what is this") {
		t.Errorf("a refused run left a session: %s", res.stdout)
	}
}
