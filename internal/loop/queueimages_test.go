package loop

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func visionModel(o *Options, c *config.Config) {
	c.Model = "house-vl"
	c.Models["house-vl"] = config.ModelInfo{ContextWindow: 64000, MaxOutput: 4096, Vision: true}
}

// storedImage puts a 3×2 PNG into the harness's attachment store.
func (h *harness) storedImage(name string) *message.FileState {
	h.t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		h.t.Fatal(err)
	}
	f, err := attachments.ForDataDir(h.data).Add(name, b.Bytes())
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

// TestImagesQueueAndSteer: an image sent while the loop is busy is queued
// with its text like any message (it was refused: "images can be attached
// only when the agent is idle"); a steering one arrives at the turn's next
// step and a queued one starts the next turn, each attached to the user
// message it is delivered in, and sent to the model.
func TestImagesQueueAndSteer(t *testing.T) {
	release := make(chan struct{})
	h := newHarnessWith(t, visionModel, blockedToolStep(release), pt.Text("a square"), pt.Text("another"))
	ctx := context.Background()
	h.r.Send(ctx, "start")
	if err := h.srv.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	steer, later := h.storedImage("steer.png"), h.storedImage("later.png")
	if err := h.r.SendImages(ctx, "look at this", []*message.FileState{steer}); err != nil {
		t.Fatalf("steer an image: %v", err)
	}
	if queued, err := h.r.SendKind(ctx, "and this after", message.KindQueue, later); err != nil || !queued {
		t.Fatalf("queue an image: queued %v, %v", queued, err)
	}
	q, _ := h.r.Queue(ctx)
	if len(q) != 2 || len(q[0].Images) != 1 || q[0].Images[0].Path != "steer.png" || len(q[1].Images) != 1 {
		t.Fatalf("queue %+v", q)
	}
	close(release)
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if res := h.r.Wait(wctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
	for i, want := range []string{"text:look at this | url:data:image/png", "text:and this after | url:data:image/png"} {
		req := h.request(i + 1)
		if got := describe(req[len(req)-1]); !strings.HasPrefix(got, want) {
			t.Errorf("request %d ends with %q, want %q…", i+2, got, want)
		}
	}
	var images []string
	for _, e := range h.r.History() {
		for _, p := range e.Parts {
			if p.Type == message.PartFile && p.File.Kind == message.AttachImage {
				images = append(images, p.File.Path)
			}
		}
	}
	if strings.Join(images, ",") != "steer.png,later.png" {
		t.Errorf("images stored with the delivered messages: %v", images)
	}
}
