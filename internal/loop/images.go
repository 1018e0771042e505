package loop

// Images (issue 17). An image is checked and stored by the caller
// (attachments.Store) and given to SendImages with the message's text; it
// becomes a file part of kind image after the text and the @mentions. A
// model without vision (config.ModelInfo.Vision) is refused before anything
// is stored or sent. The request carries the newest images whole, as data
// URLs read from the store at each step (convert.go); a summary names them.

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/message"
)

// ErrNoVision is why images are refused for a model without vision.
var ErrNoVision = errors.New("does not take images (no vision: true in the catalog or its models entry in your config)")

// ErrBusyImages: images attach to a message that starts a turn; a message
// queued while the loop runs carries text only.
var ErrBusyImages = errors.New("images can be attached only when the agent is idle")

// Vision reports whether the session's model takes images.
func (r *Runner) Vision() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.info.Vision
}

// SendImages gives the idle session a user message with images attached
// (each made by attachments.Store) and starts a turn. It refuses, storing
// and sending nothing, a model without vision (ErrNoVision) and a busy loop
// (ErrBusyImages). Without images it is SendKind.
func (r *Runner) SendImages(ctx context.Context, text string, images []*message.FileState) error {
	if len(images) == 0 {
		_, err := r.SendKind(ctx, text, message.KindSteer)
		return err
	}
	for _, f := range images {
		if f == nil || f.Kind != message.AttachImage || f.Store == "" {
			return errors.New("send: an image not from the attachment store")
		}
	}
	r.mu.Lock()
	switch {
	case !r.info.Vision:
		model := r.model
		r.mu.Unlock()
		return fmt.Errorf("send: model %s %w", model, ErrNoVision)
	case r.busy:
		r.mu.Unlock()
		return fmt.Errorf("send: %w", ErrBusyImages)
	}
	r.busy = true
	r.mu.Unlock()
	if err := r.addUserMessage(ctx, text, false, images...); err != nil {
		r.setIdle(TurnResult{FinishReason: FinishError, Err: err})
		return err
	}
	r.start()
	return nil
}

// convertOptions are the converter's options for the session's model.
func (r *Runner) convertOptions() ConvertOptions {
	opt := ConvertOptions{ReasoningRoundtrip: r.info.ReasoningRoundtrip}
	if r.info.Vision {
		opt.ImageURL = attachments.ForDataDir(r.opt.Config.DataDir).DataURL
	}
	return opt
}
